package harness

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// preflightRecorder notes the preflight outcome in the same sequence as the session's events, so a
// test can check that the report comes before agent_start.
type preflightRecorder struct {
	mu   sync.Mutex
	seq  []string
	errs []error
}

func (r *preflightRecorder) event(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq = append(r.seq, e.Type)
}

func (r *preflightRecorder) decided() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq = append(r.seq, "decided")
}

func (r *preflightRecorder) hooks() PromptHooks {
	return PromptHooks{Decided: r.decided, Preflight: r.preflight}
}

func (r *preflightRecorder) preflight(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq = append(r.seq, "preflight")
	r.errs = append(r.errs, err)
}

func (r *preflightRecorder) sequence() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.seq, " ")
}

func TestPromptWithHooksReportsBeforeTheRun(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("hello")}, nil)
	rec := &preflightRecorder{}
	f.s.Subscribe(rec.event)
	if err := f.s.PromptWithHooks(context.Background(), "hi", nil, BehaviorNone, rec.hooks()); err != nil {
		t.Fatal(err)
	}
	seq := rec.sequence()
	if !strings.HasPrefix(seq, "decided preflight agent_start turn_start") || !strings.HasSuffix(seq, "agent_end") {
		t.Errorf("sequence: %s", seq)
	}
	if len(rec.errs) != 1 || rec.errs[0] != nil {
		t.Errorf("preflight reports: %v", rec.errs)
	}
}

func TestPromptWithHooksWhileBusy(t *testing.T) {
	f := newFixture(t, []scriptedTurn{textTurn("first"), textTurn("second")}, nil)
	f.script.gate = make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- f.s.PromptWithHooks(context.Background(), "one", nil, BehaviorNone, PromptHooks{}) }()
	waitForEvent(t, f.events, func(e Event) bool { return e.Type == "message_start" && isAssistant(e) })

	rec := &preflightRecorder{}
	if err := f.s.PromptWithHooks(context.Background(), "two", nil, BehaviorNone, rec.hooks()); !errors.Is(err, ErrBusy) {
		t.Errorf("busy without behaviour: %v", err)
	}
	if err := f.s.PromptWithHooks(context.Background(), "later", nil, BehaviorFollowUp, rec.hooks()); err != nil {
		t.Errorf("follow-up while busy: %v", err)
	}
	if seq := rec.sequence(); seq != "decided preflight decided preflight" || !errors.Is(rec.errs[0], ErrBusy) || rec.errs[1] != nil {
		t.Errorf("reports: %s %v", seq, rec.errs)
	}
	if _, followUp := f.s.QueuedTexts(); len(followUp) != 1 || followUp[0] != "later" {
		t.Errorf("follow-up queue: %v", followUp)
	}
	close(f.script.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := f.script.requestCount(); n != 2 {
		t.Errorf("requests = %d, want 2 (the follow-up runs after the first answer)", n)
	}
}

func TestPromptWithHooksRejectsWithoutModel(t *testing.T) {
	f := newFixture(t, nil, func(o *Options) { o.Model = nil })
	rec := &preflightRecorder{}
	err := f.s.PromptWithHooks(context.Background(), "hi", nil, BehaviorNone, rec.hooks())
	if err == nil || rec.sequence() != "decided preflight" || rec.errs[0] != err || !strings.HasPrefix(err.Error(), "No model selected.") {
		t.Errorf("returned %v, reported %s %v", err, rec.sequence(), rec.errs)
	}
	if f.s.IsStreaming() {
		t.Error("a rejected prompt left the session busy")
	}
}
