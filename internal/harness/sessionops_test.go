package harness

import (
	"context"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// userEntryID returns the id of the first user message entry whose text is text.
func userEntryID(t *testing.T, store *session.Manager, text string) string {
	t.Helper()
	for _, fm := range (&Session{store: store}).ForkMessages() {
		if fm.Text == text {
			return fm.EntryID
		}
	}
	t.Fatalf("no user entry %q", text)
	return ""
}

// A fork drops what was queued for the old session (pi builds a fresh agent), so a steering message
// typed before the fork never reaches the fork's next request; and replacing a session with nothing
// queued emits no queue_update (pi emits none).
func TestSessionReplacementDropsQueuedMessages(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("first answer"), textTurn("never"), textTurn("on the fork")}, nil)
	if err := f.s.Prompt(context.Background(), "first", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	for len(f.events.ch) > 0 { // the first run's events
		<-f.events.ch
	}
	f.script.gate = make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- f.s.Prompt(context.Background(), "second", nil, BehaviorNone) }()
	waitForEvent(t, f.events, func(e Event) bool { return e.Type == "message_start" && isAssistant(e) })
	f.s.Steer("stale steering", nil)
	f.s.FollowUp("stale follow-up", nil)
	before := len(f.events.ofType(EventQueueUpdate))
	if _, err := f.s.Fork(userEntryID(t, f.store, "second")); err != nil {
		t.Fatal(err)
	}
	<-done
	if st, fu := f.s.QueuedTexts(); len(st)+len(fu) != 0 {
		t.Errorf("display queues after fork: %v %v", st, fu)
	}
	if st, fu := f.s.Agent().QueuedMessages(); len(st)+len(fu) != 0 {
		t.Errorf("agent queues after fork: %d steering, %d follow-up", len(st), len(fu))
	}
	updates := f.events.ofType(EventQueueUpdate)[before:]
	if len(updates) != 1 || len(updates[0].Steering)+len(updates[0].FollowUp) != 0 {
		t.Errorf("queue updates after fork: %+v, want one empty update", updates)
	}

	f.script.gate = nil
	if err := f.s.Prompt(context.Background(), "second again", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	last := f.script.requests[len(f.script.requests)-1]
	for _, m := range last.Messages {
		if u, ok := m.(*provider.UserMessage); ok {
			if txt := provider.TextOf(u.Content, ""); txt == "stale steering" || txt == "stale follow-up" {
				t.Errorf("the fork's request carries %q from the old session", txt)
			}
		}
	}

	before = len(f.events.ofType(EventQueueUpdate))
	if err := f.s.NewSession(""); err != nil {
		t.Fatal(err)
	}
	if err := f.s.SwitchSession(f.store.SessionFile()); err != nil {
		t.Fatal(err)
	}
	if n := len(f.events.ofType(EventQueueUpdate)) - before; n != 0 {
		t.Errorf("%d queue_update events for new_session/switch_session with empty queues, want 0", n)
	}
}
