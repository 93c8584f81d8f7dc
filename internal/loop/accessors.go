package loop

import "github.com/pi-go/pi-go/internal/provider"

// Cheap reads of single state fields: State() copies the transcript, which callers that only want the
// model (a footer drawn every frame, say) should not pay for.

// Model is the current model (nil when none).
func (a *Agent) Model() *provider.Model { a.mu.Lock(); defer a.mu.Unlock(); return a.state.Model }

// ThinkingLevel is the current thinking level.
func (a *Agent) ThinkingLevel() provider.ThinkingLevel {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.state.ThinkingLevel
}

// SystemPrompt is the prompt the transcript's system messages replay to: the one the next request
// sends, unless a system message comes first.
func (a *Agent) SystemPrompt() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return provider.CurrentSystemPrompt(a.state.Messages)
}

// Tools are the active tools.
func (a *Agent) Tools() []Tool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Tool(nil), a.state.Tools...)
}

// SystemMessage is the replay of the transcript's system messages: the prompt sections and the tools
// the next request declares, unless a system message comes first. nil when there is none.
func (a *Agent) SystemMessage() *provider.SystemMessage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return provider.CurrentSystemMessage(a.state.Messages)
}
