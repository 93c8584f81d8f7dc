package anthropic

import (
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/curvetest"
)

// BenchmarkRequestCurve is what building one request body of a long session costs at 100, 1,000 and
// 5,000 turns of about 8 KB each (issue 22's curve, as openai's BenchmarkRequestCurve): "prepare"
// writes the whole body from scratch, as for the first request after a resume; "next" is a session's
// next request: the previous one ended at the last turn's tool result (with the cache breakpoint on
// it), this one has the answer after it too, and the provider's body cache holds the previous body.
func BenchmarkRequestCurve(b *testing.B) {
	m, ok := provider.BuiltinModel("anthropic", "claude-sonnet-4-5")
	if !ok {
		b.Fatal("no claude-sonnet-4-5")
	}
	curvetest.BenchmarkBuild(b, func(turns int) *provider.Request {
		return &provider.Request{Model: &m, SystemPrompt: "You are pi.", Messages: curveTranscript(&m, turns)}
	}, func(cached bool) func(*provider.Request) int {
		var cache *bodyCache
		if cached {
			cache = new(bodyCache)
		}
		return func(req *provider.Request) int {
			r, err := buildCachedRequest(req, CacheShort, cache.Take())
			if err != nil {
				b.Fatal(err)
			}
			cache.Keep(r.state)
			return len(r.body)
		}
	})
}

// curveTranscript is issue 22's curve transcript with this API's call ids and signatures.
func curveTranscript(m *provider.Model, turns int) []provider.Message {
	return curvetest.Transcript(m, turns, "toolu_", "sig")
}
