package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// waits records the retry waits of a provider instead of sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func retryingProvider(t *testing.T, cfg Config) (*Provider, *waits) {
	t.Helper()
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = SDKMaxRetries
	}
	p := newTestProvider(t, cfg)
	w := &waits{}
	p.sleep = w.sleep
	return p, w
}

func withHeader(r openaitest.Response, k, v string) openaitest.Response {
	if r.Header == nil {
		r.Header = http.Header{}
	}
	r.Header.Set(k, v)
	return r
}

// Like pi's OpenAI SDK: a request that failed before its answer began is sent again twice (0.5 s, then
// 1 s, less up to 25% jitter, or what the server asks for), only for statuses worth retrying, and the
// agent sees an error only when the retries are used up.
func TestSDKRetriesBeforeTheAnswerBegins(t *testing.T) {
	srv := startServer(t)
	c := chunks()
	ok := openaitest.TextReply("test-model", "fine")
	tests := []struct {
		name      string
		responses []openaitest.Response
		requests  int
		stop      provider.StopReason
		errText   string
		waits     []time.Duration // exact waits; nil: the default backoff is checked instead
	}{
		{name: "500 then 503 then success", responses: []openaitest.Response{
			openaitest.ErrorResponse(500, "boom"), openaitest.ErrorResponse(503, "busy"), ok},
			requests: 3, stop: provider.StopReasonStop},
		{name: "three 500s", responses: []openaitest.Response{
			openaitest.ErrorResponse(500, "one"), openaitest.ErrorResponse(500, "two"), openaitest.ErrorResponse(502, "three")},
			requests: 3, stop: provider.StopReasonError, errText: "502 three"},
		{name: "429 with Retry-After seconds", responses: []openaitest.Response{
			withHeader(openaitest.ErrorResponse(429, "slow down"), "Retry-After", "2"), ok},
			requests: 2, stop: provider.StopReasonStop, waits: []time.Duration{2 * time.Second}},
		{name: "retry-after-ms wins", responses: []openaitest.Response{
			withHeader(withHeader(openaitest.ErrorResponse(429, "slow down"), "Retry-After", "9"), "retry-after-ms", "150"), ok},
			requests: 2, stop: provider.StopReasonStop, waits: []time.Duration{150 * time.Millisecond}},
		{name: "408 and 409", responses: []openaitest.Response{
			openaitest.ErrorResponse(408, "timeout"), openaitest.ErrorResponse(409, "lock"), ok},
			requests: 3, stop: provider.StopReasonStop},
		{name: "401 is not retried", responses: []openaitest.Response{openaitest.ErrorResponse(401, "bad key")},
			requests: 1, stop: provider.StopReasonError, errText: "401 bad key (POST %URL%/chat/completions)"},
		{name: "x-should-retry false", responses: []openaitest.Response{
			withHeader(openaitest.ErrorResponse(500, "final"), "x-should-retry", "false")},
			requests: 1, stop: provider.StopReasonError, errText: "500 final"},
		{name: "x-should-retry true", responses: []openaitest.Response{
			withHeader(openaitest.ErrorResponse(400, "try again"), "x-should-retry", "true"), ok},
			requests: 2, stop: provider.StopReasonStop},
		{name: "a wait over a minute is left to the agent", responses: []openaitest.Response{
			withHeader(openaitest.ErrorResponse(429, "come back later"), "Retry-After", "600")},
			requests: 1, stop: provider.StopReasonError, errText: "429 come back later (retry after 10m0s)"},
		{name: "a stream cut after it began is not retried", responses: []openaitest.Response{
			{Events: []string{c.Role(), c.Text("par")}, End: openaitest.EndReset}},
			requests: 1, stop: provider.StopReasonError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, w := retryingProvider(t, Config{})
			before := len(srv.Requests())
			srv.Enqueue(tt.responses...)
			msg, _ := run(t, p, context.Background(), simpleRequest(testModel(srv.URL)))
			if n := len(srv.Requests()) - before; n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			want := strings.ReplaceAll(tt.errText, "%URL%", srv.URL)
			if msg.StopReason != tt.stop || (want != "" && msg.ErrorMessage != want) {
				t.Errorf("got %s %q, want %s %q", msg.StopReason, msg.ErrorMessage, tt.stop, want)
			}
			if len(w.d) != tt.requests-1 {
				t.Fatalf("%d waits for %d requests", len(w.d), tt.requests)
			}
			for i, d := range w.d {
				if tt.waits != nil {
					if d != tt.waits[i] {
						t.Errorf("wait %d = %v, want %v", i, d, tt.waits[i])
					}
					continue
				}
				base := time.Duration(500<<i) * time.Millisecond
				if d > base || d < base*3/4 {
					t.Errorf("wait %d = %v, want in [%v, %v]", i, d, base*3/4, base)
				}
			}
			if srv.Pending() != 0 {
				t.Errorf("%d scripted answers left", srv.Pending())
			}
		})
	}
}

// refusingTransport fails every request as a refused connection and counts them.
type refusingTransport struct {
	mu sync.Mutex
	n  int
}

func (r *refusingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.n++
	r.mu.Unlock()
	return nil, errors.New("dial tcp 127.0.0.1:9: connect: connection refused")
}

func TestSDKRetriesAFailedConnection(t *testing.T) {
	rt := &refusingTransport{}
	p, w := retryingProvider(t, Config{HTTPClient: &http.Client{Transport: rt}})
	msg, _ := run(t, p, context.Background(), simpleRequest(testModel("http://127.0.0.1:9/v1")))
	if rt.n != 3 || len(w.d) != 2 {
		t.Errorf("%d attempts and %d waits, want 3 and 2", rt.n, len(w.d))
	}
	if msg.StopReason != provider.StopReasonError || !provider.IsRetryable(msg) {
		t.Errorf("got %s %q, want a retryable error", msg.StopReason, msg.ErrorMessage)
	}
}

// An abort during the wait ends the call at once as aborted, with no further request.
func TestAbortDuringAnSDKRetryWait(t *testing.T) {
	srv := startServer(t)
	p := newTestProvider(t, Config{MaxRetries: SDKMaxRetries})
	ctx, cancel := context.WithCancel(context.Background())
	waiting := make(chan struct{})
	p.sleep = func(c context.Context, d time.Duration) error {
		close(waiting)
		<-c.Done()
		return c.Err()
	}
	srv.Enqueue(openaitest.ErrorResponse(500, "boom"), openaitest.TextReply("test-model", "never"))
	done := make(chan *provider.AssistantMessage)
	go func() {
		msg, _ := run(t, p, ctx, simpleRequest(testModel(srv.URL)))
		done <- msg
	}()
	<-waiting
	cancel()
	msg := <-done
	if msg.StopReason != provider.StopReasonAborted || msg.ErrorMessage != "Request was aborted" {
		t.Errorf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// Without MaxRetries (the zero Config) a request is sent once.
func TestNoSDKRetriesByDefault(t *testing.T) {
	srv := startServer(t)
	p := newTestProvider(t, Config{})
	srv.Enqueue(openaitest.ErrorResponse(500, "boom"))
	msg, _ := run(t, p, context.Background(), simpleRequest(testModel(srv.URL)))
	if n := len(srv.Requests()); n != 1 || msg.ErrorMessage != "500 boom" {
		t.Errorf("%d requests, message %q", n, msg.ErrorMessage)
	}
}
