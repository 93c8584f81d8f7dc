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

// SystemPrompt is the system prompt sent with every request.
func (a *Agent) SystemPrompt() string { a.mu.Lock(); defer a.mu.Unlock(); return a.state.SystemPrompt }

// Tools are the active tools.
func (a *Agent) Tools() []Tool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Tool(nil), a.state.Tools...)
}
