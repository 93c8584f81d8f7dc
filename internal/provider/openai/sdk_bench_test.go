package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// BenchmarkGoOpenAIRecvInMemory reads the body of BenchmarkStreamInMemory (200,000 one-character
// deltas from an in-memory RoundTripper) through go-openai's CreateChatCompletionStream and Recv: the
// figure the package doc sets against this package's own reader (cpu-ns/delta of the same body).
func BenchmarkGoOpenAIRecvInMemory(b *testing.B) {
	body := openaitest.LongText("test-model", benchDeltas, "a")
	cfg := goopenai.DefaultConfig(testKey)
	cfg.BaseURL = "http://memory/v1"
	cfg.HTTPClient = &http.Client{Transport: memoryTransport{body}}
	client := goopenai.NewClientWithConfig(cfg)
	req := goopenai.ChatCompletionRequest{Model: "test-model", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}
	cpuBefore, cpuOK := cputime.Process()
	b.ReportAllocs()
	for b.Loop() {
		stream, err := client.CreateChatCompletionStream(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		deltas := 0
		for {
			chunk, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if len(chunk.Choices) > 0 && chunk.Choices[0].Delta.Content != "" {
				deltas++
			}
		}
		stream.Close()
		if deltas != benchDeltas {
			b.Fatalf("%d deltas, want %d", deltas, benchDeltas)
		}
	}
	cpuAfter, _ := cputime.Process()
	total := float64(b.N) * benchDeltas
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/delta")
	if cpuOK {
		b.ReportMetric(float64((cpuAfter-cpuBefore).Nanoseconds())/total, "cpu-ns/delta")
	}
}
