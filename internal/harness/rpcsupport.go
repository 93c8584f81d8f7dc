package harness

import (
	"context"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// PromptHooks are the two moments of a prompt that pi 0.73.1's RPC mode acts on. Each hook that is set
// is called exactly once, Decided first, both before any event of the run.
type PromptHooks struct {
	// Decided: the session has taken the prompt (its run is starting, or it was queued) or refused it.
	// A prompt or steering message sent after this point is ordered after this one.
	Decided func()
	// Preflight is pi's preflight result: nil once the message was queued or its run is about to start
	// (after any compaction the prompt needs first), or the reason it was refused, which the call
	// then also returns.
	Preflight func(error)
}

// PromptWithHooks is Prompt reporting its preflight through hooks (RPC mode answers a prompt at that
// point while its run goes on). Like Prompt, it returns when the run, its retries and compactions
// have settled; Prompt is this with no hooks.
func (s *Session) PromptWithHooks(ctx context.Context, text string, images []provider.Content,
	behavior StreamingBehavior, hooks PromptHooks) error {
	decided := func() {
		if hooks.Decided != nil {
			hooks.Decided()
		}
	}
	report := func(err error) error {
		if hooks.Preflight != nil {
			hooks.Preflight(err)
		}
		return err
	}
	s.mu.Lock()
	if s.busy || s.agent.IsRunning() {
		s.mu.Unlock()
		switch behavior {
		case BehaviorSteer:
			s.Steer(text, images)
		case BehaviorFollowUp:
			s.FollowUp(text, images)
		default:
			decided()
			return report(ErrBusy)
		}
		decided()
		return report(nil)
	}
	if err := s.checkModelLocked(); err != nil {
		s.mu.Unlock()
		decided()
		return report(err)
	}
	opCtx, end := s.beginOperationLocked(ctx)
	s.mu.Unlock()
	defer end()
	decided()

	s.flushPendingBash()
	if _, err := s.checkCompaction(opCtx, s.lastAssistantMessage(), true); err != nil {
		return report(err)
	}
	s.resetSystemPrompt()
	report(nil)
	if err := s.agent.Prompt(opCtx, provider.NewUserMessage(text, images...)); err != nil {
		return err
	}
	return s.afterRun(opCtx)
}

// SetSteeringMode sets how queued steering messages are delivered and saves the choice in
// settings.json (a failed save is a warning, as in SetAutoRetry). Only an invalid mode is an error.
func (s *Session) SetSteeringMode(mode loop.QueueMode) error {
	if _, err := loop.ParseQueueMode(string(mode)); err != nil {
		return err
	}
	s.agent.SetSteeringMode(mode)
	s.warn(s.opts.Settings.Set("steeringMode", string(mode)))
	return nil
}

// SetFollowUpMode sets how queued follow-up messages are delivered and saves the choice in
// settings.json (a failed save is a warning). Only an invalid mode is an error.
func (s *Session) SetFollowUpMode(mode loop.QueueMode) error {
	if _, err := loop.ParseQueueMode(string(mode)); err != nil {
		return err
	}
	s.agent.SetFollowUpMode(mode)
	s.warn(s.opts.Settings.Set("followUpMode", string(mode)))
	return nil
}
