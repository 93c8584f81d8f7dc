package openai

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/provider"
)

// BenchmarkRequestCurve is the per-request cost of a long session's request at 100, 1,000 and 5,000
// turns of about 9 KB each (issue 22's curve): "prepare" converts the transcript from scratch into a
// new spill file (what happens before the first byte is sent), as for the first request of a
// resumed session; "send" also reads the whole body as the transport reads it; "next" is "prepare"
// for a session's next request: the previous request ended at the last turn's tool result, this one
// has the answer after it too, and the provider's conversion cache holds the previous one's
// conversion; "nextsend" is "next" with the whole body read, as Anthropic's and Google's
// BenchmarkSendCurve measure a session's next request. "prepare", "send" and "nextsend" grow
// linearly with the turns, "next" only with the cost of walking the list of converted messages.
// cpu-ms/op is process CPU time (steadier than ns/op on a shared machine).
func BenchmarkRequestCurve(b *testing.B) {
	for _, turns := range []int{100, 1000, 5000} {
		req := &provider.Request{Model: testModel("http://127.0.0.1:1/v1"), SystemPrompt: "You are pi.",
			Messages: largeTranscript(turns, 1), Tools: []provider.ToolDefinition{bashTool, readTool}}
		prev := *req
		prev.Messages = req.Messages[:len(req.Messages)-1]
		for _, step := range []string{"prepare", "next", "send", "nextsend"} {
			b.Run(fmt.Sprintf("%s/turns=%d", step, turns), func(b *testing.B) {
				c := resolveCompat(req.Model)
				buf := make([]byte, 32<<10)
				cache := new(convCache)
				b.ReportAllocs()
				var cpu time.Duration
				for b.Loop() {
					b.StopTimer()
					if step == "next" || step == "nextsend" {
						if _, err := newCachedRequestBody(&prev, &c, cache); err != nil {
							b.Fatal(err)
						}
					} else {
						cache = new(convCache) // from scratch, into a new spill file as in a session
						runtime.GC()           // and the previous ones' files closed
					}
					b.StartTimer()
					cpu0, _ := cputime.Process()
					rb, err := newCachedRequestBody(req, &c, cache)
					if err != nil {
						b.Fatal(err)
					}
					if step == "send" || step == "nextsend" {
						readBody(b, rb, buf)
					}
					cpu1, _ := cputime.Process()
					cpu += cpu1 - cpu0
				}
				if cpu > 0 {
					ms := float64(cpu.Nanoseconds()) / float64(b.N)
					b.ReportMetric(ms/1e6, "cpu-ms/op")
					b.ReportMetric(ms/float64(turns), "cpu-ns/turn")
				}
			})
		}
	}
}
