package google

import (
	"net/http"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/curvetest"
	gt "github.com/pi-go/pi-go/internal/provider/google/googletest"
)

// BenchmarkSendCurve is a long session's next request through Stream (curvetest.BenchmarkSend).
func BenchmarkSendCurve(b *testing.B) {
	curvetest.BenchmarkSend(b,
		func(turns int) *provider.Request {
			m := gemini("gemini-2.5-pro")
			m.BaseURL = "http://127.0.0.1:1/v1beta"
			return &provider.Request{Model: m, SystemPrompt: "You are pi.", Messages: curveTranscript(m, turns),
				Options: provider.StreamOptions{APIKey: "k"}}
		},
		func(t http.RoundTripper) curvetest.Streamer {
			return New(Config{HTTPClient: &http.Client{Transport: t}}).Stream
		},
		gt.NewStream("r", "m", 5).Finish("STOP", gt.Usage{Candidates: 1}, gt.Text("ok", "")))
}
