package harness

import (
	"context"
	"errors"
	"fmt"

	"github.com/pi-go/pi-go/internal/harness/compaction"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// CompactionResult is what a compaction produced (pi's CompactionResult).
type CompactionResult = compaction.Result

// CompactionDetails lists the files the summarised history read and modified.
type CompactionDetails = compaction.Details

// ContextUsage is how full the context window is (footer, RPC contextUsage).
type ContextUsage = compaction.ContextUsage

// compactionSettings are the compaction settings in force.
func (s *Session) compactionSettings() compaction.Settings {
	st := s.opts.Settings.Settings()
	return compaction.Settings{
		Enabled:          s.AutoCompactionEnabled(),
		ReserveTokens:    st.ReserveTokens(),
		KeepRecentTokens: st.KeepRecentTokens(),
	}
}

// summarizer asks the current model for summaries through the session's stream.
func (s *Session) summarizer(ctx context.Context) (compaction.Summarizer, error) {
	m := s.Model()
	if m == nil {
		return compaction.Summarizer{}, errors.New(NoModelSelectedMessage)
	}
	if !s.opts.HasAuth(m.Provider) {
		return compaction.Summarizer{}, fmt.Errorf("No API key for %s", m.Provider)
	}
	sum := compaction.Summarizer{Stream: s.sendRequest, Model: m, ThinkingLevel: s.ThinkingLevel(), ConvertToLLM: ConvertToLLM}
	if s.opts.RequestAuth != nil {
		key, headers, err := s.opts.RequestAuth(ctx, m)
		if err != nil {
			return sum, err
		}
		sum.APIKey, sum.Headers = key, headers
	}
	return sum, nil
}

// beginCompaction marks a compaction as running and returns its context.
func (s *Session) beginCompaction(ctx context.Context) (context.Context, func()) {
	cctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.compacting = true
	s.compactCancel = cancel
	s.mu.Unlock()
	return cctx, func() {
		cancel()
		s.mu.Lock()
		s.compacting = false
		s.compactCancel = nil
		s.mu.Unlock()
	}
}

// runCompaction summarises the branch and, on success, appends the compaction entry and rebuilds the
// transcript from it. It emits compaction_start and compaction_end, except for an automatic
// (threshold or overflow) compaction that finds nothing to do, which ends quietly, without a request
// and without events (pi 1.6).
func (s *Session) runCompaction(ctx context.Context, reason, instructions string, willRetry bool) (CompactionResult, error) {
	cctx, done := s.beginCompaction(ctx)
	defer done()
	params, prep, err := s.prepareCompaction(cctx, instructions)
	if err != nil && reason != CompactionManual &&
		(errors.Is(err, compaction.ErrNothingToCompact) || errors.Is(err, compaction.ErrAlreadyCompacted)) {
		return CompactionResult{}, err
	}
	s.emit(Event{Type: EventCompactionStart, Reason: reason})
	var res CompactionResult
	fromExtension := false
	if err == nil {
		// session_before_compact may cancel the compaction or supply its summary.
		var custom *CompactionResult
		if custom, err = s.beforeCompact(cctx, prep, instructions, reason, willRetry); err == nil {
			if fromExtension = custom != nil; fromExtension {
				res, err = s.saveCompaction(cctx, *custom, true, reason, willRetry)
			} else {
				res, err = s.finishCompaction(cctx, params, prep, reason, willRetry)
			}
		}
	}
	if err == nil && cctx.Err() != nil {
		err = compaction.ErrCancelled
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			err = compaction.ErrCancelled
		}
		aborted, msg := compaction.EndState(reason, err)
		s.emit(Event{Type: EventCompactionEnd, Reason: reason, Aborted: aborted, ErrorMessage: msg})
		s.compactionFailed(reason, msg, aborted, fromExtension)
		return res, err
	}
	s.emit(Event{Type: EventCompactionEnd, Reason: reason, Result: &res, WillRetry: willRetry})
	return res, nil
}

// prepareCompaction decides what a compaction of the branch summarises and keeps; no request yet.
func (s *Session) prepareCompaction(ctx context.Context, instructions string) (compaction.Params, *compaction.Preparation, error) {
	sum, err := s.summarizer(ctx)
	if err != nil {
		return compaction.Params{}, nil, err
	}
	p := compaction.Params{
		Summarizer:         sum,
		Branch:             s.Store().Path(""),
		Settings:           s.compactionSettings(),
		Limits:             s.compactionLimits(sum.Model),
		CustomInstructions: instructions,
	}
	prep, err := p.Prepare()
	return p, prep, err
}

// finishCompaction asks for the summary, appends the compaction entry and rebuilds the transcript.
func (s *Session) finishCompaction(ctx context.Context, p compaction.Params, prep *compaction.Preparation, reason string, willRetry bool) (CompactionResult, error) {
	res, err := p.Summarize(ctx, prep)
	if err != nil {
		return res, err
	}
	return s.saveCompaction(ctx, res, false, reason, willRetry)
}

// Compact summarises the history now (/compact, RPC compact), after aborting whatever runs. Errors
// carry pi's texts ("Already compacted", "Nothing to compact (session too small)", "Compaction
// cancelled", no model, no key). A branch with fewer than two messages is too small: pi's TUI refuses
// it too, rather than asking a model to summarise nothing.
func (s *Session) Compact(ctx context.Context, instructions string) (CompactionResult, error) {
	s.Abort()
	messages := 0
	for _, e := range s.Store().Path("") {
		if e.Type == session.TypeMessage {
			messages++
		}
	}
	if messages < 2 {
		return CompactionResult{}, compaction.ErrNothingToCompact
	}
	s.mu.Lock()
	if s.busy || s.agent.IsRunning() {
		s.mu.Unlock()
		return CompactionResult{}, ErrBusy
	}
	opCtx, end := s.beginOperationLocked(ctx)
	s.mu.Unlock()
	res, err := s.runCompaction(opCtx, CompactionManual, instructions, false)
	end(false)
	if err == nil && s.agent.HasQueuedMessages() {
		// Messages queued while the compaction ran are delivered now, as after an automatic one.
		go s.deliverQueued()
	}
	return res, err
}

// deliverQueued runs the agent on the queued messages unless another operation has started (which
// delivers them itself). The goroutine belongs to the session: Abort and Close wait for it.
func (s *Session) deliverQueued() {
	if err := s.Continue(context.Background()); err != nil && !errors.Is(err, ErrBusy) {
		s.warn(fmt.Errorf("delivering queued messages: %w", err))
	}
}

// AbortCompaction cancels a running compaction; nothing is written.
func (s *Session) AbortCompaction() {
	s.mu.Lock()
	cancel := s.compactCancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// checkCompaction is pi's automatic compaction check against an assistant message: after a run
// (afterRun) and before a prompt (prePrompt, which also looks at aborted messages). It reports whether
// it started a new run (overflow recovery, or delivering messages queued during the compaction).
func (s *Session) checkCompaction(ctx context.Context, msg *provider.AssistantMessage, prePrompt bool) (bool, error) {
	settings := s.compactionSettings()
	if !settings.Enabled || msg == nil {
		return false, nil
	}
	if !prePrompt && msg.StopReason == provider.StopReasonAborted {
		return false, nil
	}
	m := s.limitsModel(s.Model(), msg)
	if m == nil {
		return false, nil
	}
	branch := s.Store().Path("")
	latest := compaction.LatestCompaction(branch)
	// Usage from before the latest compaction is stale. Only the pre-prompt check can see such a message
	// (a resumed session, a manual /compact): after a run, msg was produced by that run, which started
	// after any compaction, even when both fall in the same millisecond.
	if prePrompt && latest != nil && msg.Timestamp <= latest.Time() {
		return false, nil
	}
	sameModel := msg.Provider == m.Provider && msg.Model == m.ID
	overflow := sameModel && provider.IsContextOverflow(msg, m.ContextWindow)
	// pi 1.6's recoverable length stop: an answer cut off below the model's own output limit was cut
	// by context pressure or the provider, and gets the same compact-and-retry as an overflow.
	recoverableLength := sameModel && msg.StopReason == provider.StopReasonLength && m.MaxTokens > 0 && msg.Usage.Output < m.MaxTokens
	if overflow || recoverableLength {
		if overflow {
			s.learnContextWindow(m, msg)
		}
		if msg.StopReason == provider.StopReasonStop {
			// A complete answer whose input exceeded the window (a server that truncates silently):
			// compact, but keep the answer and do not retry, as pi 1.6 does (there is nothing to
			// continue from a finished answer).
			_, _ = s.runCompaction(ctx, CompactionOverflow, "", false)
			return false, nil
		}
		s.mu.Lock()
		tried := s.overflowTried
		s.overflowTried = true
		s.mu.Unlock()
		if tried {
			text := compaction.OverflowRecoveryFailed
			if !overflow {
				text = compaction.LengthRecoveryFailed
			}
			s.emit(Event{Type: EventCompactionEnd, Reason: CompactionOverflow, ErrorMessage: text})
			s.compactionFailed(CompactionOverflow, text, false, false)
			return false, nil
		}
		s.omitRecoveryAttempt(msg)
		willRetry := !prePrompt
		if _, err := s.runCompaction(ctx, CompactionOverflow, "", willRetry); err != nil {
			// No compaction was written: a failed answer goes back to the end of the transcript (in
			// memory; the file keeps its omission, as pi's does), so that print mode fails with the
			// server's error. A truncated answer stays omitted (pi 1.6 prints nothing then).
			if msg.StopReason == provider.StopReasonError && s.canContinue() {
				s.agent.AppendMessage(msg)
			}
			return false, nil
		}
		if !willRetry || !s.canContinue() {
			return false, nil
		}
		if err := s.agent.Continue(ctx); err != nil {
			return false, err
		}
		return true, nil
	}
	window := s.contextWindow(m)
	if window == m.ContextWindow && s.opts.UnknownContextWindow != nil && s.opts.UnknownContextWindow(m) {
		return false, nil // threshold compaction needs to know the window (a server may have named it)
	}
	tokens, ok := s.thresholdTokens(msg, latest)
	if !ok || !compaction.ShouldCompact(tokens, window, settings) {
		return false, nil
	}
	if _, err := s.runCompaction(ctx, CompactionThreshold, "", false); err != nil {
		return false, nil
	}
	if !prePrompt && s.agent.HasQueuedMessages() {
		if err := s.agent.Continue(ctx); err != nil {
			return false, err
		}
		return true, nil
	}
	return false, nil
}

// prepareNextTurn is the loop's PrepareNextTurn: as pi 1.6 does between the turns of a run, it
// compacts the history when the context the next request would send has crossed the threshold (a
// turn with large tool results, say), so a long run does not wait for an overflow error. The loop
// reads the compacted transcript for that request. A compaction that fails or finds nothing to do
// leaves the run as it is.
func (s *Session) prepareNextTurn(ctx context.Context, _ loop.TurnContext) (loop.NextTurn, error) {
	settings := s.compactionSettings()
	m := s.limitsModel(s.Model(), nil)
	if !settings.Enabled || m == nil {
		return loop.NextTurn{}, nil
	}
	window := s.contextWindow(m)
	if window <= 0 || (window == m.ContextWindow && s.opts.UnknownContextWindow != nil && s.opts.UnknownContextWindow(m)) {
		return loop.NextTurn{}, nil
	}
	est := compaction.EstimateRequestTokens(s.agent.Messages(), s.requestOverhead())
	if compaction.ShouldCompact(est.Tokens, window, settings) {
		_, _ = s.runCompaction(ctx, CompactionThreshold, "", false)
	}
	return loop.NextTurn{}, nil
}

// thresholdTokens is the context size to compare with the threshold: the message's usage, or, for an
// error message or an answer without usage (a server that sends none), an estimate (pi 1.6): from
// the last answer with usage (skipped when that answer predates the latest compaction), else from
// the messages, the system prompt and the tools.
func (s *Session) thresholdTokens(msg *provider.AssistantMessage, latest *session.Entry) (int, bool) {
	if msg.StopReason != provider.StopReasonError && msg.Usage.ContextTokens() > 0 {
		return msg.Usage.ContextTokens(), true
	}
	msgs := s.agent.Messages()
	est := compaction.EstimateRequestTokens(msgs, s.requestOverhead())
	if est.LastUsageIndex >= 0 {
		if a, ok := msgs[est.LastUsageIndex].(*provider.AssistantMessage); ok && latest != nil && a.Timestamp <= latest.Time() {
			return 0, false
		}
	}
	return est.Tokens, true
}

// ContextUsage is how full the context window is; ok is false when the model's window is unknown.
// Without a usage to go by, the estimate counts the system prompt and the tools as well.
func (s *Session) ContextUsage() (ContextUsage, bool) {
	m := s.limitsModel(s.Model(), nil)
	if m == nil {
		return ContextUsage{}, false
	}
	return compaction.ContextUsageOf(s.Store().Path(""), s.agent.Messages(), s.contextWindow(m), s.requestOverhead())
}

// canContinue reports whether the transcript ends with a message the model can answer (a user or tool
// result message, not its own answer).
func (s *Session) canContinue() bool {
	msgs := s.agent.Messages()
	if len(msgs) == 0 {
		return false
	}
	_, isAssistant := msgs[len(msgs)-1].(*provider.AssistantMessage)
	return !isAssistant
}

// lastAssistantMessage is the last assistant message of the transcript, aborted ones included.
func (s *Session) lastAssistantMessage() *provider.AssistantMessage {
	msgs := s.agent.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if a, ok := msgs[i].(*provider.AssistantMessage); ok {
			return a
		}
	}
	return nil
}
