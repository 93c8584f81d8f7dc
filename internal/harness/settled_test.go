package harness

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// runTail is the sequence of run boundaries and settlement of the logged events, with agent_end's
// willRetry and agent_settled's aborted.
func runTail(events []Event) string {
	var out []string
	for _, e := range events {
		switch e.Type {
		case "agent_start", EventAutoRetryStart, EventAutoRetryEnd, EventCompactionStart, EventCompactionEnd:
			out = append(out, e.Type)
		case "agent_end":
			if e.WillRetry {
				out = append(out, "agent_end(willRetry)")
			} else {
				out = append(out, "agent_end")
			}
		case EventAgentSettled:
			if e.Aborted {
				out = append(out, "agent_settled(aborted)")
			} else {
				out = append(out, "agent_settled")
			}
		}
	}
	return strings.Join(out, " ")
}

// agent_settled (pi 1.6) comes once per prompt, after the last agent_end of its retries, when the
// session is idle; agent_end says whether a retry follows.
func TestAgentSettledEndsThePromptsWork(t *testing.T) {
	t.Run("one run", func(t *testing.T) {
		f := newFixture(t, []scriptedTurn{textTurn("hello")}, nil)
		var idleAtSettled bool
		f.s.Subscribe(func(e Event) {
			if e.Type == EventAgentSettled {
				idleAtSettled = !f.s.IsStreaming()
			}
		})
		if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
			t.Fatal(err)
		}
		if got := runTail(f.events.events); got != "agent_start agent_end agent_settled" {
			t.Errorf("events: %s", got)
		}
		if !idleAtSettled {
			t.Error("the session was still busy when agent_settled was emitted")
		}
	})
	t.Run("a retried error", func(t *testing.T) {
		f := newFixture(t, []scriptedTurn{errorTurn("503 unavailable"), textTurn("ok")}, nil)
		if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
			t.Fatal(err)
		}
		want := "agent_start agent_end(willRetry) auto_retry_start agent_start auto_retry_end agent_end agent_settled"
		if got := runTail(f.events.events); got != want {
			t.Errorf("events:\n got %s\nwant %s", got, want)
		}
	})
	t.Run("an error not retried", func(t *testing.T) {
		f := newFixture(t, []scriptedTurn{errorTurn("401 bad key")}, nil)
		if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
			t.Fatal(err)
		}
		if got := runTail(f.events.events); got != "agent_start agent_end agent_settled" {
			t.Errorf("events: %s", got)
		}
	})
	t.Run("an abort", func(t *testing.T) {
		f := newFixture(t, []scriptedTurn{textTurn("never")}, nil)
		f.script.gate = make(chan struct{})
		done := make(chan error, 1)
		go func() { done <- f.s.Prompt(context.Background(), "hi", nil, BehaviorNone) }()
		f.waitForEvent(t, func(e Event) bool {
			return e.Type == "message_start" && e.Agent.Message.Role() == provider.RoleAssistant
		})
		f.s.Abort()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := runTail(f.events.events); got != "agent_start agent_end agent_settled(aborted)" {
			t.Errorf("events: %s", got)
		}
	})
	t.Run("no run, no settlement", func(t *testing.T) {
		f := newFixture(t, nil, func(o *Options) { o.Model = nil })
		if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err == nil {
			t.Fatal("a prompt without a model was accepted")
		}
		if err := f.s.Continue(context.Background()); err == nil {
			t.Fatal("continue without a model was accepted")
		}
		if got := runTail(f.events.events); got != "" {
			t.Errorf("events: %s", got)
		}
	})
}

// waitForEvent returns once an event matching ok has been logged.
func (f *harnessFixture) waitForEvent(t *testing.T, ok func(Event) bool) {
	t.Helper()
	seen := 0
	for {
		f.events.mu.Lock()
		events := f.events.events[seen:]
		seen = len(f.events.events)
		f.events.mu.Unlock()
		for _, e := range events {
			if ok(e) {
				return
			}
		}
		<-f.events.ch
	}
}

// The session's own events in pi 1.6's JSON: agent_end with willRetry, agent_settled, entry_appended
// with the entry as the file has it. agent_end starts with the run's system message, as in pi 1.6.
func TestSessionEventsJSON(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("hello")}, nil)
	if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	ends := f.events.ofType("agent_end")
	if len(ends) != 1 {
		t.Fatalf("%d agent_end events", len(ends))
	}
	end := ends[0]
	data, err := end.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), `{"type":"agent_end","messages":[{"role":"system"`) || !strings.HasSuffix(string(data), `}],"willRetry":false}`) {
		t.Errorf("agent_end: %s", data)
	}
	end.WillRetry = true
	if data, _ := end.MarshalJSON(); !strings.HasSuffix(string(data), `}],"willRetry":true}`) {
		t.Errorf("agent_end before a retry: %s", data)
	}
	settled := f.events.ofType(EventAgentSettled)
	if data, err := settled[0].MarshalJSON(); err != nil || string(data) != `{"type":"agent_settled","aborted":false}` {
		t.Errorf("agent_settled: %s %v", data, err)
	}

	store := f.s.Store()
	id, err := store.AppendCustomEntry("demo", map[string]int{"n": 1})
	if err != nil {
		t.Fatal(err)
	}
	e := store.Entry(id)
	raw, err := e.Raw()
	if err != nil {
		t.Fatal(err)
	}
	data, err = Event{Type: EventEntryAppended, Entry: e}.MarshalJSON()
	if err != nil || string(data) != `{"type":"entry_appended","entry":`+string(raw)+`}` {
		t.Errorf("entry_appended: %s %v", data, err)
	}
	if _, err := (Event{Type: EventEntryAppended}).MarshalJSON(); err == nil {
		t.Error("entry_appended without an entry was written")
	}
}
