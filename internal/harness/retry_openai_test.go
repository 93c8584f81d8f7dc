package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/internal/session"
)

// The real provider against the scripted server: a 429 with Retry-After is waited out (the wait is
// injected, never slept) and the retry sends the same context.
func TestRetryAfterFromTheServer(t *testing.T) {
	srv := openaitest.Start(t)
	rate := openaitest.ErrorResponse(429, "Rate limit reached for requests")
	rate.RetryAfter = "7"
	srv.Enqueue(rate, openaitest.TextReply("m1", "hello"))
	s, delays, events := openaiSession(t, srv, `{}`)
	last := promptWithin(t, s, 20*time.Second)
	if d := *delays; len(d) != 1 || d[0] < 7*time.Second || d[0] > 7700*time.Millisecond {
		t.Errorf("delay %v, want Retry-After 7s (plus at most 10%% jitter)", d)
	}
	if ev := *events; len(ev) != 2 || ev[0].Type != EventAutoRetryStart || ev[1].Type != EventAutoRetryEnd || !ev[1].Success {
		t.Errorf("events: %+v", ev)
	}
	reqs := srv.Requests()
	a, _ := reqs[0].JSON()
	b, _ := reqs[1].JSON()
	if len(a["messages"].([]any)) != len(b["messages"].([]any)) {
		t.Errorf("the retry must send the same context")
	}
	if provider.TextOf(last.Content, "") != "hello" {
		t.Errorf("final answer %+v", last)
	}
	// The failed attempt stays in the file, omitted from the context by a context_edit (pi 1.6), so a
	// resumed session does not send it either.
	var failed, edited string
	for _, e := range s.Store().Entries() {
		switch {
		case e.Type == session.TypeMessage && e.Role == provider.RoleAssistant && failed == "":
			failed = e.ID
		case e.Type == session.TypeContextEdit:
			if e.Replacement != nil || edited != "" {
				t.Errorf("unexpected context edit %s", e.ID)
			}
			edited = e.TargetID
		}
	}
	if failed == "" || edited != failed {
		t.Errorf("context edit of %q, failed attempt %q", edited, failed)
	}
	ctx, err := session.BuildContext(s.Store().Entries(), "")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ctx.Messages); n != len(a["messages"].([]any))+1 {
		t.Errorf("resumed context has %d messages, the retry sent %d and got one answer", n, len(b["messages"].([]any)))
	}
}

// A server asking for a longer wait than retry.maxAgentDelayMs is not retried early (the retry would
// be refused again): the error says what the server asked for.
func TestRetryAfterBeyondTheLimitIsNotRetried(t *testing.T) {
	for _, tt := range []struct {
		settings, retryAfter, want string
	}{
		{`{}`, "120", "(retry after 2m0s). Server asked to retry after 120 s (more than retry.maxAgentDelayMs 60 s); not retrying"},
		{`{"retry": {"maxAgentDelayMs": 5000}}`, "30", "(retry after 30s). Server asked to retry after 30 s (more than retry.maxAgentDelayMs 5 s); not retrying"},
	} {
		srv := openaitest.Start(t)
		rate := openaitest.ErrorResponse(429, "Rate limit reached for requests")
		rate.RetryAfter = tt.retryAfter
		srv.SetFallback(rate)
		s, delays, events := openaiSession(t, srv, tt.settings)
		var willRetry []bool
		s.Subscribe(func(e Event) {
			if e.Type == "agent_end" {
				willRetry = append(willRetry, e.WillRetry)
			}
		})
		last := promptWithin(t, s, 20*time.Second)
		if want := "429 Rate limit reached for requests " + tt.want; last.ErrorMessage != want {
			t.Errorf("error %q\nwant  %q", last.ErrorMessage, want)
		}
		if n := len(srv.Requests()); n != 1 || len(*delays) != 0 || len(*events) != 0 {
			t.Errorf("%d requests, waits %v, events %+v: want one request and no retry", n, *delays, *events)
		}
		if len(willRetry) != 1 || willRetry[0] {
			t.Errorf("agent_end willRetry %v", willRetry)
		}
	}
}

// The back-off is capped at retry.maxAgentDelayMs (pi 1.6), and a server's shorter Retry-After is
// never cut short.
func TestRetryWaitsAreCapped(t *testing.T) {
	srv := openaitest.Start(t)
	rate := openaitest.ErrorResponse(429, "slow down")
	rate.RetryAfter = "44"
	srv.Enqueue(rate, openaitest.ErrorResponse(503, "busy"), openaitest.ErrorResponse(503, "busy"),
		openaitest.TextReply("m1", "ok"))
	s, delays, events := openaiSession(t, srv, `{"retry": {"baseDelayMs": 40000, "maxAgentDelayMs": 45000}}`)
	var willRetry []bool
	s.Subscribe(func(e Event) {
		if e.Type == "agent_end" {
			willRetry = append(willRetry, e.WillRetry)
		}
	})
	last := promptWithin(t, s, 20*time.Second)
	if provider.TextOf(last.Content, "") != "ok" {
		t.Fatalf("final %s %q", last.StopReason, last.ErrorMessage)
	}
	d := *delays
	if len(d) != 3 {
		t.Fatalf("waits %v", d)
	}
	within := func(d, lo time.Duration) bool { return d >= lo && d <= lo+lo/10 }
	// 40 s raised to the server's 44 s; 80 s and 160 s capped at 45 s.
	if !within(d[0], 44*time.Second) || !within(d[1], 45*time.Second) || !within(d[2], 45*time.Second) {
		t.Fatalf("waits %v, want 44 s, 45 s, 45 s (each plus at most 10%%)", d)
	}
	if len(*events) != 4 || (*events)[1].DelayMs != d[1].Milliseconds() {
		t.Fatalf("events %+v", *events)
	}
	if want := []bool{true, true, true, false}; len(willRetry) != 4 || willRetry[0] != want[0] || willRetry[3] != want[3] {
		t.Fatalf("agent_end willRetry %v, want %v", willRetry, want)
	}
}

// Errors a retry cannot fix end the prompt at once, with the URL named.
func TestErrorsARetryCannotFixFailFast(t *testing.T) {
	closed, addr := openaitest.ClosedURL(t)
	tests := []struct {
		name     string
		response *openaitest.Response
		baseURL  string
		want     string
	}{
		{name: "nothing listens on the port", baseURL: closed,
			want: "Connection refused by " + closed + "/chat/completions: nothing is listening on " + addr},
		{name: "401", response: ptr(openaitest.ErrorResponse(401, "Incorrect API key provided")),
			want: "401 Incorrect API key provided (POST %URL%/chat/completions)"},
		{name: "404", response: ptr(openaitest.ErrorResponse(404, "The model `m1` does not exist")),
			want: "404 The model `m1` does not exist (POST %URL%/chat/completions)"},
		{name: "400 that is not an overflow", response: ptr(openaitest.ErrorResponse(400, "Invalid value for 'timeout': server error")),
			want: "400 Invalid value for 'timeout': server error (POST %URL%/chat/completions)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.Start(t)
			if tt.response != nil {
				srv.SetFallback(*tt.response)
			}
			s, delays, events := openaiSession(t, srv, `{}`)
			if tt.baseURL != "" {
				m := *s.Model()
				m.BaseURL = tt.baseURL
				s.agent.SetModel(&m)
			}
			last := promptWithin(t, s, 20*time.Second)
			want := strings.ReplaceAll(tt.want, "%URL%", srv.URL)
			if last.StopReason != provider.StopReasonError || !strings.HasPrefix(last.ErrorMessage, want) {
				t.Fatalf("got %s %q\nwant prefix %q", last.StopReason, last.ErrorMessage, want)
			}
			if len(*delays) != 0 || len(*events) != 0 {
				t.Fatalf("retried: waits %v, events %+v", *delays, *events)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
