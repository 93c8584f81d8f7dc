package harness

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/pi-go/pi-go/internal/lazyregexp"
	"github.com/pi-go/pi-go/internal/provider"
)

// retryAfterPattern finds the server's Retry-After that the OpenAI-compatible provider appends to an
// HTTP error message (" (retry after 5s)").
var retryAfterPattern = lazyregexp.New(`\(retry after ([0-9][0-9hms.]*)\)`)

// RetryAfter extracts a server-requested wait from an error message.
func RetryAfter(errorMessage string) (time.Duration, bool) {
	m := retryAfterPattern.FindStringSubmatch(errorMessage)
	if m == nil {
		return 0, false
	}
	d, err := time.ParseDuration(m[1])
	if err != nil || d < 0 {
		return 0, false
	}
	return d, true
}

// retryDelay is pi 1.6's back-off, base × 2^(attempt−1) capped at maxDelay (retry.maxAgentDelayMs),
// raised to the server's Retry-After when it asks for longer (never retry before the server allows
// it: isRetryable refuses waits beyond maxDelay), plus up to 10 % jitter so that many clients hitting
// one rate limit do not retry in lockstep.
func retryDelay(attempt int, base, maxDelay time.Duration, errorMessage string) time.Duration {
	d := maxDelay
	if attempt-1 < 62 && base <= maxDelay>>(attempt-1) {
		d = base << (attempt - 1)
	}
	if after, ok := RetryAfter(errorMessage); ok && after > d {
		d = after
	}
	if d > 0 {
		d += time.Duration(rand.Int64N(int64(d)/10 + 1))
	}
	return d
}

// isRetryable is pi's rule, a transient error that is not a context overflow of the current model,
// plus pi-go's: not when the server asks for a longer wait than maxDelay (the retry would be refused
// again; the provider's message says so).
func (s *Session) isRetryable(m *provider.AssistantMessage, maxDelay time.Duration) bool {
	if !provider.IsRetryable(m) {
		return false
	}
	if after, ok := RetryAfter(m.ErrorMessage); ok && after > maxDelay {
		return false
	}
	window := 0
	if cur := s.limitsModel(s.agent.Model(), m); cur != nil {
		window = cur.ContextWindow
	}
	return !provider.IsContextOverflow(m, window)
}

// willRetry says whether the run that ended with last will be retried automatically (agent_end's
// willRetry, as pi 1.6 computes it): retry on, attempts left, a retryable error.
func (s *Session) willRetry(last *provider.AssistantMessage) bool {
	if last == nil {
		return false
	}
	s.mu.Lock()
	enabled, attempt := s.autoRetry, s.retryAttempt
	s.mu.Unlock()
	settings := s.opts.Settings.Settings()
	return enabled && attempt < settings.MaxRetries() && s.isRetryable(last, settings.MaxAgentDelay())
}

// maybeRetry implements pi's automatic retry for the run that just ended with last. It reports whether
// a new run was started (the caller then looks at that run's outcome).
func (s *Session) maybeRetry(ctx context.Context, last *provider.AssistantMessage) (bool, error) {
	settings := s.opts.Settings.Settings()
	s.mu.Lock()
	enabled := s.autoRetry
	s.mu.Unlock()
	if !enabled || !s.isRetryable(last, settings.MaxAgentDelay()) {
		s.mu.Lock()
		attempt := s.retryAttempt
		s.retryAttempt = 0
		s.mu.Unlock()
		if attempt > 0 && last.StopReason == provider.StopReasonError {
			// A retry ended in an error that is not retryable: the chain is over.
			s.emit(Event{Type: EventAutoRetryEnd, Success: false, Attempt: attempt, FinalError: last.ErrorMessage})
		}
		return false, nil
	}
	maxRetries := settings.MaxRetries()
	s.mu.Lock()
	s.retryAttempt++
	attempt := s.retryAttempt
	if attempt > maxRetries {
		s.retryAttempt = 0
	}
	s.mu.Unlock()
	if attempt > maxRetries {
		s.emit(Event{Type: EventAutoRetryEnd, Success: false, Attempt: maxRetries, FinalError: last.ErrorMessage})
		return false, nil
	}
	delay := retryDelay(attempt, settings.BaseDelay(), settings.MaxAgentDelay(), last.ErrorMessage)
	errText := last.ErrorMessage
	if errText == "" {
		errText = "Unknown error"
	}
	s.emit(Event{Type: EventAutoRetryStart, Attempt: attempt, MaxAttempts: maxRetries,
		DelayMs: delay.Milliseconds(), ErrorMessage: errText})

	// The error stays in the session file but leaves the context the model sees.
	s.omitRecoveryAttempt(last)

	waitCtx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.retryCancel = cancel
	s.mu.Unlock()
	err := s.opts.Sleep(waitCtx, delay)
	cancel()
	s.mu.Lock()
	s.retryCancel = nil
	s.mu.Unlock()
	if err != nil {
		s.mu.Lock()
		s.retryAttempt = 0
		s.mu.Unlock()
		s.emit(Event{Type: EventAutoRetryEnd, Success: false, Attempt: attempt, FinalError: "Retry cancelled"})
		return false, nil
	}
	if err := s.agent.Continue(ctx); err != nil {
		return false, err
	}
	return true, nil
}

// AbortRetry cancels a pending retry wait (RPC abort_retry); the run that failed stays failed.
func (s *Session) AbortRetry() {
	s.mu.Lock()
	cancel := s.retryCancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// omitRecoveryAttempt is pi 1.6's: a failed attempt that is retried or recovered from, and the
// results of its tool calls, stay in the session file but leave the model's context for good: a
// context_edit with replacement null for each (announced as entry_appended, as pi does), so that a
// resumed session does not send them again either (0.73.1 dropped the attempt from memory only). A
// message the session does not hold leaves the transcript all the same.
func (s *Session) omitRecoveryAttempt(msg *provider.AssistantMessage) {
	msgs := s.agent.Messages()
	targets := recoveryAttempt(msgs, msg)
	store := s.Store()
	omit := make(map[provider.Message]bool, len(targets))
	for _, m := range targets {
		omit[m] = true
		target := store.MessageEntryID(m)
		if target == "" {
			continue
		}
		id, err := store.AppendContextEdit(target, nil)
		s.appendEntry(id, err)
		if e := store.Entry(id); e != nil {
			s.emit(Event{Type: EventEntryAppended, Entry: e})
		}
	}
	kept := make([]provider.Message, 0, len(msgs))
	for _, m := range msgs {
		if !omit[m] {
			kept = append(kept, m)
		}
	}
	s.agent.ReplaceMessages(kept)
}

// recoveryAttempt is the failed answer msg and, after it in msgs up to the next answer, the results
// of its tool calls, in transcript order (pi pairs them so no result is left without its call).
func recoveryAttempt(msgs []provider.Message, msg *provider.AssistantMessage) []provider.Message {
	at := slices.IndexFunc(msgs, func(m provider.Message) bool { return m == provider.Message(msg) })
	out := []provider.Message{msg}
	if at < 0 {
		return out
	}
	calls := map[string]bool{}
	for _, c := range msg.ToolCalls() {
		calls[c.ID] = true
	}
	for _, m := range msgs[at+1:] {
		if _, ok := m.(*provider.AssistantMessage); ok {
			break
		}
		if r, ok := m.(*provider.ToolResultMessage); ok && calls[r.ToolCallID] {
			out = append(out, r)
		}
	}
	return out
}
