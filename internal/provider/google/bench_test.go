package google

import (
	"context"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	gt "github.com/pi-go/pi-go/internal/provider/google/googletest"
)

// BenchmarkStreamInMemory is the cost per text delta of a Gemini stream, one delta per chunk (each
// chunk a whole GenerateContentResponse with usage, as Gemini sends them): the SDK's SSE reader and
// converters, the reader here and the block builder with its events (one op = one delta).
func BenchmarkStreamInMemory(b *testing.B) {
	const n = 2000
	s := gt.NewStream("r", "gemini-2.5-flash", 1234)
	for i := 0; i < n; i++ {
		s.Chunk(gt.Text("x", ""))
	}
	body := s.Finish("STOP", gt.Usage{Candidates: n})
	m := &provider.Model{ID: "gemini-2.5-flash", API: provider.APIGoogleGenerativeAI, Provider: "google", BaseURL: "http://127.0.0.1:1/v1beta"}
	p := memoryProvider(body)
	req := &provider.Request{Model: m, Messages: []provider.Message{provider.NewUserMessage("hi")}, Options: provider.StreamOptions{APIKey: "k"}}
	b.ReportAllocs()
	b.SetBytes(int64(len(body) / n))
	b.ResetTimer()
	for done := 0; done < b.N; done += n {
		if msg := p.Stream(context.Background(), req, func(*provider.AssistantEvent) {}); msg.StopReason != provider.StopReasonStop {
			b.Fatal(msg.ErrorMessage)
		}
	}
}
