package provider

import (
	"strings"
	"testing"
)

func TestBuiltinProvidersAreComplete(t *testing.T) {
	wantEnv := map[string]string{
		"openai": "OPENAI_API_KEY", "openrouter": "OPENROUTER_API_KEY", "groq": "GROQ_API_KEY",
		"deepseek": "DEEPSEEK_API_KEY", "mistral": "MISTRAL_API_KEY", "xai": "XAI_API_KEY",
		"cerebras": "CEREBRAS_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "google": "GEMINI_API_KEY",
	}
	providers := BuiltinProviders()
	if len(providers) != len(wantEnv) {
		t.Fatalf("%d providers, want %d", len(providers), len(wantEnv))
	}
	all := BuiltinModels()
	for _, p := range providers {
		if APIKeyEnvVar(p.Name) != wantEnv[p.Name] {
			t.Errorf("%s: env %q, want %q", p.Name, APIKeyEnvVar(p.Name), wantEnv[p.Name])
		}
		if !strings.HasPrefix(p.BaseURL, "https://") || strings.HasSuffix(p.BaseURL, "/") {
			t.Errorf("%s: base URL %q", p.Name, p.BaseURL)
		}
		if _, ok := BuiltinModel(p.Name, p.DefaultModel); !ok {
			t.Errorf("%s: default model %q is not in the catalogue", p.Name, p.DefaultModel)
		}
		if DefaultModelID(p.Name) != p.DefaultModel || ProviderDisplayName(p.Name) != p.DisplayName {
			t.Errorf("%s: lookup helpers disagree", p.Name)
		}
		n := 0
		for _, m := range all {
			if m.Provider == p.Name {
				n++
			}
		}
		if n < 2 {
			t.Errorf("%s: only %d models", p.Name, n)
		}
	}
	if APIKeyEnvVar("ollama") != "" || DefaultModelID("ollama") != "" || ProviderDisplayName("ollama") != "ollama" {
		t.Error("unknown providers have no env var, default or display name")
	}
}

func TestBuiltinModelsAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	lastProvider, lastID := "", ""
	for _, m := range BuiltinModels() {
		key := m.Provider + "/" + m.ID
		if seen[key] {
			t.Errorf("duplicate %s", key)
		}
		seen[key] = true
		p, _ := LookupBuiltinProvider(m.Provider)
		if m.API != p.API || m.Name == "" || m.ContextWindow <= 0 || m.MaxTokens <= 0 {
			t.Errorf("%s: incomplete %+v", key, m)
		}
		if len(m.Input) == 0 || m.Input[0] != "text" {
			t.Errorf("%s: input %v", key, m.Input)
		}
		if m.Cost.Input < 0 || m.Cost.Output < 0 {
			t.Errorf("%s: negative price", key)
		}
		if m.BaseURL != p.BaseURL {
			t.Errorf("%s: base URL %q", key, m.BaseURL)
		}
		// pi's order: providers alphabetically, ids in catalogue order within each.
		if m.Provider < lastProvider {
			t.Errorf("%s after provider %s", key, lastProvider)
		}
		if m.Provider == lastProvider && m.ID == lastID {
			t.Errorf("%s repeated", key)
		}
		lastProvider, lastID = m.Provider, m.ID
	}
	if len(seen) < 100 {
		t.Errorf("only %d built-in models", len(seen))
	}
}

func TestBuiltinModelFacts(t *testing.T) {
	// Spot checks against pi 1.6.0's catalogue (pi 0.73.1's for the OpenAI-compatible hosts).
	gpt, _ := BuiltinModel("openai", "gpt-4.1")
	if gpt.ContextWindow != 1047576 || gpt.MaxTokens != 32768 || gpt.Cost != (ModelCost{2, 8, 0.5, 0}) || !gpt.SupportsImages() ||
		gpt.Reasoning || gpt.API != APIOpenAIResponses {
		t.Errorf("gpt-4.1: %+v", gpt)
	}
	sonnet, _ := BuiltinModel("anthropic", "claude-sonnet-4-5")
	if sonnet.API != APIAnthropicMessages || sonnet.BaseURL != "https://api.anthropic.com" || sonnet.ContextWindow != 200000 ||
		sonnet.MaxTokens != 64000 || sonnet.Cost != (ModelCost{3, 15, 0.3, 3.75}) || !sonnet.Reasoning ||
		!Bool(sonnet.Compat.SupportsStrictTools, false) || Bool(sonnet.Compat.ForceAdaptiveThinking, false) {
		t.Errorf("claude-sonnet-4-5: %+v", sonnet)
	}
	opus, _ := BuiltinModel("anthropic", "claude-opus-5-5")
	if !Bool(opus.Compat.ForceAdaptiveThinking, false) || !Bool(opus.Compat.SupportsMidConvoEffort, false) ||
		Bool(opus.Compat.SupportsTemperature, true) {
		t.Errorf("claude-opus-5-5 compat: %+v", opus.Compat)
	}
	if got := SupportedThinkingLevels(&opus); len(got) != 5 || got[0] != ThinkingLow || got[4] != ThinkingMax {
		t.Errorf("claude-opus-5-5 levels %v, want low..max", got)
	}
	gem, _ := BuiltinModel("google", "gemini-2.5-pro")
	if gem.API != APIGoogleGenerativeAI || gem.BaseURL != "https://generativelanguage.googleapis.com/v1beta" ||
		gem.ContextWindow != 1048576 || gem.Cost.Input != 1.25 {
		t.Errorf("gemini-2.5-pro: %+v", gem)
	}
	ds, _ := BuiltinModel("deepseek", "deepseek-v4-pro")
	if ds.BaseURL != "https://api.deepseek.com" || !ds.Reasoning || ds.Compat == nil || ds.Compat.ThinkingFormat != "deepseek" {
		t.Errorf("deepseek-v4-pro: %+v", ds)
	}
	if v := ds.ThinkingLevelMap[ThinkingXHigh]; v == nil || *v != "max" {
		t.Errorf("deepseek xhigh -> %v, want max", v)
	}
	or, _ := BuiltinModel("openrouter", "openai/gpt-oss-120b:free")
	if or.Cost != (ModelCost{}) || or.BaseURL != "https://openrouter.ai/api/v1" {
		t.Errorf("openrouter free model: %+v", or)
	}
	mi, _ := BuiltinModel("mistral", "devstral-medium-latest")
	if mi.Compat == nil || mi.Compat.MaxTokensField != "max_tokens" || !Bool(mi.Compat.RequiresToolResultName, false) {
		t.Errorf("mistral compat: %+v", mi.Compat)
	}
	ms, _ := BuiltinModel("mistral", "mistral-small-latest")
	if !Bool(ms.Compat.SupportsReasoningEffort, false) || Bool(mi.Compat.SupportsReasoningEffort, true) {
		t.Error("only Mistral's effort models send reasoning_effort")
	}
	for _, m := range BuiltinModels() {
		if m.Provider == "openai" && m.API != APIOpenAIResponses {
			t.Errorf("%s: OpenAI's own models speak the Responses API (pi 1.6), not %s", m.ID, m.API)
		}
	}
}

func TestBuiltinModelsReturnsFreshCopies(t *testing.T) {
	a := BuiltinModels()
	a[0].Input[0] = "changed"
	a[0].Name = "changed"
	for _, m := range a {
		if m.ThinkingLevelMap != nil {
			for k := range m.ThinkingLevelMap {
				delete(m.ThinkingLevelMap, k)
			}
		}
	}
	b := BuiltinModels()
	if b[0].Input[0] != "text" || b[0].Name == "changed" {
		t.Error("BuiltinModels shares slices between calls")
	}
	gpt, _ := BuiltinModel("openai", "gpt-5.4")
	if len(gpt.ThinkingLevelMap) == 0 {
		t.Error("BuiltinModels shares maps between calls")
	}
}
