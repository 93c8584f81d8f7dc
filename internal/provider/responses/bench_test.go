package responses

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/pi-go/pi-go/internal/provider"
)

// deltaStream is one message of n one-character output_text deltas, as OpenAI sends them.
func deltaStream(n int) []byte {
	var b strings.Builder
	b.WriteString("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":0,\"output_index\":0,\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"in_progress\",\"content\":[],\"role\":\"assistant\"}}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":%d,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"x\",\"logprobs\":[],\"obfuscation\":\"ab12cd\"}\n\n", i+1)
	}
	return []byte(b.String())
}

// BenchmarkStreamInMemory is the cost per text delta of the stream reader: SSE framing, decoding and
// the block builder with its events (one op = one delta).
func BenchmarkStreamInMemory(b *testing.B) {
	const n = 10000
	body := deltaStream(n)
	m := &provider.Model{ID: "m", API: provider.APIOpenAIResponses, Provider: "p"}
	b.ReportAllocs()
	b.SetBytes(int64(len(body) / n))
	b.ResetTimer()
	for done := 0; done < b.N; done += n {
		bl := provider.NewBlockBuilder(m, func(*provider.AssistantEvent) {})
		p := newProcessor(bl, m)
		if _, err := p.read(eventStream(body), func() {}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSDKUnionInMemory is what the SDK's own typed stream costs per delta (framing and decoding
// into its union of every event type), for comparison: why events are decoded here.
func BenchmarkSDKUnionInMemory(b *testing.B) {
	const n = 10000
	body := deltaStream(n)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += n {
		s := ssestream.NewStream[responses.ResponseStreamEventUnion](ssestream.NewDecoder(eventStream(body)), nil)
		for s.Next() {
			_ = s.Current().Delta
		}
		if s.Err() != nil {
			b.Fatal(s.Err())
		}
	}
}
