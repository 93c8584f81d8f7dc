package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openai"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/internal/session"
)

// openaiSession is a session on the real provider and the scripted server, with settings.json holding
// settingsJSON; retry waits are recorded, never slept.
func openaiSession(t *testing.T, srv *openaitest.Server, settingsJSON string) (*Session, *[]time.Duration, *[]Event) {
	t.Helper()
	dir := t.TempDir()
	agentDir := filepath.Join(dir, "agent")
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(settingsJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	model := *testModel
	model.BaseURL = srv.URL
	var delays []time.Duration
	s, err := New(Options{
		Cwd:      dir,
		AgentDir: agentDir,
		Settings: config.LoadSettings(agentDir, dir),
		Store:    session.Create(dir, filepath.Join(dir, "sessions")),
		Stream:   openai.New(openai.Config{HTTPClient: srv.Client()}).Stream,
		Model:    &model,
		Sleep:    func(ctx context.Context, d time.Duration) error { delays = append(delays, d); return ctx.Err() },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var events []Event
	s.Subscribe(func(e Event) {
		// retry and compaction events; the context edits of retries are checked where they matter
		if e.Agent == nil && e.Type != EventAgentSettled && e.Type != EventEntryAppended {
			events = append(events, e)
		}
	})
	return s, &delays, &events
}

// promptWithin runs one prompt and fails the test when it has not settled within limit.
func promptWithin(t *testing.T, s *Session, limit time.Duration) *provider.AssistantMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if err := s.Prompt(ctx, "hi", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the prompt was still running after %v", limit)
	}
	msgs := s.Messages()
	last, _ := msgs[len(msgs)-1].(*provider.AssistantMessage)
	if last == nil {
		t.Fatalf("last message %T", msgs[len(msgs)-1])
	}
	return last
}

// settings.json's httpIdleTimeoutMs bounds a stream that stalls after its first chunk, and the failure
// goes through the visible retry.
func TestHTTPIdleTimeoutFromSettings(t *testing.T) {
	srv := openaitest.Start(t)
	c := openaitest.NewChunks("m1")
	stall := openaitest.Response{Events: []string{c.Role(), c.Text("Hel")}, End: openaitest.EndStall}
	srv.Enqueue(stall, stall)
	s, delays, events := openaiSession(t, srv, `{"httpIdleTimeoutMs": 100, "retry": {"maxRetries": 1}}`)
	last := promptWithin(t, s, 20*time.Second)
	// The stall is the case under test, but on a loaded machine the response headers themselves may take
	// longer than 100 ms: either text shows the setting reached the provider.
	stalled := "Request timed out: no data from " + srv.URL + "/chat/completions for 100 ms (the stream stalled)"
	slow := "Request timed out: no response from " + srv.URL + "/chat/completions for 100 ms"
	timedOut := func(msg string) bool { return msg == stalled || msg == slow }
	if last.StopReason != provider.StopReasonError || !timedOut(last.ErrorMessage) {
		t.Fatalf("got %s %q, want %q", last.StopReason, last.ErrorMessage, stalled)
	}
	// One retry, whatever the server saw of it: when the retried request's 100 ms run out before the
	// server's handler is scheduled (a loaded machine), the client has hung up and the server may
	// never record it.
	if n := len(srv.Requests()); n < 1 || n > 2 || len(*delays) != 1 {
		t.Fatalf("%d requests, delays %v: want one retry", n, *delays)
	}
	ev := *events
	if len(ev) != 2 || ev[0].Type != EventAutoRetryStart || !timedOut(ev[0].ErrorMessage) ||
		ev[1].Type != EventAutoRetryEnd || ev[1].Success || ev[1].FinalError != last.ErrorMessage {
		t.Fatalf("events %+v", ev)
	}
}

// contentIdleTimeoutMs bounds a stream that sends keep-alive comments and nothing else, which the byte
// timer alone never ends.
func TestContentIdleTimeoutFromSettings(t *testing.T) {
	srv := openaitest.Start(t)
	c := openaitest.NewChunks("m1")
	srv.Enqueue(openaitest.Response{Events: []string{c.Role()}, End: openaitest.EndKeepAlive, KeepAlive: time.Millisecond})
	s, _, _ := openaiSession(t, srv, `{"httpIdleTimeoutMs": "disabled", "contentIdleTimeoutMs": 100, "retry": {"enabled": false}}`)
	last := promptWithin(t, s, 20*time.Second)
	// As above, a loaded machine may not have seen the response begin within 100 ms.
	if last.StopReason != provider.StopReasonError ||
		!strings.HasPrefix(last.ErrorMessage, "Request timed out: no content from "+srv.URL+"/chat/completions for 100 ms") &&
			last.ErrorMessage != "Request timed out: no response from "+srv.URL+"/chat/completions for 100 ms" {
		t.Fatalf("got %s %q", last.StopReason, last.ErrorMessage)
	}
}

// Abort during a stalled stream ends the run at once, whatever the timeouts.
func TestAbortDuringAStalledStream(t *testing.T) {
	srv := openaitest.Start(t)
	c := openaitest.NewChunks("m1")
	srv.Enqueue(openaitest.Response{Events: []string{c.Role(), c.Text("Hel")}, End: openaitest.EndKeepAlive})
	s, _, events := openaiSession(t, srv, `{"httpIdleTimeoutMs": 0, "contentIdleTimeoutMs": 0}`)
	go func() {
		if _, err := srv.WaitRequest(context.Background(), 1); err == nil {
			s.Abort()
		}
	}()
	last := promptWithin(t, s, 20*time.Second)
	if last.StopReason != provider.StopReasonAborted {
		t.Fatalf("got %s %q", last.StopReason, last.ErrorMessage)
	}
	if len(*events) != 0 {
		t.Fatalf("an abort is not retried: %+v", *events)
	}
}
