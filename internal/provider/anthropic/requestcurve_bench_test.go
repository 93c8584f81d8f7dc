package anthropic

import (
	"fmt"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/curvetest"
)

// BenchmarkRequestCurve is what building one request of a long session costs at 100, 1,000 and
// 5,000 turns of about 8 KB each (issue 22's curve, as openai's BenchmarkRequestCurve): the whole
// body is written into memory before it is sent. cpu-ms/op is process CPU time.
func BenchmarkRequestCurve(b *testing.B) {
	m, ok := provider.BuiltinModel("anthropic", "claude-sonnet-4-5")
	if !ok {
		b.Fatal("no claude-sonnet-4-5")
	}
	for _, turns := range []int{100, 1000, 5000} {
		req := &provider.Request{Model: &m, SystemPrompt: "You are pi.", Messages: curveTranscript(&m, turns)}
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			b.ReportAllocs()
			var cpu time.Duration
			var size int
			for b.Loop() {
				cpu0, _ := cputime.Process()
				r, err := buildRequest(req, CacheShort)
				if err != nil {
					b.Fatal(err)
				}
				cpu1, _ := cputime.Process()
				cpu += cpu1 - cpu0
				size = len(r.body)
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(size)/1e6, "body-MB")
		})
	}
}

// curveTranscript is issue 22's curve transcript with this API's call ids and signatures.
func curveTranscript(m *provider.Model, turns int) []provider.Message {
	return curvetest.Transcript(m, turns, "toolu_", "sig")
}
