package google

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	gt "github.com/pi-go/pi-go/internal/provider/google/googletest"
)

// memoryTransport answers every request with body, in memory: the fuzz target and the benchmark
// measure the SDK's stream decoder and ours, not the network.
type memoryTransport struct{ body string }

func (t memoryTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(t.body)), Request: r}, nil
}

func memoryProvider(body string) *Provider {
	return New(Config{HTTPClient: &http.Client{Transport: memoryTransport{body}}})
}

// The stream decoder never panics, and whatever the bytes, the message it leaves is one pi can store:
// valid JSON, every tool call with object arguments and no streaming bookkeeping.
func FuzzStream(f *testing.F) {
	for _, s := range gt.Pi16Answers() {
		f.Add(s)
	}
	f.Add(gt.NewStream("r", "m", 5).Chunk(gt.Thought("a", "c2ln"), gt.Text("b", "")).Raw("data: {\"error\":{\"code\":500}}\r\n\r\n").Cut())
	f.Add("data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"x\",\"args\":[1]}}]}}]}\n\n")
	m := &provider.Model{ID: "gemini-3-pro-preview", API: provider.APIGoogleGenerativeAI, Provider: "google", BaseURL: "http://127.0.0.1:1/v1beta",
		Cost: provider.ModelCost{Input: 1}}
	f.Fuzz(func(t *testing.T, body string) {
		req := &provider.Request{Model: m, Messages: []provider.Message{provider.NewUserMessage("hi")}, Options: provider.StreamOptions{APIKey: "k"}}
		final := memoryProvider(body).Stream(context.Background(), req, func(*provider.AssistantEvent) {})
		out, err := json.Marshal(final)
		if err != nil || !json.Valid(out) {
			t.Fatalf("final message does not marshal: %v", err)
		}
		for _, c := range final.Content {
			if c.Type == provider.ContentToolCall && (c.PartialArgs != nil || !json.Valid(c.Arguments) || c.Arguments[0] != '{') {
				t.Fatalf("tool call %+v", c)
			}
		}
	})
}
