package demo

import "github.com/pi-go/pi-go/internal/provider"

// Identity of the demo model.
const (
	ProviderName = "demo"
	ModelID      = "pi-go-demo"
	ModelName    = "Offline demo (scripted, no network)"
	// BaseURL is never dialled: HTTPClient answers every request itself. The .invalid TLD (RFC 2606)
	// guarantees that a misrouted request fails to resolve instead of reaching someone's server.
	BaseURL = "http://demo.pi-go.invalid/v1"
)

// Hint is the one line shown beside the demo model telling the user how to configure a real one.
const Hint = "Offline demo model (scripted answers). For a real model: export ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, " +
	"or pi --base-url http://localhost:11434/v1 --model <id> for any OpenAI-compatible server, " +
	"or add a provider to ~/.pi/agent/models.json."

// Model describes the demo model. It is a reasoning model so that the thinking level can be cycled and
// the thinking display demonstrated: the demo streams a short reasoning_content passage whenever the
// request asks for reasoning (reasoning_effort, enable_thinking), and none when thinking is off. It
// accepts images so that an attached image reaches it (it says it cannot look at them). Every call
// returns a fresh value the caller may modify.
func Model() *provider.Model {
	return &provider.Model{
		ID:            ModelID,
		Name:          ModelName,
		API:           provider.APIOpenAICompletions,
		Provider:      ProviderName,
		BaseURL:       BaseURL,
		Reasoning:     true,
		Input:         []string{"text", "image"},
		Cost:          provider.ModelCost{},
		ContextWindow: 128000,
		MaxTokens:     16384,
	}
}
