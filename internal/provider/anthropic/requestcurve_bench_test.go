package anthropic

import (
	"fmt"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/curvetest"
)

// BenchmarkRequestCurve is what building one request body of a long session costs at 100, 1,000 and
// 5,000 turns of about 8 KB each (issue 22's curve, as openai's BenchmarkRequestCurve): "prepare"
// writes the whole body from scratch, as for the first request after a resume; "next" is a session's
// next request: the previous one ended at the last turn's tool result (with the cache breakpoint on
// it), this one has the answer after it too, and the provider's body cache holds the previous body.
// cpu-ms/op is process CPU time (steadier than ns/op on a shared machine).
func BenchmarkRequestCurve(b *testing.B) {
	m, ok := provider.BuiltinModel("anthropic", "claude-sonnet-4-5")
	if !ok {
		b.Fatal("no claude-sonnet-4-5")
	}
	for _, turns := range []int{100, 1000, 5000} {
		req := &provider.Request{Model: &m, SystemPrompt: "You are pi.", Messages: curveTranscript(&m, turns)}
		prev := *req
		prev.Messages = req.Messages[:len(req.Messages)-1]
		for _, step := range []string{"prepare", "next"} {
			b.Run(fmt.Sprintf("%s/turns=%d", step, turns), func(b *testing.B) {
				var cache *bodyCache
				if step == "next" {
					cache = new(bodyCache)
				}
				build := func(req *provider.Request) *request {
					r, err := buildCachedRequest(req, CacheShort, cache.Take())
					if err != nil {
						b.Fatal(err)
					}
					cache.Keep(r.state)
					return r
				}
				b.ReportAllocs()
				var cpu time.Duration
				var size int
				for b.Loop() {
					if cache != nil {
						b.StopTimer()
						build(&prev)
						b.StartTimer()
					}
					cpu0, _ := cputime.Process()
					size = len(build(req).body)
					cpu1, _ := cputime.Process()
					cpu += cpu1 - cpu0
				}
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
				b.ReportMetric(float64(size)/1e6, "body-MB")
			})
		}
	}
}

// curveTranscript is issue 22's curve transcript with this API's call ids and signatures.
func curveTranscript(m *provider.Model, turns int) []provider.Message {
	return curvetest.Transcript(m, turns, "toolu_", "sig")
}
