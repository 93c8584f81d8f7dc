package curvetest

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
)

// Streamer is a provider's Stream.
type Streamer func(context.Context, *provider.Request, func(*provider.AssistantEvent)) *provider.AssistantMessage

// BenchmarkSend is the whole of a long session's next request through a provider's Stream, the SDK's
// part included, at 100, 1,000 and 5,000 turns: request builds the request of a transcript of turns
// turns, and newProvider a provider sending through the given transport, which reads the body into a
// buffer it throws away (copying it once, as a connection's buffer does) and answers with answer, a
// short event stream. The previous request (the transcript up to the last tool result) goes through
// the same provider first. cpu-ms/op is process CPU time.
func BenchmarkSend(b *testing.B, request func(turns int) *provider.Request, newProvider func(http.RoundTripper) Streamer, answer string) {
	for _, turns := range []int{100, 1000, 5000} {
		req := request(turns)
		prev := *req
		prev.Messages = req.Messages[:len(req.Messages)-1]
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			stream := newProvider(discardTransport{answer: answer})
			send := func(req *provider.Request) {
				if msg := stream(context.Background(), req, nil); msg.StopReason == provider.StopReasonError {
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

// discardTransport reads a request's body into a buffer it throws away and answers with answer.
type discardTransport struct{ answer string }

func (t discardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
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
		Body: io.NopCloser(strings.NewReader(t.answer)), Request: req}, nil
}
