package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/config"
)

// preflightRecorder notes the preflight outcome in the same sequence as the session's events, so a
// test can check that the report comes before agent_start.
type preflightRecorder struct {
	mu           sync.Mutex
	seq          []string
	errs         []error
	dispositions []Disposition
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

func (r *preflightRecorder) preflight(d Disposition, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq = append(r.seq, "preflight")
	r.errs = append(r.errs, err)
	r.dispositions = append(r.dispositions, d)
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
	if !strings.HasPrefix(seq, "decided preflight agent_start turn_start") || !strings.HasSuffix(seq, "agent_end agent_settled") {
		t.Errorf("sequence: %s", seq)
	}
	if len(rec.errs) != 1 || rec.errs[0] != nil || rec.dispositions[0] != DispositionStarted {
		t.Errorf("preflight reports: %v %v", rec.errs, rec.dispositions)
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
	if seq := rec.sequence(); seq != "decided preflight decided preflight" || !errors.Is(rec.errs[0], ErrBusy) || rec.errs[1] != nil ||
		rec.dispositions[1] != DispositionQueued {
		t.Errorf("reports: %s %v %v", seq, rec.errs, rec.dispositions)
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

// agent_settled (pi 1.6) comes once per prompt, after the last agent_end of its retries, compactions
// and queued messages, when the session is idle again; aborted says whether it was aborted. A prompt
// that never started a run, and a manual compaction, have none.
func TestAgentSettled(t *testing.T) {
	settledTail := func(f *harnessFixture) string {
		var kinds []string
		f.events.mu.Lock()
		defer f.events.mu.Unlock()
		for _, e := range f.events.events {
			switch e.Type {
			case "agent_start", "agent_end", EventAutoRetryStart, EventAgentSettled:
				k := e.Type
				if e.Type == EventAgentSettled {
					k += fmt.Sprintf("(aborted=%v)", e.Aborted)
				}
				kinds = append(kinds, k)
			}
		}
		return strings.Join(kinds, " ")
	}
	t.Run("after the retries", func(t *testing.T) {
		f := newFixture(t, []scriptedTurn{errorTurn("503 overloaded"), textTurn("ok")}, func(o *Options) {
			o.Sleep = func(context.Context, time.Duration) error { return nil }
		})
		var idleAtSettled bool
		f.s.Subscribe(func(e Event) {
			if e.Type == EventAgentSettled {
				idleAtSettled = !f.s.IsStreaming()
			}
		})
		if err := f.s.Prompt(context.Background(), "hi", nil, BehaviorNone); err != nil {
			t.Fatal(err)
		}
		if got := settledTail(f); got != "agent_start agent_end auto_retry_start agent_start agent_end agent_settled(aborted=false)" {
			t.Errorf("events: %s", got)
		}
		if !idleAtSettled {
			t.Error("the session was still busy when agent_settled was emitted")
		}
	})
	t.Run("aborted", func(t *testing.T) {
		f := newFixture(t, []scriptedTurn{textTurn("never")}, nil)
		f.script.gate = make(chan struct{})
		done := make(chan error, 1)
		go func() { done <- f.s.Prompt(context.Background(), "hi", nil, BehaviorNone) }()
		waitForEvent(t, f.events, func(e Event) bool { return e.Type == "message_start" && isAssistant(e) })
		f.s.Abort()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got := settledTail(f); got != "agent_start agent_end agent_settled(aborted=true)" {
			t.Errorf("events: %s", got)
		}
	})
	t.Run("none without a run", func(t *testing.T) {
		f := newFixture(t, []scriptedTurn{textTurn("a"), textTurn("b"), textTurn("## Goal\nsummary")}, func(o *Options) {
			o.Settings = config.InMemorySettings(config.Settings{Compaction: config.CompactionSettings{KeepRecentTokens: 1}})
		})
		if err := f.s.Prompt(context.Background(), "one", nil, BehaviorNone); err != nil {
			t.Fatal(err)
		}
		if err := f.s.Prompt(context.Background(), "two", nil, BehaviorNone); err != nil {
			t.Fatal(err)
		}
		before := len(f.events.ofType(EventAgentSettled))
		if _, err := f.s.Compact(context.Background(), ""); err != nil {
			t.Fatal(err)
		}
		f.s.agent.SetModel(nil)
		if err := f.s.Prompt(context.Background(), "three", nil, BehaviorNone); err == nil {
			t.Fatal("prompt without a model accepted")
		}
		if after := len(f.events.ofType(EventAgentSettled)); before != 2 || after != 2 {
			t.Errorf("agent_settled after two prompts: %d; after a compaction and a refused prompt: %d", before, after)
		}
	})
}
