package harness

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openai"
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
	model := *testModel
	model.BaseURL = srv.URL
	var delays []time.Duration
	dir := t.TempDir()
	s, err := New(Options{
		Cwd:      dir,
		Settings: config.InMemorySettings(config.Settings{}),
		Store:    session.Create(dir, filepath.Join(dir, "sessions")),
		Stream:   openai.New(openai.Config{HTTPClient: srv.Client()}).Stream,
		Model:    &model,
		Sleep:    func(ctx context.Context, d time.Duration) error { delays = append(delays, d); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var events []Event
	s.Subscribe(func(e Event) {
		if e.Agent == nil {
			events = append(events, e)
		}
	})
	if err := s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if len(delays) != 1 || delays[0] < 7*time.Second || delays[0] > 7700*time.Millisecond {
		t.Errorf("delay %v, want Retry-After 7s (plus at most 10%% jitter)", delays)
	}
	if len(events) != 2 || events[0].Type != EventAutoRetryStart || events[1].Type != EventAutoRetryEnd || !events[1].Success {
		t.Errorf("events: %+v", events)
	}
	reqs := srv.Requests()
	a, _ := reqs[0].JSON()
	b, _ := reqs[1].JSON()
	if len(a["messages"].([]any)) != len(b["messages"].([]any)) {
		t.Errorf("the retry must send the same context")
	}
	msgs := s.Messages()
	if last := msgs[len(msgs)-1].(*provider.AssistantMessage); provider.TextOf(last.Content, "") != "hello" {
		t.Errorf("final answer %+v", last)
	}
}
