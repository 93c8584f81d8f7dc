package openai

import (
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
)

// Thinking formats: how a server is told whether (and how much) to reason.
const (
	thinkingOpenAI           = "openai"             // reasoning_effort
	thinkingZAI              = "zai"                // enable_thinking
	thinkingQwen             = "qwen"               // enable_thinking
	thinkingQwenChatTemplate = "qwen-chat-template" // chat_template_kwargs.enable_thinking
	thinkingDeepSeek         = "deepseek"           // thinking.type + reasoning_effort
	thinkingOpenRouter       = "openrouter"         // reasoning.effort
)

// compat is the fully resolved set of server quirks for one model.
type compat struct {
	supportsStore                    bool
	supportsDeveloperRole            bool
	supportsReasoningEffort          bool
	supportsUsageInStreaming         bool
	maxTokensField                   string
	requiresToolResultName           bool
	requiresAssistantAfterToolResult bool
	requiresThinkingAsText           bool
	// requiresReasoningContentOnAssistant: DeepSeek wants reasoning_content on every replayed
	// assistant message of a reasoning model (detected only; not a models.json field in pi-go yet).
	requiresReasoningContentOnAssistant bool
	thinkingFormat                      string
	supportsStrictMode                  bool
	// anthropicCacheControl: Anthropic models behind OpenRouter take cache_control markers.
	anthropicCacheControl bool
	reasoningEffortMap    map[string]string
	thinkingLevelMap      map[string]string
}

// detectCompat derives the quirks from the provider name and base URL, as pi 0.73.1 does; everything
// unknown (including local servers) gets OpenAI's behaviour, except two pi 1.6 changes: only OpenAI's
// own API is sent the "developer" role (other hosts' chat templates often reject it, every host takes
// "system"), and strict tool schemas are not assumed (no "strict" field unless compat says so).
func detectCompat(m *provider.Model) compat {
	p, url := m.Provider, m.BaseURL
	isZAI := p == "zai" || strings.Contains(url, "api.z.ai")
	isMoonshot := p == "moonshotai" || p == "moonshotai-cn" || strings.Contains(url, "api.moonshot.")
	isCFWorkers := p == "cloudflare-workers-ai" || strings.Contains(url, "api.cloudflare.com")
	isCFGateway := p == "cloudflare-ai-gateway" || strings.Contains(url, "gateway.ai.cloudflare.com")
	isGrok := p == "xai" || strings.Contains(url, "api.x.ai")
	isDeepSeek := p == "deepseek" || strings.Contains(url, "deepseek.com")
	nonStandard := p == "cerebras" || strings.Contains(url, "cerebras.ai") || isGrok ||
		strings.Contains(url, "chutes.ai") || strings.Contains(url, "deepseek.com") || isZAI || isMoonshot ||
		p == "opencode" || strings.Contains(url, "opencode.ai") || isCFWorkers || isCFGateway
	maxField := "max_completion_tokens"
	if strings.Contains(url, "chutes.ai") || isMoonshot || isCFGateway {
		maxField = "max_tokens"
	}
	format := thinkingOpenAI
	switch {
	case isDeepSeek:
		format = thinkingDeepSeek
	case isZAI:
		format = thinkingZAI
	case p == "openrouter" || strings.Contains(url, "openrouter.ai"):
		format = thinkingOpenRouter
	}
	return compat{
		supportsStore:                       !nonStandard,
		supportsDeveloperRole:               p == "openai" || strings.Contains(url, "api.openai.com"),
		supportsReasoningEffort:             !isGrok && !isZAI && !isMoonshot && !isCFGateway,
		supportsUsageInStreaming:            true,
		maxTokensField:                      maxField,
		requiresReasoningContentOnAssistant: isDeepSeek,
		thinkingFormat:                      format,
		supportsStrictMode:                  false,
		anthropicCacheControl:               p == "openrouter" && strings.HasPrefix(m.ID, "anthropic/"),
	}
}

// resolveCompat applies the model's explicit compat fields over the detected ones.
func resolveCompat(m *provider.Model) compat {
	c := detectCompat(m)
	o := m.Compat
	if o == nil {
		return c
	}
	c.supportsStore = provider.Bool(o.SupportsStore, c.supportsStore)
	c.supportsDeveloperRole = provider.Bool(o.SupportsDeveloperRole, c.supportsDeveloperRole)
	c.supportsReasoningEffort = provider.Bool(o.SupportsReasoningEffort, c.supportsReasoningEffort)
	c.supportsUsageInStreaming = provider.Bool(o.SupportsUsageInStreaming, c.supportsUsageInStreaming)
	c.requiresToolResultName = provider.Bool(o.RequiresToolResultName, c.requiresToolResultName)
	c.requiresAssistantAfterToolResult = provider.Bool(o.RequiresAssistantAfterToolResult, c.requiresAssistantAfterToolResult)
	c.requiresThinkingAsText = provider.Bool(o.RequiresThinkingAsText, c.requiresThinkingAsText)
	c.supportsStrictMode = provider.Bool(o.SupportsStrictMode, c.supportsStrictMode)
	if o.MaxTokensField != "" {
		c.maxTokensField = o.MaxTokensField
	}
	if o.ThinkingFormat != "" {
		c.thinkingFormat = o.ThinkingFormat
	}
	c.reasoningEffortMap = o.ReasoningEffortMap
	c.thinkingLevelMap = o.ThinkingLevelMap
	return c
}

// effectiveLevel is the thinking level to request: none when the call asks for none, else the level
// clamped to what the model supports (pi's clampThinkingLevel, which turns "off" into the lowest level
// of a model that cannot stop thinking).
func effectiveLevel(m *provider.Model, level provider.ThinkingLevel) provider.ThinkingLevel {
	if level == "" {
		return provider.ThinkingOff
	}
	return provider.ClampThinkingLevel(m, level)
}

// effortValue is the value sent for a level: the model's thinking-level map first, then the compat
// maps, else the level's own name.
func effortValue(m *provider.Model, c *compat, level provider.ThinkingLevel) (string, bool) {
	if v, ok := m.ThinkingLevelMap[level]; ok && v != nil {
		return *v, true
	}
	if v, ok := c.thinkingLevelMap[string(level)]; ok {
		return v, true
	}
	if v, ok := c.reasoningEffortMap[string(level)]; ok {
		return v, true
	}
	return string(level), false
}
