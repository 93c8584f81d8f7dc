package google

import (
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/curvetest"
)

// BenchmarkRequestCurve is what building one request of a long session costs at 100, 1,000 and
// 5,000 turns of about 8 KB each (issue 22's curve, as openai's BenchmarkRequestCurve): the SDK's
// config and the encoded contents. "prepare" encodes the whole transcript, as for the first request
// after a resume; "next" is a session's next request: the previous one ended at the last turn's tool
// result, this one has the answer after it too, and the provider's contents cache holds the previous
// one's contents. The SDK writing the small rest of the body around one placeholder content is not
// included.
func BenchmarkRequestCurve(b *testing.B) {
	m := gemini("gemini-2.5-pro")
	curvetest.BenchmarkBuild(b, func(turns int) *provider.Request {
		return &provider.Request{Model: m, SystemPrompt: "You are pi.", Messages: curveTranscript(m, turns)}
	}, func(cached bool) func(*provider.Request) int {
		// As in a session, the contents go to a new spill file for a request from scratch.
		cache := new(contentsCache)
		return func(req *provider.Request) int {
			if _, err := buildConfig(req); err != nil {
				b.Fatal(err)
			}
			if !cached {
				cache = new(contentsCache)
			}
			st, err := cache.Take().encode(req, provider.NewSpillFile)
			if err != nil {
				b.Fatal(err)
			}
			cs, err := st.body()
			if err != nil {
				b.Fatal(err)
			}
			cache.Keep(st)
			return int(newRequestBody(cs, nil).size)
		}
	})
}

// curveTranscript is issue 22's curve transcript with this API's call ids and signatures.
func curveTranscript(m *provider.Model, turns int) []provider.Message {
	return curvetest.Transcript(m, turns, "call_", "c2ln")
}
