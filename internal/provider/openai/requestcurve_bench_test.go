package openai

import (
	"fmt"
	"testing"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/provider"
)

// BenchmarkRequestCurve is the per-request cost of a long session's request at 100, 1,000 and 5,000
// turns of about 9 KB each (issue 22's curve): "prepare" converts the transcript and sizes the body
// (what happens before the first byte is sent), "send" also writes the whole body as the transport
// reads it; "next" is "prepare" for the session's next request, whose strings the previous request
// sized (the provider keeps their lengths). All grow linearly with the turns (cpu-ns/turn stays
// flat); "next" is what a long session pays per request besides the bytes the API makes it send.
// cpu-ms/op is process CPU time (steadier than ns/op on a shared machine).
func BenchmarkRequestCurve(b *testing.B) {
	for _, turns := range []int{100, 1000, 5000} {
		req := &provider.Request{Model: testModel("http://127.0.0.1:1/v1"), SystemPrompt: "You are pi.",
			Messages: largeTranscript(turns, 1), Tools: []provider.ToolDefinition{bashTool, readTool}}
		for _, step := range []string{"prepare", "next", "send"} {
			b.Run(fmt.Sprintf("%s/turns=%d", step, turns), func(b *testing.B) {
				c := resolveCompat(req.Model)
				buf := make([]byte, 32<<10)
				var lens *quotedLens
				if step == "next" {
					lens = new(quotedLens)
					if _, err := newCachedRequestBody(req, &c, lens); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				cpu0, _ := cputime.Process()
				for b.Loop() {
					rb, err := newCachedRequestBody(req, &c, lens)
					if err != nil {
						b.Fatal(err)
					}
					if step != "send" {
						continue
					}
					readBody(b, rb, buf)
				}
				cpu1, ok := cputime.Process()
				if ok {
					ms := float64((cpu1 - cpu0).Nanoseconds()) / float64(b.N)
					b.ReportMetric(ms/1e6, "cpu-ms/op")
					b.ReportMetric(ms/float64(turns), "cpu-ns/turn")
				}
			})
		}
	}
}
