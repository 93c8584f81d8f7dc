package google

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/curvetest"
)

// BenchmarkRequestCurve is what building one request of a long session costs at 100, 1,000 and
// 5,000 turns of about 8 KB each (issue 22's curve, as openai's BenchmarkRequestCurve): the SDK's
// config and the encoded contents. "prepare" encodes the whole transcript, as for the first request
// after a resume; "next" is a session's next request: the previous one ended at the last turn's tool
// result, this one has the answer after it too, and the provider's contents cache holds the previous
// one's contents. The SDK writing the small rest of the body around one placeholder content is not
// included. cpu-ms/op is process CPU time.
func BenchmarkRequestCurve(b *testing.B) {
	m := gemini("gemini-2.5-pro")
	for _, turns := range []int{100, 1000, 5000} {
		req := &provider.Request{Model: m, SystemPrompt: "You are pi.", Messages: curveTranscript(m, turns)}
		prev := *req
		prev.Messages = req.Messages[:len(req.Messages)-1]
		for _, step := range []string{"prepare", "next"} {
			b.Run(fmt.Sprintf("%s/turns=%d", step, turns), func(b *testing.B) {
				var cache *contentsCache
				if step == "next" {
					cache = new(contentsCache)
				}
				build := func(req *provider.Request) *requestBody {
					if _, err := buildConfig(req); err != nil {
						b.Fatal(err)
					}
					st, err := cache.Take().encode(req)
					if err != nil {
						b.Fatal(err)
					}
					cache.Keep(st)
					return newRequestBody(slices.Clone(st.out), nil)
				}
				b.ReportAllocs()
				var cpu time.Duration
				var size int64
				for b.Loop() {
					if cache != nil {
						b.StopTimer()
						build(&prev)
						b.StartTimer()
					}
					cpu0, _ := cputime.Process()
					size = build(req).size
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
	return curvetest.Transcript(m, turns, "call_", "c2ln")
}
