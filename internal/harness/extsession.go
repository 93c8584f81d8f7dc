package harness

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/pi-go/pi-go/internal/harness/compaction"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// This file holds the session operations extensions take part in beyond the run's own hooks
// (exthooks.go): `!` commands (user_bash), compaction and /tree summaries (session_before_compact,
// session_before_tree and their after-events), model selection (model_select), and what extensions
// ask of the session (custom messages, the active tools). Each hook is an optional interface that
// Options.Hooks may implement; without it the session behaves as without extensions.

// UserBashHook lets extensions take over a user's `!` command (pi's user_bash). Handled false runs the
// command locally; handled with a result records that result instead. An error (a failing handler)
// stops the command: it neither runs nor is recorded, as pi fails closed.
type UserBashHook interface {
	UserBash(ctx context.Context, command string, excludeFromContext bool, cwd string, onChunk func(string)) (res *BashResult, handled bool, err error)
}

// CompactionEvent is a compaction about to run, as session_before_compact describes it.
type CompactionEvent struct {
	Preparation        *compaction.Preparation
	Branch             []*session.Entry
	CustomInstructions string
	Reason             string
	WillRetry          bool
}

// CompactionHook lets extensions cancel a compaction or supply its summary (session_before_compact),
// and tells them the compaction entry that was saved (session_compact).
type CompactionHook interface {
	BeforeCompact(ctx context.Context, ev CompactionEvent) (cancel bool, custom *CompactionResult)
	Compacted(entry *session.Entry, fromExtension bool, reason string, willRetry bool)
}

// TreePreparation is a /tree navigation about to happen, as session_before_tree describes it.
type TreePreparation struct {
	TargetID, OldLeafID, CommonAncestorID string
	EntriesToSummarize                    []*session.Entry
	UserWantsSummary                      bool
	CustomInstructions                    string
	ReplaceInstructions                   bool
	Label                                 string
}

// TreeVerdict is what session_before_tree handlers decided. Summary (used only when a summary was
// asked for) replaces the model's; the instruction and label fields override the user's when set.
type TreeVerdict struct {
	Cancel              bool
	Summary             *compaction.BranchSummary
	CustomInstructions  *string
	ReplaceInstructions *bool
	Label               *string
}

// TreeHook lets extensions cancel or customise a /tree navigation and tells them where it went.
type TreeHook interface {
	BeforeTree(ctx context.Context, p TreePreparation) TreeVerdict
	TreeNavigated(newLeafID, oldLeafID string, summaryEntry *session.Entry, fromExtension bool)
}

// CustomStartHook runs before_agent_start for a run a custom message starts (messageType "custom"):
// the messages to add after it and the run's system prompt ("" unchanged).
type CustomStartHook interface {
	BeforeCustomStart(ctx context.Context, m *provider.CustomMessage, systemPrompt string) ([]provider.Message, string)
}

// ModelHook is told of every model selection (pi's model_select; source "set" or "cycle").
type ModelHook interface {
	ModelSelected(model, previous *provider.Model, source string)
}

// extState is what extensions queued on the session.
type extState struct {
	mu sync.Mutex
	// nextTurn are custom messages sent with deliverAs "nextTurn": they go with the next prompt.
	nextTurn []provider.Message
	// afterRun are custom messages sent without triggering a turn while a run streamed: appended
	// once it has ended, never between a tool call and its result.
	afterRun []*provider.CustomMessage
	// boundary are custom messages turn_end handlers added, for the next turn.
	boundary []*provider.CustomMessage
	// lastOutcome is how the run's last turn ended (agent_before_settle's outcome); under Session.mu.
	lastOutcome string
}

// userBash asks the extensions about a `!` command.
func (s *Session) userBash(ctx context.Context, command string, exclude bool, onChunk func(string)) (*BashResult, bool, error) {
	h, ok := s.opts.Hooks.(UserBashHook)
	if !ok {
		return nil, false, nil
	}
	return h.UserBash(ctx, command, exclude, s.opts.Cwd, onChunk)
}

// beforeCompact runs session_before_compact: compaction.ErrCancelled when a handler cancelled, or the
// summary a handler supplied.
func (s *Session) beforeCompact(ctx context.Context, prep *compaction.Preparation, instructions, reason string, willRetry bool) (*CompactionResult, error) {
	h, ok := s.opts.Hooks.(CompactionHook)
	if !ok {
		return nil, nil
	}
	cancel, custom := h.BeforeCompact(ctx, CompactionEvent{Preparation: prep, Branch: s.Store().Path(""),
		CustomInstructions: instructions, Reason: reason, WillRetry: willRetry})
	if cancel {
		return nil, compaction.ErrCancelled
	}
	return custom, nil
}

// saveCompaction appends a compaction entry and rebuilds the transcript from it.
func (s *Session) saveCompaction(ctx context.Context, res CompactionResult, fromExtension bool, reason string, willRetry bool) (CompactionResult, error) {
	if ctx.Err() != nil {
		return res, compaction.ErrCancelled
	}
	store := s.Store()
	var details any = res.Details
	if fromExtension && res.Details.ReadFiles == nil && res.Details.ModifiedFiles == nil {
		details = nil // an extension's summary without details has none in the file, as in pi
	}
	id, err := store.AppendCompaction(res.Summary, res.FirstKeptEntryID, res.TokensBefore, details, fromExtension, &res.Usage)
	if err != nil {
		return res, fmt.Errorf("saving the compaction: %w", err)
	}
	s.sync()
	built, err := store.BuildContext()
	if err != nil {
		return res, err
	}
	s.agent.ReplaceMessages(built.Messages)
	for _, m := range built.Messages {
		res.EstimatedTokensAfter += compaction.EstimateTokens(m)
	}
	if h, ok := s.opts.Hooks.(CompactionHook); ok {
		if e := store.Entry(id); e != nil {
			h.Compacted(e, fromExtension, reason, willRetry)
		}
	}
	return res, nil
}

// modelSelected tells the extensions the model changed.
func (s *Session) modelSelected(previous *provider.Model, source string) {
	if h, ok := s.opts.Hooks.(ModelHook); ok {
		if m := s.Model(); m != nil && m != previous {
			h.ModelSelected(m, previous, source)
		}
	}
}

// SendCustomMessage adds an extension's custom message as pi's sendCustomMessage does: deliverAs
// "nextTurn" keeps it for the next prompt; while a run streams it is steered (or queued as a
// follow-up) unless triggerTurn is false, which appends it once the run has ended; when idle,
// triggerTurn starts a run with it, and without it the message is only appended.
//
// It decides at once, so calls keep their order. A run it starts is returned as run (the session is
// busy from the call on): the caller must call it, on its own goroutine, and gets the run's error.
func (s *Session) SendCustomMessage(ctx context.Context, m *provider.CustomMessage, deliverAs string, triggerTurn *bool) (run func() error, err error) {
	if m.Timestamp == 0 {
		m.Timestamp = provider.Now()
	}
	if deliverAs == "nextTurn" {
		s.ext.mu.Lock()
		s.ext.nextTurn = append(s.ext.nextTurn, m)
		s.ext.mu.Unlock()
		return nil, nil
	}
	trigger := triggerTurn != nil && *triggerTurn
	s.mu.Lock()
	streaming := s.busy || s.agent.IsRunning()
	switch {
	case streaming && (triggerTurn == nil || *triggerTurn):
		if deliverAs == "followUp" {
			s.agent.FollowUp(m)
		} else {
			s.agent.Steer(m)
		}
		s.mu.Unlock()
		return nil, nil
	case streaming:
		s.ext.mu.Lock()
		s.ext.afterRun = append(s.ext.afterRun, m)
		s.ext.mu.Unlock()
		s.mu.Unlock()
		return nil, nil
	case !trigger:
		s.mu.Unlock()
		s.appendCustom(m)
		return nil, nil
	}
	if err := s.checkModelLocked(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	opCtx, end := s.beginOperationLocked(ctx)
	s.mu.Unlock()
	return func() error {
		defer func() { s.endRun(opCtx, end, true) }()
		s.flushPendingBash()
		if _, err := s.checkCompaction(opCtx, s.lastAssistantMessage(), true); err != nil {
			return err
		}
		prompt := []provider.Message{m}
		prompt = append(prompt, s.takeNextTurn()...)
		if msgs, ok := s.startRun(opCtx, AgentStart{Custom: m}); ok {
			prompt = append(prompt, msgs...)
		} else if h, ok := s.opts.Hooks.(CustomStartHook); ok {
			msgs, sp := h.BeforeCustomStart(opCtx, m, s.SystemPrompt())
			s.mu.Lock()
			s.runSystemPrompt = sp
			s.mu.Unlock()
			prompt = append(prompt, msgs...)
		}
		// After before_agent_start, as pi: the patch is of the prompt its handlers shaped.
		if patch := s.promptPatch(); patch != nil {
			prompt = append([]provider.Message{patch}, prompt...)
		}
		if err := s.agent.Prompt(opCtx, prompt...); err != nil {
			return err
		}
		return s.afterRun(opCtx)
	}, nil
}

// appendCustom appends a custom message to the transcript and the session now, announced with
// message_start and message_end as pi announces it.
func (s *Session) appendCustom(m *provider.CustomMessage) {
	s.agent.AppendMessage(m)
	s.appendEntry(s.Store().AppendCustomMessageEntry(m))
	s.emit(agentEvent(loop.Event{Type: loop.EventMessageStart, Message: m}))
	s.emit(agentEvent(loop.Event{Type: loop.EventMessageEnd, Message: m}))
}

// takeNextTurn returns (and forgets) the custom messages kept for the next prompt.
func (s *Session) takeNextTurn() []provider.Message {
	s.ext.mu.Lock()
	defer s.ext.mu.Unlock()
	out := s.ext.nextTurn
	s.ext.nextTurn = nil
	return out
}

// flushAfterRun appends the custom messages that waited for the run to end.
func (s *Session) flushAfterRun() {
	s.ext.mu.Lock()
	pending := s.ext.afterRun
	s.ext.afterRun = nil
	s.ext.mu.Unlock()
	for _, m := range pending {
		s.appendCustom(m)
	}
	s.flushBoundaryMessages()
}

// AllTools are the tools that can be made active: the configured ones, the extensions' and those
// that come and go (MCP), without duplicates, in that order.
func (s *Session) AllTools() []loop.Tool {
	s.mu.Lock()
	list := slices.Clone(s.opts.Tools)
	l := s.opts.Loadout
	s.mu.Unlock()
	if l != nil {
		list = append(list, l.Available...)
		if l.Extra != nil {
			list = append(list, l.Extra()...)
		}
	}
	list = append(list, s.agent.Tools()...)
	seen := map[string]bool{}
	out := list[:0:0]
	for _, t := range list {
		if name := t.Definition().Name; !seen[name] {
			seen[name] = true
			out = append(out, t)
		}
	}
	return out
}

// SetActiveTools makes the named tools the active ones (pi's setActiveTools): unknown names are
// ignored, as are tools --tools or --exclude-tools rule out. The next request declares them.
func (s *Session) SetActiveTools(names []string) []string {
	var active []loop.Tool
	var out []string
	allowed := func(string) bool { return true }
	if l := s.opts.Loadout; l != nil && l.Allowed != nil {
		allowed = l.Allowed
	}
	for _, t := range s.AllTools() {
		name := t.Definition().Name
		if slices.Contains(names, name) && allowed(name) {
			active = append(active, t)
			out = append(out, name)
		}
	}
	s.agent.SetTools(active)
	return out
}
