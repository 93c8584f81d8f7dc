package harness

import (
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// Steer queues a message delivered after the current turn's tool calls, before the next model request
// (or right after the next prompt when idle).
func (s *Session) Steer(text string, images []provider.Content) {
	s.mu.Lock()
	s.queueLocked(text, images, false)
	s.mu.Unlock()
	s.emitQueueUpdate()
}

// FollowUp queues a message delivered only when the agent would otherwise stop.
func (s *Session) FollowUp(text string, images []provider.Content) {
	s.mu.Lock()
	s.queueLocked(text, images, true)
	s.mu.Unlock()
	s.emitQueueUpdate()
}

// queueLocked adds a steering or follow-up message to the display queue and the agent's. The caller
// holds s.mu.
func (s *Session) queueLocked(text string, images []provider.Content, followUp bool) {
	m := provider.NewUserMessage(text, images...)
	if followUp {
		s.followUpTexts = append(s.followUpTexts, text)
		s.agent.FollowUp(m)
	} else {
		s.steeringTexts = append(s.steeringTexts, text)
		s.agent.Steer(m)
	}
}

// ClearQueue empties both queues and returns the texts that were waiting (the TUI puts them back into
// the editor).
func (s *Session) ClearQueue() (steering, followUp []string) {
	s.mu.Lock()
	steering, followUp = s.steeringTexts, s.followUpTexts
	s.steeringTexts, s.followUpTexts = nil, nil
	s.mu.Unlock()
	s.agent.ClearAllQueues()
	s.emitQueueUpdate()
	return steering, followUp
}

// SteeringMode is how queued steering messages are delivered.
func (s *Session) SteeringMode() loop.QueueMode { return s.agent.SteeringMode() }

// FollowUpMode is how queued follow-up messages are delivered.
func (s *Session) FollowUpMode() loop.QueueMode { return s.agent.FollowUpMode() }

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
