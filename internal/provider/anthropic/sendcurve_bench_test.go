package anthropic

import (
	"net/http"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/anthropictest"
	"github.com/pi-go/pi-go/internal/provider/curvetest"
)

// BenchmarkSendCurve is a long session's next request through Stream (curvetest.BenchmarkSend).
func BenchmarkSendCurve(b *testing.B) {
	m, ok := provider.BuiltinModel("anthropic", "claude-sonnet-4-5")
	if !ok {
		b.Fatal("no claude-sonnet-4-5")
	}
	m.BaseURL = "http://127.0.0.1:1"
	curvetest.BenchmarkSend(b,
		func(turns int) *provider.Request {
			return &provider.Request{Model: &m, SystemPrompt: "You are pi.", Messages: curveTranscript(&m, turns),
				Options: provider.StreamOptions{APIKey: "sk-ant-test"}}
		},
		func(t http.RoundTripper) curvetest.Streamer {
			return New(Config{HTTPClient: &http.Client{Transport: t}}).Stream
		},
		anthropictest.SSE(anthropictest.Answer{Blocks: []anthropictest.Block{anthropictest.Text("ok")}}.Events()...))
}
