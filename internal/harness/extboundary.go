package harness

import (
	"context"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// pi 1.6's actionable boundaries: turn_end (each turn, after its messages were saved, before the
// loop's turn_end event) and agent_before_settle (once the run and its retries, compactions and
// queued messages are done, before agent_settled). Extensions may add entries there and ask for one
// more request.

// BoundaryEntry is an entry a boundary handler adds: a custom entry (CustomType and Data, outside the
// model's context) or, when Message is set, a custom message the model sees.
type BoundaryEntry struct {
	CustomType string
	Data       any
	Message    *provider.CustomMessage
}

// Boundary is what the handlers of one boundary decided.
type Boundary struct {
	Entries  []BoundaryEntry
	Continue bool
}

// BoundaryHook runs the boundary handlers. turnIndex counts the run's turns from 0; outcome is
// "completed", "error" or "aborted".
type BoundaryHook interface {
	TurnEnd(ctx context.Context, turnIndex int, t loop.TurnContext, outcome string) Boundary
	BeforeSettle(ctx context.Context, outcome string) Boundary
}

// installBoundaries wires turn_end into the loop: its custom messages go into the next turn (or, if
// the run ends, after it), and a continuation asks the loop for one more request.
func (s *Session) installBoundaries(cfg *loop.Config, b BoundaryHook) {
	prev := cfg.PrepareNextTurn
	cfg.PrepareNextTurn = func(ctx context.Context, t loop.TurnContext) (loop.NextTurn, error) {
		var next loop.NextTurn
		var err error
		if prev != nil {
			next, err = prev(ctx, t)
		}
		next.Messages = append(s.takeBoundaryMessages(), next.Messages...)
		return next, err
	}
	prevFinish := cfg.FinishTurn
	cfg.FinishTurn = func(ctx context.Context, t loop.TurnContext) (loop.TurnDecision, error) {
		outcome := turnOutcome(t.Message)
		turnIndex := -1
		for _, m := range t.NewMessages {
			if _, ok := m.(*provider.AssistantMessage); ok {
				turnIndex++
			}
		}
		s.mu.Lock()
		s.ext.lastOutcome = outcome
		s.mu.Unlock()
		bd := b.TurnEnd(ctx, max(turnIndex, 0), t, outcome)
		for _, e := range bd.Entries {
			if e.Message != nil {
				s.ext.mu.Lock()
				s.ext.boundary = append(s.ext.boundary, e.Message)
				s.ext.mu.Unlock()
			} else {
				s.appendEntry(s.Store().AppendCustomEntry(e.CustomType, e.Data))
			}
		}
		decision := loop.TurnDefault
		if prevFinish != nil {
			d, err := prevFinish(ctx, t)
			if err != nil || d == loop.TurnEnd {
				return d, err
			}
			decision = d
		}
		if bd.Continue && outcome == "completed" {
			decision = loop.TurnContinue
		}
		return decision, nil
	}
}

func turnOutcome(m *provider.AssistantMessage) string {
	switch {
	case m == nil:
		return "completed"
	case m.StopReason == provider.StopReasonAborted:
		return "aborted"
	case m.StopReason == provider.StopReasonError:
		return "error"
	}
	return "completed"
}

// takeBoundaryMessages returns (and forgets) the custom messages turn_end handlers added.
func (s *Session) takeBoundaryMessages() []provider.Message {
	s.ext.mu.Lock()
	defer s.ext.mu.Unlock()
	out := make([]provider.Message, 0, len(s.ext.boundary))
	for _, m := range s.ext.boundary {
		out = append(out, m)
	}
	s.ext.boundary = nil
	return out
}

// beforeSettle runs agent_before_settle once a run has nothing more to do; it reports whether a
// handler asked for one more request (its messages are in the transcript by then). An aborted run
// skips it, as in pi.
func (s *Session) beforeSettle(ctx context.Context) bool {
	b, ok := s.opts.Hooks.(BoundaryHook)
	if !ok || ctx.Err() != nil {
		return false
	}
	s.flushBoundaryMessages()
	s.mu.Lock()
	outcome := s.ext.lastOutcome
	s.mu.Unlock()
	if outcome == "" {
		outcome = "completed"
	}
	bd := b.BeforeSettle(ctx, outcome)
	for _, e := range bd.Entries {
		if e.Message != nil {
			s.appendCustom(e.Message)
		} else {
			s.appendEntry(s.Store().AppendCustomEntry(e.CustomType, e.Data))
		}
	}
	return bd.Continue && ctx.Err() == nil
}

// flushBoundaryMessages appends the turn_end messages no further turn took.
func (s *Session) flushBoundaryMessages() {
	for _, m := range s.takeBoundaryMessages() {
		if cm, ok := m.(*provider.CustomMessage); ok {
			s.appendCustom(cm)
		}
	}
}
