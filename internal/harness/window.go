package harness

import (
	"github.com/pi-go/pi-go/internal/harness/compaction"
	"github.com/pi-go/pi-go/internal/provider"
)

// reportedWindow is a context window a server named in an overflow error, for one model.
type reportedWindow struct {
	provider, model string
	tokens          int
}

// overheadCache remembers the estimate of the system prompt and tools: the footer asks for it every
// frame while no answer has reported a usage.
type overheadCache struct {
	valid  bool
	prompt string
	tools  int
	tokens int
}

// learnContextWindow remembers the window an overflow error of msg names when it is smaller than the
// model's: a model registered (or guessed, for a --base-url server) with 128k tokens whose server has
// 8k compacts for 8k from then on.
func (s *Session) learnContextWindow(m *provider.Model, msg *provider.AssistantMessage) {
	w, ok := provider.ReportedContextWindow(msg)
	if !ok || (m.ContextWindow > 0 && w >= m.ContextWindow) {
		return
	}
	s.mu.Lock()
	s.reported = reportedWindow{provider: m.Provider, model: m.ID, tokens: w}
	s.mu.Unlock()
}

// contextWindow is the window compaction works with for m: the model's, or the smaller one its server
// reported.
func (s *Session) contextWindow(m *provider.Model) int {
	s.mu.Lock()
	r := s.reported
	s.mu.Unlock()
	if r.tokens > 0 && r.provider == m.Provider && r.model == m.ID {
		return r.tokens
	}
	return m.ContextWindow
}

// requestOverhead estimates what every request carries besides the messages: the system prompt and
// the tool definitions the next prompt declares.
func (s *Session) requestOverhead() int {
	prompt := s.SystemPrompt()
	tools := s.agent.Tools()
	s.mu.Lock()
	c := s.overhead
	s.mu.Unlock()
	if c.valid && c.prompt == prompt && c.tools == len(tools) {
		return c.tokens
	}
	defs := make([]provider.ToolDefinition, len(tools))
	for i, t := range tools {
		defs[i] = t.Definition()
	}
	c = overheadCache{valid: true, prompt: prompt, tools: len(tools), tokens: compaction.OverheadTokens(prompt, defs)}
	s.mu.Lock()
	s.overhead = c
	s.mu.Unlock()
	return c.tokens
}

// compactionLimits are the limits of the requests a compaction for m makes room in.
func (s *Session) compactionLimits(m *provider.Model) compaction.Limits {
	return compaction.Limits{ContextWindow: s.contextWindow(m), Overhead: s.requestOverhead()}
}
