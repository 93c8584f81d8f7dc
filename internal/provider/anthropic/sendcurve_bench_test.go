package anthropic

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/anthropictest"
)

// BenchmarkSendCurve is the whole of a long session's next request through Stream, the SDK's part
// included, at 100, 1,000 and 5,000 turns: the body is read by a transport that throws it away (copying it once, as a connection's buffer does) and
// answers with a short stream; the previous request (the transcript up to the last tool result) went
// through the same provider first. cpu-ms/op is process CPU time.
func BenchmarkSendCurve(b *testing.B) {
	m, ok := provider.BuiltinModel("anthropic", "claude-sonnet-4-5")
	if !ok {
		b.Fatal("no claude-sonnet-4-5")
	}
	m.BaseURL = "http://127.0.0.1:1"
	for _, turns := range []int{100, 1000, 5000} {
		req := &provider.Request{Model: &m, SystemPrompt: "You are pi.", Messages: curveTranscript(&m, turns),
			Options: provider.StreamOptions{APIKey: "sk-ant-test"}}
		prev := *req
		prev.Messages = req.Messages[:len(req.Messages)-1]
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			p := New(Config{HTTPClient: &http.Client{Transport: discardTransport{}}})
			send := func(req *provider.Request) {
				if msg := p.Stream(context.Background(), req, nil); msg.StopReason == provider.StopReasonError {
					b.Fatal(msg.ErrorMessage)
				}
			}
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				send(&prev)
				b.StartTimer()
				cpu0, _ := cputime.Process()
				send(req)
				cpu1, _ := cputime.Process()
				cpu += cpu1 - cpu0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// discardTransport reads a request's body into a buffer it throws away and answers with a short stream.
type discardTransport struct{}

var shortAnswer = anthropictest.SSE(anthropictest.Answer{Blocks: []anthropictest.Block{anthropictest.Text("ok")}}.Events()...)

func (discardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// Read as a transport does, through a buffer of its own: the body is copied once, as it is into
	// a connection's buffer.
	buf := make([]byte, 32<<10)
	for {
		if _, err := req.Body.Read(buf); err != nil {
			break
		}
	}
	req.Body.Close()
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(shortAnswer)), Request: req}, nil
}
