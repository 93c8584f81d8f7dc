package provider

import (
	"strings"
	"testing"
)

func TestRegistryOverridesAndUpserts(t *testing.T) {
	builtin := []Model{
		{ID: "a", Name: "A", Provider: "openai", BaseURL: "https://api.openai.com/v1", Input: []string{"text"},
			Cost: ModelCost{1, 2, 3, 4}, ContextWindow: 1000, MaxTokens: 100,
			ThinkingLevelMap: levelMap("off=null"), Compat: &Compat{SupportsStore: Ptr(true), MaxTokensField: "max_completion_tokens"}},
		{ID: "b", Name: "B", Provider: "openai", BaseURL: "https://api.openai.com/v1", Input: []string{"text"}},
		{ID: "c", Name: "C", Provider: "groq", BaseURL: "https://api.groq.com/openai/v1", Input: []string{"text"}},
	}
	custom := &Customization{
		Providers: map[string]ProviderOverride{
			"openai": {BaseURL: "https://proxy.example/v1", Compat: &Compat{SupportsDeveloperRole: Ptr(false)}},
			"groq":   {Compat: &Compat{SupportsStore: Ptr(false)}},
		},
		ModelOverrides: map[string]map[string]ModelOverride{
			"openai": {"a": {
				Name:             Ptr("A+"),
				Reasoning:        Ptr(true),
				ThinkingLevelMap: levelMap("xhigh=xhigh"),
				Input:            []string{"text", "image"},
				Cost:             &CostOverride{Output: Ptr(20.0)},
				ContextWindow:    Ptr(5000),
				Compat:           &Compat{MaxTokensField: "max_tokens"},
			}},
			"groq": {"missing": {Name: Ptr("ignored")}},
		},
		Models: []Model{
			{ID: "b", Name: "B custom", Provider: "openai", BaseURL: "http://b.local"},
			{ID: "llama", Name: "Llama", Provider: "ollama", BaseURL: "http://localhost:11434/v1"},
		},
	}
	reg := NewRegistry(builtin, custom)

	a := reg.Find("openai", "a")
	if a.Name != "A+" || !a.Reasoning || a.ContextWindow != 5000 || a.MaxTokens != 100 || !a.SupportsImages() {
		t.Errorf("model override fields: %+v", a)
	}
	if a.Cost != (ModelCost{1, 20, 3, 4}) {
		t.Errorf("cost merged field by field: %+v", a.Cost)
	}
	if a.BaseURL != "https://proxy.example/v1" {
		t.Errorf("provider baseUrl override: %s", a.BaseURL)
	}
	if !Bool(a.Compat.SupportsStore, false) || Bool(a.Compat.SupportsDeveloperRole, true) || a.Compat.MaxTokensField != "max_tokens" {
		t.Errorf("compat merged (built-in < provider < model override): %+v", a.Compat)
	}
	if _, ok := a.ThinkingLevelMap[ThinkingOff]; !ok || *a.ThinkingLevelMap[ThinkingXHigh] != "xhigh" {
		t.Errorf("thinkingLevelMap merged: %v", a.ThinkingLevelMap)
	}
	if c := reg.Find("groq", "c"); c.BaseURL != "https://api.groq.com/openai/v1" || Bool(c.Compat.SupportsStore, true) {
		t.Errorf("compat-only provider override keeps the base URL: %+v", c)
	}
	if b := reg.Find("openai", "b"); b.Name != "B custom" || b.BaseURL != "http://b.local" {
		t.Errorf("custom model replaces the built-in with the same id: %+v", b)
	}
	var order []string
	for _, m := range reg.All() {
		order = append(order, m.String())
	}
	if got := strings.Join(order, " "); got != "openai/a openai/b groq/c ollama/llama" {
		t.Errorf("order %s", got)
	}
	if got := strings.Join(reg.Providers(), " "); got != "openai groq ollama" {
		t.Errorf("providers %s", got)
	}
	if reg.Find("openai", "A") != nil || reg.Find("groq", "missing") != nil {
		t.Error("Find is exact")
	}
	// The inputs are not modified.
	if builtin[0].Name != "A" || builtin[0].Compat.MaxTokensField != "max_completion_tokens" || len(builtin[0].ThinkingLevelMap) != 1 {
		t.Errorf("NewRegistry changed its input: %+v", builtin[0])
	}
}

func TestRegistryAvailable(t *testing.T) {
	reg := NewRegistry(BuiltinModels(), &Customization{Models: []Model{{ID: "x", Provider: "local"}}})
	calls := map[string]int{}
	avail := reg.Available(func(p string) bool {
		calls[p]++
		return p == "groq" || p == "local"
	})
	for _, m := range avail {
		if m.Provider != "groq" && m.Provider != "local" {
			t.Fatalf("unavailable model %s listed", m)
		}
	}
	if len(avail) == 0 || avail[len(avail)-1].String() != "local/x" {
		t.Errorf("available %d, last %v", len(avail), avail[len(avail)-1])
	}
	for p, n := range calls {
		if n != 1 {
			t.Errorf("hasAuth(%s) called %d times", p, n)
		}
	}
	if len(reg.Available(func(string) bool { return false })) != 0 {
		t.Error("no auth, no models")
	}
	// All returns a copy of the list.
	all := reg.All()
	all[0] = nil
	if reg.All()[0] == nil {
		t.Error("All exposes the registry's slice")
	}
}

func TestModelClone(t *testing.T) {
	m := &Model{ID: "a", Input: []string{"text"}, Headers: map[string]string{"h": "v"},
		ThinkingLevelMap: levelMap("off=null high=x"), Compat: &Compat{MaxTokensField: "max_tokens"}}
	c := m.Clone()
	c.Input[0] = "image"
	c.Headers["h"] = "changed"
	*c.ThinkingLevelMap[ThinkingHigh] = "changed"
	c.Compat.MaxTokensField = "changed"
	if m.Input[0] != "text" || m.Headers["h"] != "v" || *m.ThinkingLevelMap[ThinkingHigh] != "x" || m.Compat.MaxTokensField != "max_tokens" {
		t.Errorf("clone shares state: %+v", m)
	}
	if v, ok := c.ThinkingLevelMap[ThinkingOff]; !ok || v != nil {
		t.Error("clone must keep null entries")
	}
	if !SameModel(m, c) || SameModel(m, nil) || SameModel(m, &Model{ID: "a", Provider: "x"}) {
		t.Error("SameModel")
	}
}
