package loop

import (
	"maps"
	"slices"

	"github.com/pi-go/pi-go/internal/provider"
)

// State is the Agent's transcript and runtime state (pi's AgentState).
type State struct {
	// SystemPrompt is what the transcript's system messages replay to (read-only: the prompt changes
	// by system messages; NewAgent turns an initial one into the leading system message).
	SystemPrompt  string
	Model         *provider.Model
	ThinkingLevel provider.ThinkingLevel
	Tools         []Tool
	// Messages is the transcript; it grows at every message_end.
	Messages []provider.Message
	// IsStreaming is true from the start of a run until its agent_end listeners returned.
	IsStreaming bool
	// StreamingMessage is the assistant message between its message_start and message_end.
	StreamingMessage *provider.AssistantMessage
	// PendingToolCalls holds the ids between tool_execution_start and tool_execution_end.
	PendingToolCalls map[string]bool
	// ErrorMessage is the errorMessage of the last failed or aborted turn of the current run.
	ErrorMessage string
}

// streamingAnswer is the assistant message between its message_start and message_end, with the
// provider event that can copy it (the provider keeps changing the message).
type streamingAnswer struct {
	msg *provider.AssistantMessage
	ev  *provider.AssistantEvent
}

func (s streamingAnswer) snapshot() *provider.AssistantMessage {
	if s.ev != nil {
		return s.ev.Snapshot()
	}
	return s.msg
}

// reduce applies an event to the state before subscribers see it. The caller holds a.mu.
func (a *Agent) reduce(ev *Event) {
	switch ev.Type {
	case EventMessageStart, EventMessageUpdate:
		// The streaming answer keeps changing: State copies it when asked.
		a.streaming = streamingAnswer{}
		if am, ok := ev.Message.(*provider.AssistantMessage); ok {
			a.streaming = streamingAnswer{msg: am, ev: ev.AssistantEvent}
		}
	case EventMessageEnd:
		a.streaming = streamingAnswer{}
		a.state.Messages = append(a.state.Messages, ev.Message)
	case EventToolExecutionStart:
		a.state.PendingToolCalls[ev.ToolCallID] = true
	case EventToolExecutionEnd:
		delete(a.state.PendingToolCalls, ev.ToolCallID)
	case EventTurnEnd:
		if am, ok := ev.Message.(*provider.AssistantMessage); ok && am.ErrorMessage != "" {
			a.state.ErrorMessage = am.ErrorMessage
		}
	case EventAgentEnd:
		a.streaming = streamingAnswer{}
	}
}

// State returns a snapshot; its slices and map are copies the caller may keep.
func (a *Agent) State() State {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.state
	s.SystemPrompt = provider.CurrentSystemPrompt(a.state.Messages)
	s.StreamingMessage = a.streaming.snapshot()
	s.Tools = slices.Clone(a.state.Tools)
	s.Messages = slices.Clone(a.state.Messages)
	s.PendingToolCalls = maps.Clone(a.state.PendingToolCalls)
	return s
}

// Messages returns a copy of the transcript.
func (a *Agent) Messages() []provider.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.state.Messages)
}

// requestState is what one LLM request is built from, read afresh for every request.
type requestState struct {
	model     *provider.Model
	thinking  provider.ThinkingLevel
	tools     []Tool
	messages  []provider.Message
	sessionID string
}

func (a *Agent) requestState() requestState {
	a.mu.Lock()
	defer a.mu.Unlock()
	model := a.state.Model
	if model == nil {
		model = &placeholderModel
	}
	return requestState{
		model:     model,
		thinking:  a.state.ThinkingLevel,
		tools:     slices.Clone(a.state.Tools),
		messages:  slices.Clone(a.state.Messages),
		sessionID: a.sessionID,
	}
}

// The setters below never emit events. During a run they take effect at the next request.

// SetModel replaces the model.
func (a *Agent) SetModel(m *provider.Model) { a.mu.Lock(); a.state.Model = m; a.mu.Unlock() }

// SetThinkingLevel replaces the thinking level ("" means off).
func (a *Agent) SetThinkingLevel(l provider.ThinkingLevel) {
	if l == "" {
		l = provider.ThinkingOff
	}
	a.mu.Lock()
	a.state.ThinkingLevel = l
	a.mu.Unlock()
}

// SetTools replaces the tools (the slice is copied).
func (a *Agent) SetTools(tools []Tool) {
	tools = slices.Clone(tools)
	a.mu.Lock()
	a.state.Tools = tools
	a.mu.Unlock()
}

// ReplaceMessages replaces the transcript (the slice is copied).
func (a *Agent) ReplaceMessages(msgs []provider.Message) {
	msgs = slices.Clone(msgs)
	a.mu.Lock()
	a.state.Messages = msgs
	a.mu.Unlock()
}

// AppendMessage adds one message to the transcript.
func (a *Agent) AppendMessage(m provider.Message) {
	a.mu.Lock()
	a.state.Messages = append(a.state.Messages, m)
	a.mu.Unlock()
}

// SetSessionID sets the session id forwarded to providers.
func (a *Agent) SetSessionID(id string) { a.mu.Lock(); a.sessionID = id; a.mu.Unlock() }

// SessionID is the session id forwarded to providers.
func (a *Agent) SessionID() string { a.mu.Lock(); defer a.mu.Unlock(); return a.sessionID }

// SetToolExecution switches tool batches between parallel and sequential from the next batch on.
func (a *Agent) SetToolExecution(m ExecutionMode) { a.mu.Lock(); a.toolExecution = m; a.mu.Unlock() }

// SetSteeringMode changes how many steering messages a poll takes (anything but "all" is
// one-at-a-time); a running loop uses it from its next poll.
func (a *Agent) SetSteeringMode(m QueueMode) {
	a.mu.Lock()
	a.steering.mode = normaliseMode(m)
	a.mu.Unlock()
}

// SetFollowUpMode changes how many follow-up messages a poll takes.
func (a *Agent) SetFollowUpMode(m QueueMode) {
	a.mu.Lock()
	a.followUp.mode = normaliseMode(m)
	a.mu.Unlock()
}

// SteeringMode is the steering queue's mode.
func (a *Agent) SteeringMode() QueueMode { a.mu.Lock(); defer a.mu.Unlock(); return a.steering.mode }

// FollowUpMode is the follow-up queue's mode.
func (a *Agent) FollowUpMode() QueueMode { a.mu.Lock(); defer a.mu.Unlock(); return a.followUp.mode }

// ClearSteeringQueue drops every queued steering message.
func (a *Agent) ClearSteeringQueue() { a.mu.Lock(); a.steering.clear(); a.mu.Unlock() }

// ClearFollowUpQueue drops every queued follow-up message.
func (a *Agent) ClearFollowUpQueue() { a.mu.Lock(); a.followUp.clear(); a.mu.Unlock() }

// ClearAllQueues empties both queues and returns what they held, in queue order.
func (a *Agent) ClearAllQueues() (steering, followUp []provider.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.steering.clear(), a.followUp.clear()
}

// QueuedMessages returns copies of both queues without changing them.
func (a *Agent) QueuedMessages() (steering, followUp []provider.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.steering.items), slices.Clone(a.followUp.items)
}

// HasQueuedMessages reports whether either queue holds a message.
func (a *Agent) HasQueuedMessages() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.steering.items) > 0 || len(a.followUp.items) > 0
}

// Reset clears the transcript, the streaming state, the error and both queues. The model, thinking
// level and tools stay, and so does the prompt and tool baseline: the transcript keeps one system
// message, the replay of those it had.
func (a *Agent) Reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	baseline := provider.CurrentSystemMessage(a.state.Messages)
	a.state.Messages = nil
	if baseline != nil {
		a.state.Messages = []provider.Message{baseline}
	}
	a.state.IsStreaming = false
	a.streaming = streamingAnswer{}
	a.state.PendingToolCalls = map[string]bool{}
	a.state.ErrorMessage = ""
	a.steering.clear()
	a.followUp.clear()
}
