package demo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// benchRequests are a first answer (long text), a tool call, and an answer from a tool result.
var benchRequests = map[string]*chat{
	"intro": newChat(defaultTools()...).user("help"),
	"call":  newChat(defaultTools()...).user("read README.md and go.mod"),
	"result": newChat(defaultTools()...).user("run `ls -la`").call("", "c", "bash", `{"command":"ls -la"}`).
		result("c", "total 8\n-rw-r--r-- 1 u u 59 Nov 30 01:04 README.md\n-rw-r--r-- 1 u u 17 Nov 30 01:04 go.mod\n"),
}

// BenchmarkTransport measures the whole demo at full speed: decoding the request, planning the
// answer, rendering the SSE chunks and reading them back as raw bytes.
func BenchmarkTransport(b *testing.B) {
	for _, name := range []string{"intro", "call", "result"} {
		body := benchRequests[name].body()
		b.Run(name, func(b *testing.B) {
			rt := NewTransport(Options{FullSpeed: true})
			chunks := parseSSE(b, post(b, body)).Chunks + 2 // + usage and [DONE]
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, BaseURL+"/chat/completions", bytes.NewReader(body))
				resp, err := rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chunks), "ns/chunk")
			b.ReportMetric(float64(chunks), "chunks/op")
		})
	}
}

// BenchmarkGoOpenAIRecv is the same long answer read through go-openai's stream decoder.
func BenchmarkGoOpenAIRecv(b *testing.B) {
	client := goOpenAIClient(Options{FullSpeed: true})
	req := openai.ChatCompletionRequest{Model: ModelID, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "help"}},
		StreamOptions: &openai.StreamOptions{IncludeUsage: true}}
	chunks := 0
	b.ReportAllocs()
	for b.Loop() {
		stream, err := client.CreateChatCompletionStream(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			chunks++
		}
		stream.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(chunks), "ns/chunk")
}
