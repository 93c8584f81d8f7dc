package harness

import (
	"context"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// PromptWithPreflight is Prompt with a report of its preflight, as pi 0.73.1's RPC mode needs it:
// preflight is called exactly once, with nil when the message was queued (a run is active and a
// behaviour was given) or its run is about to start, or with the reason it was rejected. It runs
// before any event of the run, so a response written from it precedes agent_start. Like Prompt, the
// call returns when the run, its retries and compactions have settled.
func (s *Session) PromptWithPreflight(ctx context.Context, text string, images []provider.Content,
	behavior StreamingBehavior, preflight func(error)) error {
	report := func(err error) error {
		if preflight != nil {
			preflight(err)
		}
		return err
	}
	s.mu.Lock()
	if s.busy || s.agent.IsRunning() {
		s.mu.Unlock()
		switch behavior {
		case BehaviorSteer:
			s.Steer(text, images)
			return report(nil)
		case BehaviorFollowUp:
			s.FollowUp(text, images)
			return report(nil)
		}
		return report(ErrBusy)
	}
	if err := s.checkModelLocked(); err != nil {
		s.mu.Unlock()
		return report(err)
	}
	s.busy = true
	opCtx, cancel := context.WithCancel(ctx)
	s.opCancel = cancel
	s.mu.Unlock()
	defer s.endOperation(cancel)

	s.flushPendingBash()
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
