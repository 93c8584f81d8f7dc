package harness

import (
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// onAgentEvent runs on the loop goroutine for every agent event, before the loop goes on: it keeps the
// display queues, persists messages (so a message is in the file before any listener sees its
// message_end, and before the tools of that message run), and forwards the event.
func (s *Session) onAgentEvent(e loop.Event) {
	switch e.Type {
	case loop.EventMessageStart:
		if u, ok := e.Message.(*provider.UserMessage); ok {
			s.dequeueDisplayed(userText(u))
		}
	case loop.EventMessageEnd:
		s.persist(e.Message)
		if a, ok := e.Message.(*provider.AssistantMessage); ok && a.StopReason == provider.StopReasonToolUse && mutatingCalls(a) {
			s.checkpointBefore(TriggerTool, s.Store().LeafID())
		}
	case loop.EventTurnStart:
		s.checkpointTurnStart()
	case loop.EventTurnEnd:
		s.sync()
	case loop.EventAgentEnd:
		s.checkpointAfter()
		s.sync()
	}
	ev := agentEvent(e)
	if e.Type == loop.EventAgentEnd {
		s.mu.Lock()
		last := s.lastAssistant
		s.mu.Unlock()
		ev.WillRetry = s.willRetry(last)
	}
	s.emit(ev)
	if e.Type == loop.EventMessageEnd {
		s.afterMessageEnd(e.Message)
	}
}

// userText is the text of a user message as the display queues hold it.
func userText(m *provider.UserMessage) string {
	return provider.TextOf(m.Content, "")
}

// dequeueDisplayed removes a delivered steering or follow-up text from the display queues (steering
// first, as pi) and announces the change. Any user message also gives overflow recovery a fresh attempt.
func (s *Session) dequeueDisplayed(text string) {
	s.mu.Lock()
	s.overflowTried = false
	changed := removeFirst(&s.steeringTexts, text) || removeFirst(&s.followUpTexts, text)
	s.mu.Unlock()
	if changed {
		s.emitQueueUpdate()
	}
}

// removeFirst deletes the first occurrence of text from list.
func removeFirst(list *[]string, text string) bool {
	if text == "" {
		return false
	}
	i := indexOf(*list, text)
	if i < 0 {
		return false
	}
	*list = append((*list)[:i:i], (*list)[i+1:]...)
	return true
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// testHookQueueSnapshot, set only by tests, runs between a queue snapshot and its delivery.
var testHookQueueSnapshot func(steering, followUp []string)

// emitQueueUpdate reports the queues as they are now. Two goroutines queueing at once (a steer and a
// follow-up sent back to back) take their snapshots in one order and may reach emit in the other; a
// snapshot older than one already delivered is dropped, so the last queue_update is never stale.
func (s *Session) emitQueueUpdate() {
	s.mu.Lock()
	s.queueSnapshots++
	seq := s.queueSnapshots
	steering, followUp := append([]string(nil), s.steeringTexts...), append([]string(nil), s.followUpTexts...)
	s.mu.Unlock()
	if testHookQueueSnapshot != nil {
		testHookQueueSnapshot(steering, followUp)
	}
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	if seq < s.queueDelivered {
		return
	}
	s.queueDelivered = seq
	s.emitLocked(Event{Type: EventQueueUpdate, Steering: steering, FollowUp: followUp})
}

// persist appends a finished message to the session file as pi does: system, user, assistant and tool
// results as message entries, custom messages as custom_message entries.
func (s *Session) persist(m provider.Message) {
	store := s.Store()
	switch m := m.(type) {
	case *provider.SystemMessage, *provider.UserMessage, *provider.AssistantMessage, *provider.ToolResultMessage:
		s.appendEntry(store.AppendMessage(m))
	case *provider.CustomMessage:
		s.appendEntry(store.AppendCustomMessageEntry(m))
	}
}

func (s *Session) sync() {
	if err := s.Store().Sync(); err != nil {
		s.warn(err)
	}
}

// afterMessageEnd tracks the run's last assistant message and closes a successful retry chain.
func (s *Session) afterMessageEnd(m provider.Message) {
	a, ok := m.(*provider.AssistantMessage)
	if !ok {
		return
	}
	window := 0
	if m := s.limitsModel(s.agent.Model(), a); m != nil {
		window = m.ContextWindow
	}
	// A "successful" answer whose input exceeded the window is a silent overflow: it must not give
	// overflow recovery another attempt, or a server that always truncates would loop forever.
	silentOverflow := a.StopReason != provider.StopReasonError && provider.IsContextOverflow(a, window)
	s.mu.Lock()
	s.lastAssistant = a
	var retried int
	if a.StopReason != provider.StopReasonError {
		// A truncated answer does not end a recovery either (pi 1.6), or a server that always cuts
		// answers short would be compacted and retried forever.
		if !silentOverflow && a.StopReason != provider.StopReasonLength {
			s.overflowTried = false
		}
		if s.retryAttempt > 0 {
			retried = s.retryAttempt
			s.retryAttempt = 0
		}
	}
	s.mu.Unlock()
	if retried > 0 {
		s.emit(Event{Type: EventAutoRetryEnd, Success: true, Attempt: retried})
	}
}
