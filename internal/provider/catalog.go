package provider

import "strings"

// BuiltinProvider is a model host pi-go knows out of the box. Names, base URLs and key variables are
// pi's (model-resolver.js, env-api-keys.js); the default models of anthropic, openai and google are
// pi 1.6's.
type BuiltinProvider struct {
	Name         string // "openai": the provider field of its models and of session entries
	DisplayName  string // "OpenAI"
	BaseURL      string
	APIKeyEnv    string // the environment variable holding its key
	DefaultModel string // the model pi picks for it when nothing else is chosen
	// API is the wire API of its models (a catalogue model may name its own).
	API string
}

// BuiltinProviders lists the built-in providers in pi 1.6's default-model order: when no model is
// configured, the first available provider of this list supplies its default model.
func BuiltinProviders() []BuiltinProvider {
	return []BuiltinProvider{
		{"anthropic", "Anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY", "claude-opus-5-5", APIAnthropicMessages},
		{"openai", "OpenAI", "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-6.2-sol", APIOpenAIResponses},
		{"deepseek", "DeepSeek", "https://api.deepseek.com", "DEEPSEEK_API_KEY", "deepseek-v4-pro", APIOpenAICompletions},
		{"google", "Google", "https://generativelanguage.googleapis.com/v1beta", "GEMINI_API_KEY", "gemini-4-argon", APIGoogleGenerativeAI},
		{"openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "moonshotai/kimi-k2.6", APIOpenAICompletions},
		{"xai", "xAI", "https://api.x.ai/v1", "XAI_API_KEY", "grok-4.20-0309-reasoning", APIOpenAICompletions},
		{"groq", "Groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", "openai/gpt-oss-120b", APIOpenAICompletions},
		{"cerebras", "Cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY", "zai-glm-4.7", APIOpenAICompletions},
		// pi talks to Mistral through its own SDK; pi-go uses Mistral's OpenAI-compatible endpoint, as pi
		// did before 0.56.
		{"mistral", "Mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", "devstral-medium-latest", APIOpenAICompletions},
	}
}

// AnthropicAuthTokenEnv holds an OAuth-style bearer token for Anthropic; pi prefers it to
// ANTHROPIC_API_KEY and sends it as "Authorization: Bearer".
const AnthropicAuthTokenEnv = "ANTHROPIC_AUTH_TOKEN"

// LookupBuiltinProvider finds a built-in provider by its exact name.
func LookupBuiltinProvider(name string) (BuiltinProvider, bool) {
	for _, p := range BuiltinProviders() {
		if p.Name == name {
			return p, true
		}
	}
	return BuiltinProvider{}, false
}

// APIKeyEnvVar is the environment variable that holds the key of a built-in provider ("" for others).
func APIKeyEnvVar(provider string) string {
	p, _ := LookupBuiltinProvider(provider)
	return p.APIKeyEnv
}

// DefaultModelID is the default model of a built-in provider ("" for others).
func DefaultModelID(provider string) string {
	p, _ := LookupBuiltinProvider(provider)
	return p.DefaultModel
}

// ProviderDisplayName is the human name of a provider: the built-in display name, or the name itself.
func ProviderDisplayName(provider string) string {
	if p, ok := LookupBuiltinProvider(provider); ok {
		return p.DisplayName
	}
	return provider
}

// builtinModelOrder is the order of providers in the model list: pi lists built-in providers
// alphabetically (the key order of its generated catalogue), models by id within each.
func builtinModelOrder() []string {
	return []string{"anthropic", "cerebras", "deepseek", "google", "groq", "mistral", "openai", "openrouter", "xai"}
}

// BuiltinModels returns a fresh copy of every built-in model, in pi's order, each with its provider's
// API unless it names its own. Callers may modify the result.
func BuiltinModels() []Model {
	var out []Model
	for _, name := range builtinModelOrder() {
		p, _ := LookupBuiltinProvider(name)
		for _, m := range catalogModels(name) {
			m.Provider = p.Name
			if m.API == "" {
				m.API = p.API
			}
			m.BaseURL = p.BaseURL
			m.Compat = providerCompat(name).Merge(m.Compat)
			out = append(out, m)
		}
	}
	return out
}

// BuiltinModel returns a copy of one built-in model.
func BuiltinModel(provider, id string) (Model, bool) {
	for _, m := range BuiltinModels() {
		if m.Provider == provider && m.ID == id {
			return m, true
		}
	}
	return Model{}, false
}

// providerCompat is the compat a provider's built-in models need beyond what the OpenAI-compatible
// provider detects from the base URL (nil: detection suffices).
func providerCompat(provider string) *Compat {
	if provider == "mistral" {
		// Mistral's chat completions reject store and the developer role, count output with
		// max_tokens, want the tool name on tool results and no thinking blocks on the way back.
		return &Compat{
			SupportsStore:           Ptr(false),
			SupportsDeveloperRole:   Ptr(false),
			SupportsReasoningEffort: Ptr(false),
			MaxTokensField:          "max_tokens",
			RequiresToolResultName:  Ptr(true),
			RequiresThinkingAsText:  Ptr(true),
		}
	}
	return nil
}

func textOnly() []string  { return []string{"text"} }
func textImage() []string { return []string{"text", "image"} }

// levelMap builds a ThinkingLevelMap from "level=value" pairs; the value null marks a level the
// model does not support.
func levelMap(spec string) map[ThinkingLevel]*string {
	out := map[ThinkingLevel]*string{}
	for _, pair := range strings.Fields(spec) {
		level, value, _ := strings.Cut(pair, "=")
		if value == "null" {
			out[ThinkingLevel(level)] = nil
		} else {
			out[ThinkingLevel(level)] = Ptr(value)
		}
	}
	return out
}

// mistralEffort is the map for the Mistral models that take reasoning_effort: like pi's Mistral
// provider, every level is sent as "high" (the only effort they accept besides none).
const mistralEffort = "minimal=high low=high medium=high high=high"

// catalogModels is the built-in model table of one provider, from pi 0.73.1's models.generated.js
// (a curated subset for OpenAI, which lacks the Responses-only models, and for OpenRouter).
func catalogModels(provider string) []Model {
	if models := nativeCatalogModels(provider); models != nil {
		return models
	}
	switch provider {
	case "cerebras":
		return []Model{
			{ID: "gpt-oss-120b", Name: "GPT OSS 120B", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 32768, Cost: ModelCost{0.25, 0.69, 0, 0}},
			{ID: "llama3.1-8b", Name: "Llama 3.1 8B", Input: textOnly(), ContextWindow: 32000, MaxTokens: 8000, Cost: ModelCost{0.1, 0.1, 0, 0}},
			{ID: "qwen-3-235b-a22b-instruct-2507", Name: "Qwen 3 235B Instruct", Input: textOnly(), ContextWindow: 131000, MaxTokens: 32000, Cost: ModelCost{0.6, 1.2, 0, 0}},
			{ID: "zai-glm-4.7", Name: "Z.AI GLM-4.7", Input: textOnly(), ContextWindow: 131072, MaxTokens: 40000, Cost: ModelCost{2.25, 2.75, 0, 0}},
		}
	case "deepseek":
		return []Model{
			{ID: "deepseek-v4-flash", Name: "DeepSeek V4 Flash", Reasoning: true, ThinkingLevelMap: levelMap("minimal=null low=null medium=null high=high xhigh=max"), Input: textOnly(), ContextWindow: 1000000, MaxTokens: 384000, Cost: ModelCost{0.14, 0.28, 0.0028, 0}, Compat: &Compat{ThinkingFormat: "deepseek"}},
			{ID: "deepseek-v4-pro", Name: "DeepSeek V4 Pro", Reasoning: true, ThinkingLevelMap: levelMap("minimal=null low=null medium=null high=high xhigh=max"), Input: textOnly(), ContextWindow: 1000000, MaxTokens: 384000, Cost: ModelCost{0.435, 0.87, 0.003625, 0}, Compat: &Compat{ThinkingFormat: "deepseek"}},
		}
	case "groq":
		return []Model{
			{ID: "deepseek-r1-distill-llama-70b", Name: "DeepSeek R1 Distill Llama 70B", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{0.75, 0.99, 0, 0}},
			{ID: "gemma2-9b-it", Name: "Gemma 2 9B", Input: textOnly(), ContextWindow: 8192, MaxTokens: 8192, Cost: ModelCost{0.2, 0.2, 0, 0}},
			{ID: "groq/compound", Name: "Compound", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{0, 0, 0, 0}},
			{ID: "groq/compound-mini", Name: "Compound Mini", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{0, 0, 0, 0}},
			{ID: "llama-3.1-8b-instant", Name: "Llama 3.1 8B Instant", Input: textOnly(), ContextWindow: 131072, MaxTokens: 131072, Cost: ModelCost{0.05, 0.08, 0, 0}},
			{ID: "llama-3.3-70b-versatile", Name: "Llama 3.3 70B Versatile", Input: textOnly(), ContextWindow: 131072, MaxTokens: 32768, Cost: ModelCost{0.59, 0.79, 0, 0}},
			{ID: "llama3-70b-8192", Name: "Llama 3 70B", Input: textOnly(), ContextWindow: 8192, MaxTokens: 8192, Cost: ModelCost{0.59, 0.79, 0, 0}},
			{ID: "llama3-8b-8192", Name: "Llama 3 8B", Input: textOnly(), ContextWindow: 8192, MaxTokens: 8192, Cost: ModelCost{0.05, 0.08, 0, 0}},
			{ID: "meta-llama/llama-4-maverick-17b-128e-instruct", Name: "Llama 4 Maverick 17B", Input: textImage(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{0.2, 0.6, 0, 0}},
			{ID: "meta-llama/llama-4-scout-17b-16e-instruct", Name: "Llama 4 Scout 17B", Input: textImage(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{0.11, 0.34, 0, 0}},
			{ID: "mistral-saba-24b", Name: "Mistral Saba 24B", Input: textOnly(), ContextWindow: 32768, MaxTokens: 32768, Cost: ModelCost{0.79, 0.79, 0, 0}},
			{ID: "moonshotai/kimi-k2-instruct", Name: "Kimi K2 Instruct", Input: textOnly(), ContextWindow: 131072, MaxTokens: 16384, Cost: ModelCost{1, 3, 0, 0}},
			{ID: "moonshotai/kimi-k2-instruct-0905", Name: "Kimi K2 Instruct 0905", Input: textOnly(), ContextWindow: 262144, MaxTokens: 16384, Cost: ModelCost{1, 3, 0, 0}},
			{ID: "openai/gpt-oss-120b", Name: "GPT OSS 120B", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 65536, Cost: ModelCost{0.15, 0.6, 0, 0}},
			{ID: "openai/gpt-oss-20b", Name: "GPT OSS 20B", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 65536, Cost: ModelCost{0.075, 0.3, 0, 0}},
			{ID: "openai/gpt-oss-safeguard-20b", Name: "Safety GPT OSS 20B", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 65536, Cost: ModelCost{0.075, 0.3, 0.037, 0}},
			{ID: "qwen-qwq-32b", Name: "Qwen QwQ 32B", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 16384, Cost: ModelCost{0.29, 0.39, 0, 0}},
			{ID: "qwen/qwen3-32b", Name: "Qwen3 32B", Reasoning: true, ThinkingLevelMap: levelMap("minimal=null low=null medium=null high=default"), Input: textOnly(), ContextWindow: 131072, MaxTokens: 40960, Cost: ModelCost{0.29, 0.59, 0, 0}},
		}
	case "mistral":
		return []Model{
			{ID: "codestral-latest", Name: "Codestral (latest)", Input: textOnly(), ContextWindow: 256000, MaxTokens: 4096, Cost: ModelCost{0.3, 0.9, 0, 0}},
			{ID: "devstral-2512", Name: "Devstral 2", Input: textOnly(), ContextWindow: 262144, MaxTokens: 262144, Cost: ModelCost{0.4, 2, 0, 0}},
			{ID: "devstral-medium-2507", Name: "Devstral Medium", Input: textOnly(), ContextWindow: 128000, MaxTokens: 128000, Cost: ModelCost{0.4, 2, 0, 0}},
			{ID: "devstral-medium-latest", Name: "Devstral 2 (latest)", Input: textOnly(), ContextWindow: 262144, MaxTokens: 262144, Cost: ModelCost{0.4, 2, 0, 0}},
			{ID: "devstral-small-2505", Name: "Devstral Small 2505", Input: textOnly(), ContextWindow: 128000, MaxTokens: 128000, Cost: ModelCost{0.1, 0.3, 0, 0}},
			{ID: "devstral-small-2507", Name: "Devstral Small", Input: textOnly(), ContextWindow: 128000, MaxTokens: 128000, Cost: ModelCost{0.1, 0.3, 0, 0}},
			{ID: "labs-devstral-small-2512", Name: "Devstral Small 2", Input: textImage(), ContextWindow: 256000, MaxTokens: 256000, Cost: ModelCost{0, 0, 0, 0}},
			{ID: "magistral-medium-latest", Name: "Magistral Medium (latest)", Reasoning: true, Input: textOnly(), ContextWindow: 128000, MaxTokens: 16384, Cost: ModelCost{2, 5, 0, 0}},
			{ID: "magistral-small", Name: "Magistral Small", Reasoning: true, Input: textOnly(), ContextWindow: 128000, MaxTokens: 128000, Cost: ModelCost{0.5, 1.5, 0, 0}},
			{ID: "ministral-3b-latest", Name: "Ministral 3B (latest)", Input: textOnly(), ContextWindow: 128000, MaxTokens: 128000, Cost: ModelCost{0.04, 0.04, 0, 0}},
			{ID: "ministral-8b-latest", Name: "Ministral 8B (latest)", Input: textOnly(), ContextWindow: 128000, MaxTokens: 128000, Cost: ModelCost{0.1, 0.1, 0, 0}},
			{ID: "mistral-large-2411", Name: "Mistral Large 2.1", Input: textOnly(), ContextWindow: 131072, MaxTokens: 16384, Cost: ModelCost{2, 6, 0, 0}},
			{ID: "mistral-large-2512", Name: "Mistral Large 3", Input: textImage(), ContextWindow: 262144, MaxTokens: 262144, Cost: ModelCost{0.5, 1.5, 0, 0}},
			{ID: "mistral-large-latest", Name: "Mistral Large (latest)", Input: textImage(), ContextWindow: 262144, MaxTokens: 262144, Cost: ModelCost{0.5, 1.5, 0, 0}},
			{ID: "mistral-medium-2505", Name: "Mistral Medium 3", Input: textImage(), ContextWindow: 131072, MaxTokens: 131072, Cost: ModelCost{0.4, 2, 0, 0}},
			{ID: "mistral-medium-2508", Name: "Mistral Medium 3.1", Input: textImage(), ContextWindow: 262144, MaxTokens: 262144, Cost: ModelCost{0.4, 2, 0, 0}},
			{ID: "mistral-medium-2604", Name: "Mistral Medium 3.5", Reasoning: true, Input: textImage(), ContextWindow: 262144, MaxTokens: 262144, Cost: ModelCost{1.5, 7.5, 0, 0}},
			{ID: "mistral-medium-3.5", Name: "Mistral Medium 3.5", Reasoning: true, ThinkingLevelMap: levelMap(mistralEffort), Input: textImage(), ContextWindow: 262144, MaxTokens: 262144, Cost: ModelCost{1.5, 7.5, 0, 0}, Compat: &Compat{SupportsReasoningEffort: Ptr(true)}},
			{ID: "mistral-medium-latest", Name: "Mistral Medium (latest)", Reasoning: true, Input: textImage(), ContextWindow: 262144, MaxTokens: 262144, Cost: ModelCost{1.5, 7.5, 0, 0}},
			{ID: "mistral-nemo", Name: "Mistral Nemo", Input: textOnly(), ContextWindow: 128000, MaxTokens: 128000, Cost: ModelCost{0.15, 0.15, 0, 0}},
			{ID: "mistral-small-2506", Name: "Mistral Small 3.2", Input: textImage(), ContextWindow: 128000, MaxTokens: 16384, Cost: ModelCost{0.1, 0.3, 0, 0}},
			{ID: "mistral-small-2603", Name: "Mistral Small 4", Reasoning: true, ThinkingLevelMap: levelMap(mistralEffort), Input: textImage(), ContextWindow: 256000, MaxTokens: 256000, Cost: ModelCost{0.15, 0.6, 0, 0}, Compat: &Compat{SupportsReasoningEffort: Ptr(true)}},
			{ID: "mistral-small-latest", Name: "Mistral Small (latest)", Reasoning: true, ThinkingLevelMap: levelMap(mistralEffort), Input: textImage(), ContextWindow: 256000, MaxTokens: 256000, Cost: ModelCost{0.15, 0.6, 0, 0}, Compat: &Compat{SupportsReasoningEffort: Ptr(true)}},
			{ID: "open-mistral-7b", Name: "Mistral 7B", Input: textOnly(), ContextWindow: 8000, MaxTokens: 8000, Cost: ModelCost{0.25, 0.25, 0, 0}},
			{ID: "open-mixtral-8x22b", Name: "Mixtral 8x22B", Input: textOnly(), ContextWindow: 64000, MaxTokens: 64000, Cost: ModelCost{2, 6, 0, 0}},
			{ID: "open-mixtral-8x7b", Name: "Mixtral 8x7B", Input: textOnly(), ContextWindow: 32000, MaxTokens: 32000, Cost: ModelCost{0.7, 0.7, 0, 0}},
			{ID: "pixtral-12b", Name: "Pixtral 12B", Input: textImage(), ContextWindow: 128000, MaxTokens: 128000, Cost: ModelCost{0.15, 0.15, 0, 0}},
			{ID: "pixtral-large-latest", Name: "Pixtral Large (latest)", Input: textImage(), ContextWindow: 128000, MaxTokens: 128000, Cost: ModelCost{2, 6, 0, 0}},
		}
	case "openrouter":
		return []Model{
			{ID: "anthropic/claude-3.7-sonnet", Name: "Anthropic: Claude 3.7 Sonnet", Reasoning: true, Input: textImage(), ContextWindow: 200000, MaxTokens: 64000, Cost: ModelCost{3, 15, 0.3, 3.75}},
			{ID: "anthropic/claude-3.7-sonnet:thinking", Name: "Anthropic: Claude 3.7 Sonnet (thinking)", Reasoning: true, Input: textImage(), ContextWindow: 200000, MaxTokens: 64000, Cost: ModelCost{3, 15, 0.3, 3.75}},
			{ID: "anthropic/claude-haiku-4.5", Name: "Anthropic: Claude Haiku 4.5", Reasoning: true, Input: textImage(), ContextWindow: 200000, MaxTokens: 64000, Cost: ModelCost{1, 5, 0.09999999999999999, 1.25}},
			{ID: "anthropic/claude-opus-4.5", Name: "Anthropic: Claude Opus 4.5", Reasoning: true, Input: textImage(), ContextWindow: 200000, MaxTokens: 64000, Cost: ModelCost{5, 25, 0.5, 6.25}},
			{ID: "anthropic/claude-opus-4.6", Name: "Anthropic: Claude Opus 4.6", Reasoning: true, ThinkingLevelMap: levelMap("xhigh=max"), Input: textImage(), ContextWindow: 1000000, MaxTokens: 128000, Cost: ModelCost{5, 25, 0.5, 6.25}},
			{ID: "anthropic/claude-opus-4.7", Name: "Anthropic: Claude Opus 4.7", Reasoning: true, ThinkingLevelMap: levelMap("xhigh=xhigh"), Input: textImage(), ContextWindow: 1000000, MaxTokens: 128000, Cost: ModelCost{5, 25, 0.5, 6.25}},
			{ID: "anthropic/claude-sonnet-4", Name: "Anthropic: Claude Sonnet 4", Reasoning: true, Input: textImage(), ContextWindow: 1000000, MaxTokens: 64000, Cost: ModelCost{3, 15, 0.3, 3.75}},
			{ID: "anthropic/claude-sonnet-4.5", Name: "Anthropic: Claude Sonnet 4.5", Reasoning: true, Input: textImage(), ContextWindow: 1000000, MaxTokens: 64000, Cost: ModelCost{3, 15, 0.3, 3.75}},
			{ID: "anthropic/claude-sonnet-4.6", Name: "Anthropic: Claude Sonnet 4.6", Reasoning: true, Input: textImage(), ContextWindow: 1000000, MaxTokens: 128000, Cost: ModelCost{3, 15, 0.3, 3.75}},
			{ID: "deepseek/deepseek-chat-v3.1", Name: "DeepSeek: DeepSeek V3.1", Reasoning: true, Input: textOnly(), ContextWindow: 32768, MaxTokens: 7168, Cost: ModelCost{0.15, 0.75, 0, 0}},
			{ID: "deepseek/deepseek-r1-0528", Name: "DeepSeek: R1 0528", Reasoning: true, Input: textOnly(), ContextWindow: 163840, MaxTokens: 32768, Cost: ModelCost{0.5, 2.1500000000000004, 0.35, 0}},
			{ID: "deepseek/deepseek-v3.2", Name: "DeepSeek: DeepSeek V3.2", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 65536, Cost: ModelCost{0.252, 0.378, 0.0252, 0}},
			{ID: "deepseek/deepseek-v4-flash", Name: "DeepSeek: DeepSeek V4 Flash", Reasoning: true, ThinkingLevelMap: levelMap("minimal=null low=null medium=null high=high xhigh=max"), Input: textOnly(), ContextWindow: 1048576, MaxTokens: 384000, Cost: ModelCost{0.14, 0.28, 0.0028, 0}, Compat: &Compat{ThinkingFormat: "deepseek"}},
			{ID: "deepseek/deepseek-v4-pro", Name: "DeepSeek: DeepSeek V4 Pro", Reasoning: true, ThinkingLevelMap: levelMap("minimal=null low=null medium=null high=high xhigh=max"), Input: textOnly(), ContextWindow: 1048576, MaxTokens: 384000, Cost: ModelCost{0.435, 0.87, 0.003625, 0}, Compat: &Compat{ThinkingFormat: "deepseek"}},
			{ID: "google/gemini-2.5-flash", Name: "Google: Gemini 2.5 Flash", Reasoning: true, Input: textImage(), ContextWindow: 1048576, MaxTokens: 65535, Cost: ModelCost{0.3, 2.5, 0.03, 0.08333333333333334}},
			{ID: "google/gemini-2.5-flash-lite", Name: "Google: Gemini 2.5 Flash Lite", Reasoning: true, Input: textImage(), ContextWindow: 1048576, MaxTokens: 65535, Cost: ModelCost{0.09999999999999999, 0.39999999999999997, 0.01, 0.08333333333333334}},
			{ID: "google/gemini-2.5-pro", Name: "Google: Gemini 2.5 Pro", Reasoning: true, Input: textImage(), ContextWindow: 1048576, MaxTokens: 65536, Cost: ModelCost{1.25, 10, 0.125, 0.375}},
			{ID: "google/gemini-3-flash-preview", Name: "Google: Gemini 3 Flash Preview", Reasoning: true, Input: textImage(), ContextWindow: 1048576, MaxTokens: 65536, Cost: ModelCost{0.5, 3, 0.049999999999999996, 0.08333333333333334}},
			{ID: "google/gemini-3.1-pro-preview", Name: "Google: Gemini 3.1 Pro Preview", Reasoning: true, Input: textImage(), ContextWindow: 1048576, MaxTokens: 65536, Cost: ModelCost{2, 12, 0.19999999999999998, 0.375}},
			{ID: "google/gemma-4-31b-it", Name: "Google: Gemma 4 31B", Reasoning: true, Input: textImage(), ContextWindow: 262144, MaxTokens: 16384, Cost: ModelCost{0.13, 0.38, 0, 0}},
			{ID: "meta-llama/llama-3.3-70b-instruct", Name: "Meta: Llama 3.3 70B Instruct", Input: textOnly(), ContextWindow: 131072, MaxTokens: 16384, Cost: ModelCost{0.09999999999999999, 0.32, 0, 0}},
			{ID: "meta-llama/llama-4-scout", Name: "Meta: Llama 4 Scout", Input: textImage(), ContextWindow: 327680, MaxTokens: 16384, Cost: ModelCost{0.08, 0.3, 0, 0}},
			{ID: "minimax/minimax-m2.5", Name: "MiniMax: MiniMax M2.5", Reasoning: true, Input: textOnly(), ContextWindow: 196608, MaxTokens: 131072, Cost: ModelCost{0.15, 1.15, 0.03, 0}},
			{ID: "minimax/minimax-m2.7", Name: "MiniMax: MiniMax M2.7", Reasoning: true, Input: textOnly(), ContextWindow: 196608, MaxTokens: 4096, Cost: ModelCost{0.3, 1.2, 0.059, 0}},
			{ID: "mistralai/codestral-2508", Name: "Mistral: Codestral 2508", Input: textOnly(), ContextWindow: 256000, MaxTokens: 4096, Cost: ModelCost{0.3, 0.8999999999999999, 0.03, 0}},
			{ID: "mistralai/devstral-2512", Name: "Mistral: Devstral 2 2512", Input: textOnly(), ContextWindow: 262144, MaxTokens: 4096, Cost: ModelCost{0.39999999999999997, 2, 0.04, 0}},
			{ID: "mistralai/mistral-large-2512", Name: "Mistral: Mistral Large 3 2512", Input: textImage(), ContextWindow: 262144, MaxTokens: 4096, Cost: ModelCost{0.5, 1.5, 0.049999999999999996, 0}},
			{ID: "mistralai/mistral-medium-3.1", Name: "Mistral: Mistral Medium 3.1", Input: textImage(), ContextWindow: 131072, MaxTokens: 4096, Cost: ModelCost{0.39999999999999997, 2, 0.04, 0}},
			{ID: "mistralai/mistral-small-2603", Name: "Mistral: Mistral Small 4", Reasoning: true, Input: textImage(), ContextWindow: 262144, MaxTokens: 4096, Cost: ModelCost{0.15, 0.6, 0.015, 0}},
			{ID: "moonshotai/kimi-k2-0905", Name: "MoonshotAI: Kimi K2 0905", Input: textOnly(), ContextWindow: 262144, MaxTokens: 262144, Cost: ModelCost{0.39999999999999997, 2, 0, 0}},
			{ID: "moonshotai/kimi-k2-thinking", Name: "MoonshotAI: Kimi K2 Thinking", Reasoning: true, Input: textOnly(), ContextWindow: 262144, MaxTokens: 262144, Cost: ModelCost{0.6, 2.5, 0.15, 0}},
			{ID: "moonshotai/kimi-k2.5", Name: "MoonshotAI: Kimi K2.5", Reasoning: true, Input: textImage(), ContextWindow: 262144, MaxTokens: 4096, Cost: ModelCost{0.41, 2.06, 0.07, 0}},
			{ID: "moonshotai/kimi-k2.6", Name: "MoonshotAI: Kimi K2.6", Reasoning: true, Input: textImage(), ContextWindow: 262144, MaxTokens: 16384, Cost: ModelCost{0.75, 3.5, 0.15, 0}},
			{ID: "openai/gpt-4.1", Name: "OpenAI: GPT-4.1", Input: textImage(), ContextWindow: 1047576, MaxTokens: 4096, Cost: ModelCost{2, 8, 0.5, 0}},
			{ID: "openai/gpt-4.1-mini", Name: "OpenAI: GPT-4.1 Mini", Input: textImage(), ContextWindow: 1047576, MaxTokens: 32768, Cost: ModelCost{0.39999999999999997, 1.5999999999999999, 0.09999999999999999, 0}},
			{ID: "openai/gpt-4o", Name: "OpenAI: GPT-4o", Input: textImage(), ContextWindow: 128000, MaxTokens: 16384, Cost: ModelCost{2.5, 10, 0, 0}},
			{ID: "openai/gpt-4o-2024-11-20", Name: "OpenAI: GPT-4o (2024-11-20)", Input: textImage(), ContextWindow: 128000, MaxTokens: 16384, Cost: ModelCost{2.5, 10, 1.25, 0}},
			{ID: "openai/gpt-4o-mini", Name: "OpenAI: GPT-4o-mini", Input: textImage(), ContextWindow: 128000, MaxTokens: 16384, Cost: ModelCost{0.15, 0.6, 0.075, 0}},
			{ID: "openai/gpt-5", Name: "OpenAI: GPT-5", Reasoning: true, Input: textImage(), ContextWindow: 400000, MaxTokens: 128000, Cost: ModelCost{1.25, 10, 0.125, 0}},
			{ID: "openai/gpt-5-mini", Name: "OpenAI: GPT-5 Mini", Reasoning: true, Input: textImage(), ContextWindow: 400000, MaxTokens: 128000, Cost: ModelCost{0.25, 2, 0.024999999999999998, 0}},
			{ID: "openai/gpt-5.1", Name: "OpenAI: GPT-5.1", Reasoning: true, Input: textImage(), ContextWindow: 400000, MaxTokens: 128000, Cost: ModelCost{1.25, 10, 0.13, 0}},
			{ID: "openai/gpt-5.1-codex", Name: "OpenAI: GPT-5.1-Codex", Reasoning: true, Input: textImage(), ContextWindow: 400000, MaxTokens: 128000, Cost: ModelCost{1.25, 10, 0.125, 0}},
			{ID: "openai/gpt-5.2", Name: "OpenAI: GPT-5.2", Reasoning: true, ThinkingLevelMap: levelMap("xhigh=xhigh"), Input: textImage(), ContextWindow: 400000, MaxTokens: 128000, Cost: ModelCost{1.75, 14, 0.175, 0}},
			{ID: "openai/gpt-5.4", Name: "OpenAI: GPT-5.4", Reasoning: true, ThinkingLevelMap: levelMap("xhigh=xhigh"), Input: textImage(), ContextWindow: 1050000, MaxTokens: 128000, Cost: ModelCost{2.5, 15, 0.25, 0}},
			{ID: "openai/gpt-5.4-mini", Name: "OpenAI: GPT-5.4 Mini", Reasoning: true, ThinkingLevelMap: levelMap("xhigh=xhigh"), Input: textImage(), ContextWindow: 400000, MaxTokens: 128000, Cost: ModelCost{0.75, 4.5, 0.075, 0}},
			{ID: "openai/gpt-5.5", Name: "OpenAI: GPT-5.5", Reasoning: true, ThinkingLevelMap: levelMap("xhigh=xhigh"), Input: textImage(), ContextWindow: 1050000, MaxTokens: 128000, Cost: ModelCost{5, 30, 0.5, 0}},
			{ID: "openai/gpt-oss-120b", Name: "OpenAI: gpt-oss-120b", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 4096, Cost: ModelCost{0.039, 0.18, 0, 0}},
			{ID: "openai/gpt-oss-120b:free", Name: "OpenAI: gpt-oss-120b (free)", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 131072, Cost: ModelCost{0, 0, 0, 0}},
			{ID: "openai/gpt-oss-20b", Name: "OpenAI: gpt-oss-20b", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 131072, Cost: ModelCost{0.03, 0.14, 0, 0}},
			{ID: "openai/o3", Name: "OpenAI: o3", Reasoning: true, Input: textImage(), ContextWindow: 200000, MaxTokens: 100000, Cost: ModelCost{2, 8, 0.5, 0}},
			{ID: "openai/o4-mini", Name: "OpenAI: o4 Mini", Reasoning: true, Input: textImage(), ContextWindow: 200000, MaxTokens: 100000, Cost: ModelCost{1.1, 4.4, 0.275, 0}},
			{ID: "qwen/qwen3-235b-a22b-2507", Name: "Qwen: Qwen3 235B A22B Instruct 2507", Input: textOnly(), ContextWindow: 262144, MaxTokens: 16384, Cost: ModelCost{0.071, 0.09999999999999999, 0, 0}},
			{ID: "qwen/qwen3-coder", Name: "Qwen: Qwen3 Coder 480B A35B", Input: textOnly(), ContextWindow: 262144, MaxTokens: 65536, Cost: ModelCost{0.22, 1.7999999999999998, 0, 0}},
			{ID: "qwen/qwen3-coder-next", Name: "Qwen: Qwen3 Coder Next", Input: textOnly(), ContextWindow: 262144, MaxTokens: 262144, Cost: ModelCost{0.11, 0.7999999999999999, 0.07, 0}},
			{ID: "qwen/qwen3-coder-plus", Name: "Qwen: Qwen3 Coder Plus", Input: textOnly(), ContextWindow: 1000000, MaxTokens: 65536, Cost: ModelCost{0.65, 3.25, 0.13, 0.8125}},
			{ID: "qwen/qwen3-coder:free", Name: "Qwen: Qwen3 Coder 480B A35B (free)", Input: textOnly(), ContextWindow: 262000, MaxTokens: 262000, Cost: ModelCost{0, 0, 0, 0}},
			{ID: "qwen/qwen3-max", Name: "Qwen: Qwen3 Max", Input: textOnly(), ContextWindow: 262144, MaxTokens: 32768, Cost: ModelCost{0.78, 3.9, 0.156, 0.975}},
			{ID: "qwen/qwen3.5-397b-a17b", Name: "Qwen: Qwen3.5 397B A17B", Reasoning: true, Input: textImage(), ContextWindow: 262144, MaxTokens: 65536, Cost: ModelCost{0.39, 2.34, 0.195, 0}},
			{ID: "qwen/qwen3.6-plus", Name: "Qwen: Qwen3.6 Plus", Reasoning: true, Input: textImage(), ContextWindow: 1000000, MaxTokens: 65536, Cost: ModelCost{0.325, 1.95, 0, 0.40625}},
			{ID: "x-ai/grok-4", Name: "xAI: Grok 4", Reasoning: true, Input: textImage(), ContextWindow: 256000, MaxTokens: 4096, Cost: ModelCost{3, 15, 0.75, 0}},
			{ID: "x-ai/grok-4.1-fast", Name: "xAI: Grok 4.1 Fast", Reasoning: true, Input: textImage(), ContextWindow: 2000000, MaxTokens: 30000, Cost: ModelCost{0.19999999999999998, 0.5, 0.049999999999999996, 0}},
			{ID: "x-ai/grok-4.20", Name: "xAI: Grok 4.20", Reasoning: true, Input: textImage(), ContextWindow: 2000000, MaxTokens: 4096, Cost: ModelCost{1.25, 2.5, 0.19999999999999998, 0}},
			{ID: "x-ai/grok-4.3", Name: "xAI: Grok 4.3", Reasoning: true, Input: textImage(), ContextWindow: 1000000, MaxTokens: 4096, Cost: ModelCost{1.25, 2.5, 0.19999999999999998, 0}},
			{ID: "x-ai/grok-code-fast-1", Name: "xAI: Grok Code Fast 1", Reasoning: true, Input: textOnly(), ContextWindow: 256000, MaxTokens: 10000, Cost: ModelCost{0.19999999999999998, 1.5, 0.02, 0}},
			{ID: "xiaomi/mimo-v2.5-pro", Name: "Xiaomi: MiMo-V2.5-Pro", Reasoning: true, Input: textOnly(), ContextWindow: 1048576, MaxTokens: 131072, Cost: ModelCost{1, 3, 0.19999999999999998, 0}},
			{ID: "z-ai/glm-4.5-air", Name: "Z.ai: GLM 4.5 Air", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 98304, Cost: ModelCost{0.13, 0.85, 0.024999999999999998, 0}},
			{ID: "z-ai/glm-4.6", Name: "Z.ai: GLM 4.6", Reasoning: true, Input: textOnly(), ContextWindow: 204800, MaxTokens: 204800, Cost: ModelCost{0.39, 1.9, 0, 0}},
			{ID: "z-ai/glm-4.7", Name: "Z.ai: GLM 4.7", Reasoning: true, Input: textOnly(), ContextWindow: 202752, MaxTokens: 4096, Cost: ModelCost{0.38, 1.74, 0, 0}},
			{ID: "z-ai/glm-5", Name: "Z.ai: GLM 5", Reasoning: true, Input: textOnly(), ContextWindow: 202752, MaxTokens: 4096, Cost: ModelCost{0.6, 1.9, 0.119, 0}},
			{ID: "z-ai/glm-5.1", Name: "Z.ai: GLM 5.1", Reasoning: true, Input: textOnly(), ContextWindow: 202752, MaxTokens: 65535, Cost: ModelCost{1.0499999999999998, 3.5, 0.5249999999999999, 0}},
			{ID: "~anthropic/claude-opus-latest", Name: "Anthropic: Claude Opus Latest", Reasoning: true, Input: textImage(), ContextWindow: 1000000, MaxTokens: 128000, Cost: ModelCost{5, 25, 0.5, 6.25}},
			{ID: "~anthropic/claude-sonnet-latest", Name: "Anthropic Claude Sonnet Latest", Reasoning: true, Input: textImage(), ContextWindow: 1000000, MaxTokens: 128000, Cost: ModelCost{3, 15, 0.3, 3.75}},
			{ID: "~openai/gpt-latest", Name: "OpenAI GPT Latest", Reasoning: true, Input: textImage(), ContextWindow: 1050000, MaxTokens: 128000, Cost: ModelCost{5, 30, 0.5, 0}},
		}
	case "xai":
		return []Model{
			{ID: "grok-2", Name: "Grok 2", Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{2, 10, 2, 0}},
			{ID: "grok-2-1212", Name: "Grok 2 (1212)", Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{2, 10, 2, 0}},
			{ID: "grok-2-latest", Name: "Grok 2 Latest", Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{2, 10, 2, 0}},
			{ID: "grok-2-vision", Name: "Grok 2 Vision", Input: textImage(), ContextWindow: 8192, MaxTokens: 4096, Cost: ModelCost{2, 10, 2, 0}},
			{ID: "grok-2-vision-1212", Name: "Grok 2 Vision (1212)", Input: textImage(), ContextWindow: 8192, MaxTokens: 4096, Cost: ModelCost{2, 10, 2, 0}},
			{ID: "grok-2-vision-latest", Name: "Grok 2 Vision Latest", Input: textImage(), ContextWindow: 8192, MaxTokens: 4096, Cost: ModelCost{2, 10, 2, 0}},
			{ID: "grok-3", Name: "Grok 3", Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{3, 15, 0.75, 0}},
			{ID: "grok-3-fast", Name: "Grok 3 Fast", Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{5, 25, 1.25, 0}},
			{ID: "grok-3-fast-latest", Name: "Grok 3 Fast Latest", Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{5, 25, 1.25, 0}},
			{ID: "grok-3-latest", Name: "Grok 3 Latest", Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{3, 15, 0.75, 0}},
			{ID: "grok-3-mini", Name: "Grok 3 Mini", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{0.3, 0.5, 0.075, 0}},
			{ID: "grok-3-mini-fast", Name: "Grok 3 Mini Fast", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{0.6, 4, 0.15, 0}},
			{ID: "grok-3-mini-fast-latest", Name: "Grok 3 Mini Fast Latest", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{0.6, 4, 0.15, 0}},
			{ID: "grok-3-mini-latest", Name: "Grok 3 Mini Latest", Reasoning: true, Input: textOnly(), ContextWindow: 131072, MaxTokens: 8192, Cost: ModelCost{0.3, 0.5, 0.075, 0}},
			{ID: "grok-4", Name: "Grok 4", Reasoning: true, Input: textOnly(), ContextWindow: 256000, MaxTokens: 64000, Cost: ModelCost{3, 15, 0.75, 0}},
			{ID: "grok-4-1-fast", Name: "Grok 4.1 Fast", Reasoning: true, Input: textImage(), ContextWindow: 2000000, MaxTokens: 30000, Cost: ModelCost{0.2, 0.5, 0.05, 0}},
			{ID: "grok-4-1-fast-non-reasoning", Name: "Grok 4.1 Fast (Non-Reasoning)", Input: textImage(), ContextWindow: 2000000, MaxTokens: 30000, Cost: ModelCost{0.2, 0.5, 0.05, 0}},
			{ID: "grok-4-fast", Name: "Grok 4 Fast", Reasoning: true, Input: textImage(), ContextWindow: 2000000, MaxTokens: 30000, Cost: ModelCost{0.2, 0.5, 0.05, 0}},
			{ID: "grok-4-fast-non-reasoning", Name: "Grok 4 Fast (Non-Reasoning)", Input: textImage(), ContextWindow: 2000000, MaxTokens: 30000, Cost: ModelCost{0.2, 0.5, 0.05, 0}},
			{ID: "grok-4.20-0309-non-reasoning", Name: "Grok 4.20 (Non-Reasoning)", Input: textImage(), ContextWindow: 2000000, MaxTokens: 30000, Cost: ModelCost{2, 6, 0.2, 0}},
			{ID: "grok-4.20-0309-reasoning", Name: "Grok 4.20 (Reasoning)", Reasoning: true, Input: textImage(), ContextWindow: 2000000, MaxTokens: 30000, Cost: ModelCost{2, 6, 0.2, 0}},
			{ID: "grok-4.3", Name: "Grok 4.3", Reasoning: true, Input: textImage(), ContextWindow: 1000000, MaxTokens: 30000, Cost: ModelCost{1.25, 2.5, 0.2, 0}},
			{ID: "grok-beta", Name: "Grok Beta", Input: textOnly(), ContextWindow: 131072, MaxTokens: 4096, Cost: ModelCost{5, 15, 5, 0}},
			{ID: "grok-code-fast-1", Name: "Grok Code Fast 1", Reasoning: true, Input: textOnly(), ContextWindow: 256000, MaxTokens: 10000, Cost: ModelCost{0.2, 1.5, 0.02, 0}},
			{ID: "grok-vision-beta", Name: "Grok Vision Beta", Input: textImage(), ContextWindow: 8192, MaxTokens: 4096, Cost: ModelCost{5, 15, 5, 0}},
		}
	}
	return nil
}
