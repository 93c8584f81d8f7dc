package openai

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

func TestHTTPErrorStatuses(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		body       string
		retryAfter string
		header     http.Header
		// maxRetryDelay is the request's MaxRetryDelay.
		maxRetryDelay time.Duration
		want          string
		retryable     bool
		overflow      bool
	}{
		{name: "400 OpenAI overflow", status: 400,
			body:     `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`,
			want:     "400 Your input exceeds the context window of this model. Please adjust your input and try again.",
			overflow: true},
		{name: "400 no body", status: 400, want: "400 status code (no body)", overflow: true},
		{name: "401 echoes the key", status: 401,
			body: `{"error":{"message":"Incorrect API key provided: ` + testKey + `. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			want: "401 Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys. (POST %URL%)"},
		{name: "403 plain text", status: 403, body: "Forbidden\n", want: "403 Forbidden (POST %URL%)"},
		{name: "404 Ollama model", status: 404, body: `{"error":"model \"qwen9\" not found, try pulling it first"}`,
			want: `404 model "qwen9" not found, try pulling it first (POST %URL%)`},
		{name: "404 HTML", status: 404, body: "<html>\n<head><title>404 Not Found</title></head>\n<body>nginx</body>\n</html>\n",
			want: "404 <html> <head><title>404 Not Found</title></head> <body>nginx</body> </html> (POST %URL%)"},
		{name: "400 vLLM", status: 400,
			body:     `{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens in the messages.","type":"BadRequestError","param":null,"code":400}`,
			want:     "400 This model's maximum context length is 32768 tokens. However, you requested 40000 tokens in the messages.",
			overflow: true},
		{name: "400 invalid request", status: 400, body: `{"error":{"message":"Invalid value for 'timeout'","type":"invalid_request_error"}}`,
			want: "400 Invalid value for 'timeout' (POST %URL%)"},
		{name: "422 FastAPI", status: 422, body: `{"detail":"Unsupported parameter: store"}`, want: "422 Unsupported parameter: store"},
		{name: "429 retry after", status: 429, retryAfter: "20",
			body:      `{"error":{"message":"Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			want:      "429 Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. (retry after 20s)",
			retryable: true},
		{name: "429 retry after more than the limit", status: 429, retryAfter: "120", maxRetryDelay: time.Minute,
			body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
			want: "429 Rate limit reached (retry after 2m0s). Server asked to retry after 120 s (more than retry.maxAgentDelayMs 60 s); not retrying"},
		{name: "429 retry after within the limit", status: 429, retryAfter: "60", maxRetryDelay: time.Minute,
			body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
			want: "429 Rate limit reached (retry after 1m0s)", retryable: true},
		{name: "429 retry-after-ms", status: 429, header: http.Header{"Retry-After-Ms": {"90000"}}, maxRetryDelay: time.Minute,
			want: "429 status code (no body) (retry after 1m30s). Server asked to retry after 90 s (more than retry.maxAgentDelayMs 60 s); not retrying"},
		{name: "500", status: 500, body: `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`,
			want: "500 The server had an error while processing your request. Sorry about that!", retryable: true},
		{name: "502 no body", status: 502, want: "502 status code (no body)", retryable: true},
		{name: "503 OpenRouter raw", status: 503,
			body:      `{"error":{"message":"Provider returned error","code":503,"metadata":{"raw":"upstream overloaded","provider_name":"Together"}}}`,
			want:      "503 Provider returned error\nupstream overloaded",
			retryable: true},
		{name: "529 overloaded", status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			want: "529 Overloaded", retryable: true},
	}
	srv := startServer(t)
	p := newTestProvider(t, Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Enqueue(openaitest.Response{Status: tt.status, Body: tt.body, RetryAfter: tt.retryAfter, Header: tt.header})
			req := simpleRequest(testModel(srv.URL))
			req.Options.MaxRetryDelay = tt.maxRetryDelay
			msg, events := run(t, p, context.Background(), req)
			if msg.StopReason != provider.StopReasonError {
				t.Fatalf("stop reason %s", msg.StopReason)
			}
			if want := strings.ReplaceAll(tt.want, "%URL%", srv.URL+"/chat/completions"); msg.ErrorMessage != want {
				t.Errorf("error message\n got: %q\nwant: %q", msg.ErrorMessage, want)
			}
			if len(events) != 1 {
				t.Errorf("events %s, want only error (no start before a response)", eventTypes(events))
			}
			if got := provider.IsRetryable(msg); got != tt.retryable {
				t.Errorf("IsRetryable = %v, want %v", got, tt.retryable)
			}
			if got := provider.IsContextOverflow(msg, 0); got != tt.overflow {
				t.Errorf("IsContextOverflow = %v, want %v", got, tt.overflow)
			}
		})
	}
}

func TestConnectionRefusedNamesTheURL(t *testing.T) {
	t.Run("on this machine: not retried", func(t *testing.T) {
		base, addr := openaitest.ClosedURL(t)
		p := newTestProvider(t, Config{})
		msg, events := run(t, p, context.Background(), simpleRequest(testModel(base)))
		want := "Connection refused by " + base + "/chat/completions: nothing is listening on " + addr +
			" (is the server running, is the base URL right?); not retrying"
		if msg.StopReason != provider.StopReasonError || msg.ErrorMessage != want {
			t.Fatalf("got %s: %q\nwant %q", msg.StopReason, msg.ErrorMessage, want)
		}
		if eventTypes(events) != "error" {
			t.Fatalf("events %s", eventTypes(events))
		}
		if provider.IsRetryable(msg) {
			t.Fatal("a port nobody listens on does not open by retrying within seconds")
		}
	})
	t.Run("elsewhere: retried", func(t *testing.T) {
		// A remote server refusing connections may be restarting.
		client := &http.Client{Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				return nil, &net.OpError{Op: "dial", Net: network, Addr: &net.TCPAddr{IP: net.ParseIP("203.0.113.7"), Port: 443},
					Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
			},
		}}
		p := newTestProvider(t, Config{HTTPClient: client})
		msg, _ := run(t, p, context.Background(), simpleRequest(testModel("https://api.example.com/v1")))
		if !strings.HasPrefix(msg.ErrorMessage, "Connection refused by https://api.example.com/v1/chat/completions: is the server running?") ||
			!provider.IsRetryable(msg) {
			t.Fatalf("got %q, retryable %v", msg.ErrorMessage, provider.IsRetryable(msg))
		}
	})
}

func TestDNSFailure(t *testing.T) {
	resolving := func(dnsErr *net.DNSError) *http.Client {
		return &http.Client{Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				host, _, _ := net.SplitHostPort(addr)
				dnsErr.Name = host
				return nil, &net.OpError{Op: "dial", Net: network, Err: dnsErr}
			},
		}}
	}
	p := newTestProvider(t, Config{HTTPClient: resolving(&net.DNSError{Err: "no such host", IsNotFound: true})})
	msg, _ := run(t, p, context.Background(), simpleRequest(testModel("https://api.example.invalid/v1")))
	want := `Cannot resolve host "api.example.invalid" for https://api.example.invalid/v1/chat/completions: no such host (is the base URL right?); not retrying`
	if msg.ErrorMessage != want || provider.IsRetryable(msg) {
		t.Fatalf("got %q, retryable %v\nwant %q", msg.ErrorMessage, provider.IsRetryable(msg), want)
	}
	// A resolver that did not answer may answer on the next try.
	p = newTestProvider(t, Config{HTTPClient: resolving(&net.DNSError{Err: "i/o timeout", IsTimeout: true, IsTemporary: true})})
	msg, _ = run(t, p, context.Background(), simpleRequest(testModel("https://api.example.com/v1")))
	if !strings.HasPrefix(msg.ErrorMessage, `Connection error: cannot resolve host "api.example.com" for https://api.example.com/v1/chat/completions`) ||
		!provider.IsRetryable(msg) {
		t.Fatalf("got %q, retryable %v", msg.ErrorMessage, provider.IsRetryable(msg))
	}
}

func TestTLSErrorIsNotRetryable(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()
	p := newTestProvider(t, Config{})
	msg, _ := run(t, p, context.Background(), simpleRequest(testModel(ts.URL+"/v1")))
	if !strings.HasPrefix(msg.ErrorMessage, "TLS error talking to "+ts.URL+"/v1/chat/completions: ") ||
		!strings.Contains(msg.ErrorMessage, "certificate") {
		t.Fatalf("got %q", msg.ErrorMessage)
	}
	if provider.IsRetryable(msg) {
		t.Fatalf("a certificate problem does not go away by retrying: %q", msg.ErrorMessage)
	}
}

func TestBaseURLWithCredentialsIsRedacted(t *testing.T) {
	_, addr := openaitest.ClosedURL(t)
	p := newTestProvider(t, Config{})
	msg, _ := run(t, p, context.Background(), simpleRequest(testModel("http://user:hunter2@"+addr+"/v1")))
	if strings.Contains(msg.ErrorMessage, "hunter2") || !strings.Contains(msg.ErrorMessage, "user:xxxxx@") {
		t.Fatalf("got %q", msg.ErrorMessage)
	}
}

func TestInvalidBaseURL(t *testing.T) {
	p := newTestProvider(t, Config{})
	msg, _ := run(t, p, context.Background(), simpleRequest(testModel("localhost:11434/v1")))
	if msg.StopReason != provider.StopReasonError || !strings.Contains(msg.ErrorMessage, "localhost:11434/v1/chat/completions") {
		t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
	msg, _ = run(t, p, context.Background(), simpleRequest(testModel("")))
	if msg.ErrorMessage != "Model test/test-model has no base URL" {
		t.Fatalf("got %q", msg.ErrorMessage)
	}
}

// chunks is shorthand for the test model's chunk writer.
func chunks() *openaitest.Chunks { return openaitest.NewChunks("test-model") }

func TestStreamFailures(t *testing.T) {
	c := chunks()
	tests := []struct {
		name      string
		events    []string
		end       openaitest.End
		stop      provider.StopReason
		want      string // error message prefix
		text      string // content kept
		sequence  string
		retryable bool
	}{
		{name: "error object mid-stream", events: openaitest.Transcript(t, "openrouter-error.sse").Events,
			stop: provider.StopReasonError, text: "Here is the first part",
			want:      "Provider returned error\n{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
			sequence:  "start text_start:0 text_delta:0 text_delta:0 text_delta:0 error",
			retryable: true},
		{name: "malformed chunk", events: []string{c.Role(), c.Text("Hi"), "data: {\"id\":\"x\",\"choices\":[{\"delta\":{\"content\":\"oops\"}}\n\n", c.Text("more"), openaitest.Done()},
			stop: provider.StopReasonError, text: "Hi",
			want:     `Malformed JSON in stream chunk 3 (unexpected end of JSON input): "{\"id\":\"x\",\"choices\":[{\"delta\":{\"content\":\"oops\"}}"`,
			sequence: "start text_start:0 text_delta:0 error"},
		{name: "ends without finish or done", events: []string{c.Role(), c.Text("Hal")},
			stop: provider.StopReasonError, text: "Hal",
			want:      "Stream ended without a finish reason or [DONE]: the server closed the connection early",
			sequence:  "start text_start:0 text_delta:0 error",
			retryable: true},
		{name: "finish without done", events: []string{c.Role(), c.Text("Done."), c.Finish("stop")},
			stop: provider.StopReasonStop, text: "Done.", sequence: "start text_start:0 text_delta:0 text_end:0 done"},
		{name: "done without finish", events: []string{c.Role(), c.Text("Done."), openaitest.Done()},
			stop: provider.StopReasonStop, text: "Done.", sequence: "start text_start:0 text_delta:0 text_end:0 done"},
		{name: "content filter", events: []string{c.Role(), c.Text("Some"), c.Finish("content_filter"), openaitest.Done()},
			stop: provider.StopReasonError, text: "Some", want: "Provider finish_reason: content_filter",
			sequence: "start text_start:0 text_delta:0 text_end:0 error"},
		{name: "unknown finish reason", events: []string{c.Role(), c.Text("x"), c.Finish("eos_token"), openaitest.Done()},
			stop: provider.StopReasonError, text: "x", want: "Provider finish_reason: eos_token",
			sequence: "start text_start:0 text_delta:0 text_end:0 error"},
		{name: "length", events: []string{c.Role(), c.Text("cut"), c.Finish("length"), openaitest.Done()},
			stop: provider.StopReasonLength, text: "cut", sequence: "start text_start:0 text_delta:0 text_end:0 done"},
		{name: "error event", events: []string{c.Role(), c.Text("a"), "event: error\ndata: {\"error\":{\"message\":\"Internal server error\",\"type\":\"server_error\"}}\n\n"},
			stop: provider.StopReasonError, text: "a", want: "Internal server error",
			sequence: "start text_start:0 text_delta:0 error", retryable: true},
		{name: "error event with plain text", events: []string{c.Role(), "event: error\ndata: upstream overloaded, try later\n\n"},
			stop: provider.StopReasonError, want: "Stream error: upstream overloaded, try later",
			sequence: "start error", retryable: true},
		{name: "hang-up mid-stream", events: []string{c.Role(), c.Text("partial")}, end: openaitest.EndHangup,
			stop: provider.StopReasonError, text: "partial", want: "Connection lost while streaming the answer: unexpected EOF",
			sequence: "start text_start:0 text_delta:0 error", retryable: true},
		{name: "finish then hang-up", events: []string{c.Role(), c.Text("whole"), c.Finish("stop")}, end: openaitest.EndHangup,
			stop: provider.StopReasonStop, text: "whole", sequence: "start text_start:0 text_delta:0 text_end:0 done"},
	}
	srv := startServer(t)
	p := newTestProvider(t, Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Enqueue(openaitest.Response{Events: tt.events, End: tt.end})
			msg, events := run(t, p, context.Background(), simpleRequest(testModel(srv.URL)))
			if msg.StopReason != tt.stop {
				t.Fatalf("stop reason %s (%q), want %s", msg.StopReason, msg.ErrorMessage, tt.stop)
			}
			if msg.ErrorMessage != tt.want {
				t.Errorf("error message\n got: %q\nwant: %q", msg.ErrorMessage, tt.want)
			}
			if got := provider.TextOf(msg.Content, ""); got != tt.text {
				t.Errorf("content %q, want %q", got, tt.text)
			}
			if got := eventTypes(events); got != tt.sequence {
				t.Errorf("events\n got: %s\nwant: %s", got, tt.sequence)
			}
			if got := provider.IsRetryable(msg); got != tt.retryable {
				t.Errorf("IsRetryable = %v, want %v", got, tt.retryable)
			}
		})
	}
}

// TestResetMidStream cuts the TCP connection (RST) after the client has shown the first delta.
func TestResetMidStream(t *testing.T) {
	c := chunks()
	srv := startServer(t)
	seen := make(chan struct{})
	srv.Enqueue(openaitest.Response{Events: []string{c.Role(), c.Text("kept")}, BeforeEnd: seen, End: openaitest.EndReset})
	p := newTestProvider(t, Config{})
	var events []*provider.AssistantEvent
	req := simpleRequest(testModel(srv.URL))
	req.Options.APIKey = testKey
	msg := p.Stream(context.Background(), req, func(e *provider.AssistantEvent) {
		events = append(events, e)
		if e.Type == provider.EventTextDelta {
			close(seen)
		}
	})
	checkContract(t, msg, events)
	if msg.StopReason != provider.StopReasonError || !strings.HasPrefix(msg.ErrorMessage, "Connection lost while streaming the answer: ") {
		t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
	if provider.TextOf(msg.Content, "") != "kept" {
		t.Fatalf("content %+v", msg.Content)
	}
	if !provider.IsRetryable(msg) {
		t.Fatal("a reset should be retryable")
	}
}

// fakeClock fires idle timeouts when the test says so.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c      *fakeClock
	at     time.Time
	f      func()
	active bool
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f, active: true}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.at, t.active = t.c.now.Add(d), true
	return was
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.active = false
	return was
}

// Advance moves time on and runs the timers that came due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	for _, t := range c.timers {
		if t.active && !t.at.After(c.now) {
			t.active = false
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

func TestIdleTimeout(t *testing.T) {
	c := chunks()
	srv := startServer(t)

	t.Run("mid-stream", func(t *testing.T) {
		clk := &fakeClock{}
		p := newTestProvider(t, Config{IdleTimeout: 50 * time.Millisecond})
		p.clock = clk
		srv.Enqueue(openaitest.Response{Events: []string{c.Role(), c.Text("so far")}, End: openaitest.EndStall})
		seen := make(chan struct{})
		var events []*provider.AssistantEvent
		done := make(chan *provider.AssistantMessage)
		go func() {
			done <- p.Stream(context.Background(), simpleRequest(testModel(srv.URL)), func(e *provider.AssistantEvent) {
				events = append(events, e)
				if e.Type == provider.EventTextDelta {
					close(seen)
				}
			})
		}()
		<-seen
		clk.Advance(49 * time.Millisecond) // not yet
		clk.Advance(time.Millisecond)
		msg := <-done
		checkContract(t, msg, events)
		want := "Request timed out: no data from " + srv.URL + "/chat/completions for 50 ms (the stream stalled)"
		if msg.StopReason != provider.StopReasonError || msg.ErrorMessage != want {
			t.Fatalf("got %s %q, want %q", msg.StopReason, msg.ErrorMessage, want)
		}
		if provider.TextOf(msg.Content, "") != "so far" {
			t.Fatalf("content %+v", msg.Content)
		}
		if eventTypes(events) != "start text_start:0 text_delta:0 error" {
			t.Fatalf("events %s", eventTypes(events))
		}
		if !provider.IsRetryable(msg) {
			t.Fatal("an idle timeout should be retryable")
		}
	})
	t.Run("before headers", func(t *testing.T) {
		clk := &fakeClock{}
		p := newTestProvider(t, Config{})
		p.clock = clk
		never := make(chan struct{})
		srv.Enqueue(openaitest.Response{BeforeHeaders: never, Events: []string{c.Role()}})
		n := len(srv.Requests())
		req := simpleRequest(testModel(srv.URL))
		req.Options.IdleTimeout = time.Minute
		done := make(chan *provider.AssistantMessage)
		var events []*provider.AssistantEvent
		go func() {
			done <- p.Stream(context.Background(), req, func(e *provider.AssistantEvent) { events = append(events, e) })
		}()
		if _, err := srv.WaitRequest(context.Background(), n+1); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
		msg := <-done
		checkContract(t, msg, events)
		if msg.ErrorMessage != "Request timed out: no response from "+srv.URL+"/chat/completions for 60 s" || eventTypes(events) != "error" {
			t.Fatalf("got %q, events %s", msg.ErrorMessage, eventTypes(events))
		}
	})
	t.Run("activity re-arms", func(t *testing.T) {
		clk := &fakeClock{}
		cancelled := make(chan error, 1)
		w := startIdleWatch(clk, time.Minute, -1, func(err error) { cancelled <- err })
		clk.Advance(50 * time.Second)
		w.touch() // a byte at 50 s
		clk.Advance(50 * time.Second)
		notFired(t, cancelled, "after 50 s of quiet")
		clk.Advance(10 * time.Second)
		if err := <-cancelled; err != errIdle {
			t.Fatalf("cause %v", err)
		}
		if !w.stop() {
			t.Fatal("stop does not report the timeout")
		}
	})
	t.Run("bytes without content", func(t *testing.T) {
		// Keep-alives (touch) keep the byte timer quiet; only content (touchContent) resets the other.
		clk := &fakeClock{}
		cancelled := make(chan error, 1)
		w := startIdleWatch(clk, time.Minute, 3*time.Minute, func(err error) { cancelled <- err })
		for i := 0; i < 5; i++ { // 150 s of keep-alives every 30 s
			clk.Advance(30 * time.Second)
			w.touch()
		}
		w.touchContent()         // content at 150 s
		for i := 0; i < 5; i++ { // keep-alives up to 300 s: 150 s without content
			clk.Advance(30 * time.Second)
			w.touch()
		}
		notFired(t, cancelled, "150 s after the last content")
		clk.Advance(29 * time.Second)
		w.touch()
		notFired(t, cancelled, "179 s after the last content")
		clk.Advance(time.Second)
		if err := <-cancelled; err != errNoContent {
			t.Fatalf("cause %v, want no content", err)
		}
		if q := w.quiet(); q != time.Second {
			t.Fatalf("the last byte came %v before the timeout, want 1s", q)
		}
	})
	t.Run("after [DONE] only the drain limit is left", func(t *testing.T) {
		clk := &fakeClock{}
		cancelled := make(chan error, 1)
		w := startIdleWatch(clk, time.Minute, time.Minute, func(err error) { cancelled <- err })
		clk.Advance(50 * time.Second)
		w.touch()
		w.answered(2 * time.Second)
		clk.Advance(time.Second)
		notFired(t, cancelled, "during the drain")
		clk.Advance(time.Second)
		if err := <-cancelled; err != errIdle {
			t.Fatalf("cause %v", err)
		}
	})
}

// notFired fails the test when the watch has cancelled the call.
func notFired(t *testing.T, cancelled <-chan error, when string) {
	t.Helper()
	select {
	case err := <-cancelled:
		t.Fatalf("fired %s: %v", when, err)
	default:
	}
}

// streamWithin streams req and fails the test when the stream is still running after limit (today's
// servers that never end: the provider must end them itself).
func streamWithin(t *testing.T, p *Provider, req *provider.Request, limit time.Duration) (*provider.AssistantMessage, []*provider.AssistantEvent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	msg, events := run(t, p, ctx, req)
	if msg.StopReason == provider.StopReasonAborted {
		t.Fatalf("the stream was still running after %v", limit)
	}
	return msg, events
}

func TestKeepAlivesDoNotKeepAStreamAlive(t *testing.T) {
	c := chunks()
	// A server per case: a request a loaded machine gives up on before the server takes it would
	// leave its answer queued for the next case.
	t.Run("content timeout defaults to the idle timeout", func(t *testing.T) {
		srv := startServer(t)
		p := newTestProvider(t, Config{IdleTimeout: 50 * time.Millisecond})
		srv.Enqueue(openaitest.Response{Events: []string{c.Role()}, End: openaitest.EndKeepAlive, KeepAlive: time.Millisecond})
		msg, _ := streamWithin(t, p, simpleRequest(testModel(srv.URL)), 10*time.Second)
		// Which timer fires first may depend on the machine's load; both end the stream.
		if msg.StopReason != provider.StopReasonError || !strings.HasPrefix(msg.ErrorMessage, "Request timed out: no ") ||
			!provider.IsRetryable(msg) {
			t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
		}
	})
	t.Run("keep-alives only", func(t *testing.T) {
		srv := startServer(t)
		p := newTestProvider(t, Config{IdleTimeout: -1, ContentTimeout: 30 * time.Millisecond})
		srv.Enqueue(openaitest.Response{Events: []string{c.Role(), c.Chunk(map[string]any{"content": ""}, "")},
			End: openaitest.EndKeepAlive, KeepAlive: time.Millisecond})
		msg, events := streamWithin(t, p, simpleRequest(testModel(srv.URL)), 10*time.Second)
		want := "Request timed out: no content from " + srv.URL + "/chat/completions for 30 ms (data last arrived "
		// A loaded machine may not see the response begin within 30 ms; that text is the other right one.
		slow := msg.ErrorMessage == "Request timed out: no response from "+srv.URL+"/chat/completions for 30 ms"
		if msg.StopReason != provider.StopReasonError || !slow && (!strings.HasPrefix(msg.ErrorMessage, want) ||
			!strings.HasSuffix(msg.ErrorMessage, " ago)")) {
			t.Fatalf("got %s %q\nwant %q…", msg.StopReason, msg.ErrorMessage, want)
		}
		if !slow && eventTypes(events) != "start error" || !provider.IsRetryable(msg) {
			t.Fatalf("events %s, retryable %v", eventTypes(events), provider.IsRetryable(msg))
		}
	})
	t.Run("trickle", func(t *testing.T) {
		srv := startServer(t)
		// One byte per millisecond: the byte timer never fires, and the first text chunk (over 100
		// bytes) cannot be complete before the content timeout.
		p := newTestProvider(t, Config{IdleTimeout: -1, ContentTimeout: 30 * time.Millisecond})
		srv.Enqueue(openaitest.Response{Events: []string{c.Role(), c.Text("Hello"), c.Finish("stop"), openaitest.Done()},
			Trickle: time.Millisecond})
		msg, _ := streamWithin(t, p, simpleRequest(testModel(srv.URL)), 10*time.Second)
		// "no response" when a loaded machine has not seen the headers within 30 ms.
		if msg.StopReason != provider.StopReasonError || !strings.HasPrefix(msg.ErrorMessage, "Request timed out: no content from ") &&
			!strings.HasPrefix(msg.ErrorMessage, "Request timed out: no response from ") {
			t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
		}
	})
	t.Run("content resets the content timer", func(t *testing.T) {
		srv := startServer(t)
		// Every text chunk arrives well within the content timeout, keep-alives in between: the answer
		// completes. A generous timeout: only a machine stalled for seconds could fail this.
		p := newTestProvider(t, Config{IdleTimeout: -1, ContentTimeout: 5 * time.Second})
		var events []string
		for i := 0; i < 5; i++ {
			events = append(events, openaitest.Comment("keep-alive"), c.Text("x"))
		}
		srv.Enqueue(openaitest.Response{Events: append(events, c.Finish("stop"), openaitest.Done()), Delay: time.Millisecond})
		msg, _ := streamWithin(t, p, simpleRequest(testModel(srv.URL)), 30*time.Second)
		if msg.StopReason != provider.StopReasonStop || provider.TextOf(msg.Content, "") != "xxxxx" {
			t.Fatalf("got %s %q %q", msg.StopReason, msg.ErrorMessage, provider.TextOf(msg.Content, ""))
		}
	})
	t.Run("no headers within the content timeout", func(t *testing.T) {
		srv := startServer(t)
		p := newTestProvider(t, Config{IdleTimeout: -1, ContentTimeout: 30 * time.Millisecond})
		srv.Enqueue(openaitest.Response{BeforeHeaders: make(chan struct{}), Events: []string{c.Role()}})
		msg, _ := streamWithin(t, p, simpleRequest(testModel(srv.URL)), 10*time.Second)
		if want := "Request timed out: no response from " + srv.URL + "/chat/completions for 30 ms"; msg.ErrorMessage != want {
			t.Fatalf("got %q, want %q", msg.ErrorMessage, want)
		}
	})
	t.Run("abort ends a keep-alive stream at once", func(t *testing.T) {
		srv := startServer(t)
		p := newTestProvider(t, Config{IdleTimeout: -1, ContentTimeout: -1})
		srv.Enqueue(openaitest.Response{Events: []string{c.Role()}, End: openaitest.EndKeepAlive, KeepAlive: time.Millisecond})
		ctx, cancel := context.WithCancel(context.Background())
		n := len(srv.Requests())
		go func() {
			srv.WaitRequest(context.Background(), n+1)
			cancel()
		}()
		msg, _ := run(t, p, ctx, simpleRequest(testModel(srv.URL)))
		if msg.StopReason != provider.StopReasonAborted || msg.ErrorMessage != "Request was aborted" {
			t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
		}
	})
}

func TestContentTimeoutChoice(t *testing.T) {
	m := testModel("http://x/v1")
	tests := []struct {
		cfg, call, idle, want time.Duration
	}{
		{0, 0, time.Minute, time.Minute},
		{0, 0, -1, -1},
		{2 * time.Minute, 0, time.Minute, 2 * time.Minute},
		{2 * time.Minute, 5 * time.Second, time.Minute, 5 * time.Second},
		{-1, 0, time.Minute, -1},
	}
	for i, tt := range tests {
		p := New(Config{ContentTimeout: tt.cfg, HTTPClient: http.DefaultClient})
		req := &provider.Request{Model: m, Options: provider.StreamOptions{ContentTimeout: tt.call}}
		if got := p.contentFor(req, tt.idle); got != tt.want {
			t.Errorf("case %d: %v, want %v", i, got, tt.want)
		}
	}
}

func TestAbort(t *testing.T) {
	c := chunks()
	srv := startServer(t)
	p := newTestProvider(t, Config{})

	t.Run("mid-stream keeps the partial and closes its blocks", func(t *testing.T) {
		srv.Enqueue(openaitest.Response{Events: []string{c.Role(), c.Reasoning("reasoning_content", "hmm"), c.Text("Par")}, End: openaitest.EndStall})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var events []*provider.AssistantEvent
		req := simpleRequest(testModel(srv.URL))
		msg := p.Stream(ctx, req, func(e *provider.AssistantEvent) {
			events = append(events, e)
			if e.Type == provider.EventTextDelta {
				cancel()
			}
		})
		checkContract(t, msg, events)
		if msg.StopReason != provider.StopReasonAborted || msg.ErrorMessage != "Request was aborted" {
			t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
		}
		want := "start thinking_start:0 thinking_delta:0 text_start:1 text_delta:1 thinking_end:0 text_end:1 error"
		if eventTypes(events) != want {
			t.Fatalf("events\n got: %s\nwant: %s", eventTypes(events), want)
		}
		if msg.Content[1].Text != "Par" || msg.Content[0].Thinking != "hmm" {
			t.Fatalf("content %+v", msg.Content)
		}
		if provider.IsRetryable(msg) {
			t.Fatal("an abort is not retryable")
		}
	})
	t.Run("before the response", func(t *testing.T) {
		never := make(chan struct{})
		srv.Enqueue(openaitest.Response{BeforeHeaders: never})
		n := len(srv.Requests())
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			srv.WaitRequest(context.Background(), n+1)
			cancel()
		}()
		msg, events := run(t, p, ctx, simpleRequest(testModel(srv.URL)))
		if msg.StopReason != provider.StopReasonAborted || msg.ErrorMessage != "Request was aborted" || eventTypes(events) != "error" {
			t.Fatalf("got %s %q, events %s", msg.StopReason, msg.ErrorMessage, eventTypes(events))
		}
	})
	t.Run("already cancelled sends nothing", func(t *testing.T) {
		n := len(srv.Requests())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		msg, _ := run(t, p, ctx, simpleRequest(testModel(srv.URL)))
		if msg.StopReason != provider.StopReasonAborted {
			t.Fatalf("got %s", msg.StopReason)
		}
		if len(srv.Requests()) != n {
			t.Fatal("a request was sent")
		}
	})
}

// TestErrorTextsClassify pins how pi-go's own transport texts are classified, whatever the server.
func TestErrorTextsClassify(t *testing.T) {
	texts := map[string]bool{
		provider.ConnectionErrorMessage(&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, "http://x/v1/chat/completions"): true,
		provider.ConnectionErrorMessage(errors.New("http2: server sent GOAWAY and closed the connection"), "http://x/v1/chat/completions"):                  true,
		"Connection lost while streaming the answer: read: connection reset by peer":                                                                        true,
		"Stream ended without a finish reason or [DONE]: the server closed the connection early":                                                            true,
		"Request timed out: no data from http://x/v1/chat/completions for 300 s (the stream stalled)":                                                       true,
		"Request timed out: no response from http://x/v1/chat/completions for 300 s":                                                                        true,
		"Request timed out: no content from http://x/v1/chat/completions for 300 s (data last arrived 0.4 s ago)":                                           true,
		"Malformed JSON in stream chunk 3 (unexpected end of JSON input): \"{\"":                                                                            false,
		"TLS error talking to https://x/v1/chat/completions: tls: failed to verify certificate: x509: certificate signed by unknown authority":              false,
	}
	for text, want := range texts {
		msg := &provider.AssistantMessage{StopReason: provider.StopReasonError, ErrorMessage: text}
		if got := provider.IsRetryable(msg); got != want {
			t.Errorf("IsRetryable(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestNoModel(t *testing.T) {
	p := newTestProvider(t, Config{})
	var events []*provider.AssistantEvent
	msg := p.Stream(context.Background(), &provider.Request{}, func(e *provider.AssistantEvent) { events = append(events, e) })
	checkContract(t, msg, events)
	if msg.ErrorMessage != "No model given for the request" {
		t.Fatalf("got %q", msg.ErrorMessage)
	}
}

func TestIdleTimeoutChoice(t *testing.T) {
	m := testModel("http://x/v1")
	reasoning := testModel("http://x/v1")
	reasoning.Reasoning = true
	req := func(m *provider.Model, level provider.ThinkingLevel, idle time.Duration) *provider.Request {
		return &provider.Request{Model: m, Options: provider.StreamOptions{Reasoning: level, IdleTimeout: idle}}
	}
	tests := []struct {
		cfg  time.Duration
		req  *provider.Request
		want time.Duration
	}{
		{0, req(m, provider.ThinkingHigh, 0), DefaultIdleTimeout},
		{0, req(reasoning, provider.ThinkingOff, 0), DefaultIdleTimeout},
		{0, req(reasoning, provider.ThinkingHigh, 0), DefaultReasoningIdleTimeout},
		{time.Minute, req(reasoning, provider.ThinkingHigh, 0), time.Minute},
		{time.Minute, req(m, "", 5*time.Second), 5 * time.Second},
		{-1, req(m, "", 0), -1},
	}
	for i, tt := range tests {
		p := New(Config{IdleTimeout: tt.cfg, HTTPClient: http.DefaultClient})
		if got := p.idleFor(tt.req); got != tt.want {
			t.Errorf("case %d: %v, want %v", i, got, tt.want)
		}
	}
}

// pipeTransport answers with a body the test controls and ignores the request context, as an
// in-process RoundTripper might.
type pipeTransport struct{ body *io.PipeReader }

func (t pipeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: t.body, Request: req}, nil
}

func TestCancellationEndsAReadTheTransportIgnores(t *testing.T) {
	for _, abort := range []bool{true, false} {
		pr, pw := io.Pipe()
		p := New(Config{HTTPClient: &http.Client{Transport: pipeTransport{pr}}, IdleTimeout: 30 * time.Millisecond})
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			io.WriteString(pw, chunks().Text("x"))
			if abort {
				cancel()
			}
		}()
		var events []*provider.AssistantEvent
		req := simpleRequest(testModel("http://pipe/v1"))
		if abort {
			req.Options.IdleTimeout = time.Hour
		}
		msg := p.Stream(ctx, req, func(e *provider.AssistantEvent) { events = append(events, e) })
		checkContract(t, msg, events)
		cancel()
		pw.Close()
		want := provider.StopReasonError
		if abort {
			want = provider.StopReasonAborted
		}
		if msg.StopReason != want {
			t.Fatalf("abort=%v: got %s %q", abort, msg.StopReason, msg.ErrorMessage)
		}
	}
}
