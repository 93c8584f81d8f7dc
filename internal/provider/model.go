package provider

import "fmt"

// The wire APIs a model can speak: its api field, as pi's models.json names them. Each has one package
// under provider/ that the Router sends its requests to.
const (
	APIOpenAICompletions  = "openai-completions"   // OpenAI-compatible chat completions (provider/openai)
	APIAnthropicMessages  = "anthropic-messages"   // Anthropic Messages (provider/anthropic)
	APIOpenAIResponses    = "openai-responses"     // OpenAI Responses (provider/responses)
	APIGoogleGenerativeAI = "google-generative-ai" // Google Gemini (provider/google)
)

// SpokenAPIs lists the APIs pi-go has a package for, in the order messages name them.
var SpokenAPIs = []string{APIOpenAICompletions, APIAnthropicMessages, APIOpenAIResponses, APIGoogleGenerativeAI}

// SpeaksAPI reports whether pi-go has a package for api.
func SpeaksAPI(api string) bool {
	for _, a := range SpokenAPIs {
		if a == api {
			return true
		}
	}
	return false
}

// Model describes one model of one provider. The JSON form is pi's (get_state, get_available_models,
// models.json).
type Model struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	API       string `json:"api"`
	Provider  string `json:"provider"`
	BaseURL   string `json:"baseUrl"`
	Reasoning bool   `json:"reasoning"`
	// ThinkingLevelMap (pi 0.73.1, model level) maps a thinking level to the value the server expects;
	// a level absent from the map is sent under its own name, a null value marks the level unsupported,
	// and xhigh and max are offered only when they are mapped (see SupportedThinkingLevels).
	ThinkingLevelMap map[ThinkingLevel]*string `json:"thinkingLevelMap,omitempty"`
	Input            []string                  `json:"input"`
	Cost             ModelCost                 `json:"cost"`
	ContextWindow    int                       `json:"contextWindow"`
	MaxTokens        int                       `json:"maxTokens"`
	Headers          map[string]string         `json:"headers,omitempty"`
	Compat           *Compat                   `json:"compat,omitempty"`
}

// ModelCost is the price in USD per million tokens.
type ModelCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// SupportsImages reports whether the model accepts image input.
func (m *Model) SupportsImages() bool {
	for _, in := range m.Input {
		if in == "image" {
			return true
		}
	}
	return false
}

// String is "provider/id".
func (m *Model) String() string { return m.Provider + "/" + m.ID }

// Compat holds the per-server quirks of OpenAI-compatible endpoints. nil fields mean "detect from the
// provider and base URL" (pi-reference §1.8).
type Compat struct {
	SupportsStore                    *bool             `json:"supportsStore,omitempty"`
	SupportsDeveloperRole            *bool             `json:"supportsDeveloperRole,omitempty"`
	SupportsReasoningEffort          *bool             `json:"supportsReasoningEffort,omitempty"`
	ReasoningEffortMap               map[string]string `json:"reasoningEffortMap,omitempty"`
	ThinkingLevelMap                 map[string]string `json:"thinkingLevelMap,omitempty"`
	SupportsUsageInStreaming         *bool             `json:"supportsUsageInStreaming,omitempty"`
	MaxTokensField                   string            `json:"maxTokensField,omitempty"`
	RequiresToolResultName           *bool             `json:"requiresToolResultName,omitempty"`
	RequiresAssistantAfterToolResult *bool             `json:"requiresAssistantAfterToolResult,omitempty"`
	RequiresThinkingAsText           *bool             `json:"requiresThinkingAsText,omitempty"`
	ThinkingFormat                   string            `json:"thinkingFormat,omitempty"`
	SupportsStrictMode               *bool             `json:"supportsStrictMode,omitempty"`
	SupportsXHigh                    *bool             `json:"supportsXhigh,omitempty"`

	// Anthropic Messages (pi 1.6's anthropic-messages compat; nil: pi's default).
	ForceAdaptiveThinking           *bool           `json:"forceAdaptiveThinking,omitempty"`
	SupportsStrictTools             *bool           `json:"supportsStrictTools,omitempty"`
	SupportsTemperature             *bool           `json:"supportsTemperature,omitempty"`
	SupportsEagerToolInputStreaming *bool           `json:"supportsEagerToolInputStreaming,omitempty"`
	SupportsLongCacheRetention      *bool           `json:"supportsLongCacheRetention,omitempty"`
	SupportsCacheControlOnTools     *bool           `json:"supportsCacheControlOnTools,omitempty"`
	AllowEmptySignature             *bool           `json:"allowEmptySignature,omitempty"`
	SupportsMidConvoEffort          *bool           `json:"supportsMidConvoEffort,omitempty"`
	SupportsMidConvoSystemMessages  *bool           `json:"supportsMidConvoSystemMessages,omitempty"`
	SupportsMidConvoToolChanges     *bool           `json:"supportsMidConvoToolChanges,omitempty"`
	AllowedFallbackModels           []FallbackModel `json:"allowedFallbackModels,omitempty"`
}

// FallbackModel is a model Anthropic may answer with instead of the one asked for (server-side
// fallback), with its own prices.
type FallbackModel struct {
	Provider string    `json:"provider"`
	Model    string    `json:"model"`
	Cost     ModelCost `json:"cost"`
}

// Merge returns c with the fields set in over replacing its own (model-level compat over
// provider-level compat). Either may be nil.
func (c *Compat) Merge(over *Compat) *Compat {
	if c == nil && over == nil {
		return nil
	}
	out := Compat{}
	if c != nil {
		out = *c
	}
	if over == nil {
		return &out
	}
	pick := func(dst **bool, v *bool) {
		if v != nil {
			*dst = v
		}
	}
	pick(&out.SupportsStore, over.SupportsStore)
	pick(&out.SupportsDeveloperRole, over.SupportsDeveloperRole)
	pick(&out.SupportsReasoningEffort, over.SupportsReasoningEffort)
	pick(&out.SupportsUsageInStreaming, over.SupportsUsageInStreaming)
	pick(&out.RequiresToolResultName, over.RequiresToolResultName)
	pick(&out.RequiresAssistantAfterToolResult, over.RequiresAssistantAfterToolResult)
	pick(&out.RequiresThinkingAsText, over.RequiresThinkingAsText)
	pick(&out.SupportsStrictMode, over.SupportsStrictMode)
	pick(&out.SupportsXHigh, over.SupportsXHigh)
	pick(&out.ForceAdaptiveThinking, over.ForceAdaptiveThinking)
	pick(&out.SupportsStrictTools, over.SupportsStrictTools)
	pick(&out.SupportsTemperature, over.SupportsTemperature)
	pick(&out.SupportsEagerToolInputStreaming, over.SupportsEagerToolInputStreaming)
	pick(&out.SupportsLongCacheRetention, over.SupportsLongCacheRetention)
	pick(&out.SupportsCacheControlOnTools, over.SupportsCacheControlOnTools)
	pick(&out.AllowEmptySignature, over.AllowEmptySignature)
	pick(&out.SupportsMidConvoEffort, over.SupportsMidConvoEffort)
	pick(&out.SupportsMidConvoSystemMessages, over.SupportsMidConvoSystemMessages)
	pick(&out.SupportsMidConvoToolChanges, over.SupportsMidConvoToolChanges)
	if over.AllowedFallbackModels != nil {
		out.AllowedFallbackModels = over.AllowedFallbackModels
	}
	if over.ReasoningEffortMap != nil {
		out.ReasoningEffortMap = over.ReasoningEffortMap
	}
	if over.ThinkingLevelMap != nil {
		out.ThinkingLevelMap = over.ThinkingLevelMap
	}
	if over.MaxTokensField != "" {
		out.MaxTokensField = over.MaxTokensField
	}
	if over.ThinkingFormat != "" {
		out.ThinkingFormat = over.ThinkingFormat
	}
	return &out
}

// Bool returns *p, or def when p is nil.
func Bool(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// Ptr returns a pointer to v (for compat literals).
func Ptr[T any](v T) *T { return &v }

// ThinkingLevel is how much reasoning is requested; "off" sends no reasoning option.
type ThinkingLevel string

const (
	ThinkingOff     ThinkingLevel = "off"
	ThinkingMinimal ThinkingLevel = "minimal"
	ThinkingLow     ThinkingLevel = "low"
	ThinkingMedium  ThinkingLevel = "medium"
	ThinkingHigh    ThinkingLevel = "high"
	ThinkingXHigh   ThinkingLevel = "xhigh"
	// ThinkingMax (pi 0.80.6) is above xhigh, for the models that map it.
	ThinkingMax ThinkingLevel = "max"
)

// ThinkingLevels lists every level in increasing order.
var ThinkingLevels = []ThinkingLevel{ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh, ThinkingXHigh, ThinkingMax}

// ParseThinkingLevel validates a level name.
func ParseThinkingLevel(s string) (ThinkingLevel, error) {
	for _, l := range ThinkingLevels {
		if string(l) == s {
			return l, nil
		}
	}
	return "", fmt.Errorf("invalid thinking level %q (valid: off, minimal, low, medium, high, xhigh, max)", s)
}
