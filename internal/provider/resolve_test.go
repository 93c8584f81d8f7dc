package provider

import (
	"strings"
	"testing"
)

func testModel(prov, id, name string) *Model {
	return &Model{ID: id, Name: name, Provider: prov, API: APIOpenAICompletions, Input: []string{"text"},
		ContextWindow: 128000, MaxTokens: 8192}
}

// resolverModels mirrors pi's model-resolver tests: two plain models and OpenRouter ids with colons.
func resolverModels() []*Model {
	sonnet := testModel("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5")
	sonnet.Reasoning = true
	return []*Model{
		sonnet,
		testModel("openai", "gpt-4o", "GPT-4o"),
		testModel("openrouter", "qwen/qwen3-coder:exacto", "Qwen3 Coder Exacto"),
		testModel("openrouter", "openai/gpt-4o:extended", "GPT-4o Extended"),
	}
}

func TestParseModelPattern(t *testing.T) {
	models := resolverModels()
	tests := []struct {
		pattern      string
		strict       bool
		wantProvider string
		wantID       string // "" = no match
		wantThinking ThinkingLevel
		wantWarning  string // substring; "" = no warning
	}{
		{pattern: "claude-sonnet-4-5", wantProvider: "anthropic", wantID: "claude-sonnet-4-5"},
		{pattern: "CLAUDE-Sonnet-4-5", wantProvider: "anthropic", wantID: "claude-sonnet-4-5"},
		{pattern: "sonnet", wantProvider: "anthropic", wantID: "claude-sonnet-4-5"},
		{pattern: "Sonnet 4.5", wantProvider: "anthropic", wantID: "claude-sonnet-4-5"}, // by name
		{pattern: "nonexistent"},
		{pattern: "sonnet:high", wantProvider: "anthropic", wantID: "claude-sonnet-4-5", wantThinking: ThinkingHigh},
		{pattern: "gpt-4o:medium", wantProvider: "openai", wantID: "gpt-4o", wantThinking: ThinkingMedium},
		{pattern: "sonnet:xhigh", wantProvider: "anthropic", wantID: "claude-sonnet-4-5", wantThinking: ThinkingXHigh},
		{pattern: "sonnet:off", wantProvider: "anthropic", wantID: "claude-sonnet-4-5", wantThinking: ThinkingOff},
		{pattern: "sonnet:random", wantProvider: "anthropic", wantID: "claude-sonnet-4-5", wantWarning: `Invalid thinking level "random" in pattern "sonnet:random". Using default instead.`},
		{pattern: "sonnet:random", strict: true},
		{pattern: "gpt-4o:invalid", wantProvider: "openai", wantID: "gpt-4o", wantWarning: "Invalid thinking level"},
		{pattern: "qwen/qwen3-coder:exacto", wantProvider: "openrouter", wantID: "qwen/qwen3-coder:exacto"},
		{pattern: "openrouter/qwen/qwen3-coder:exacto", wantProvider: "openrouter", wantID: "qwen/qwen3-coder:exacto"},
		{pattern: "qwen/qwen3-coder:exacto:high", wantProvider: "openrouter", wantID: "qwen/qwen3-coder:exacto", wantThinking: ThinkingHigh},
		{pattern: "openrouter/qwen/qwen3-coder:exacto:high", wantProvider: "openrouter", wantID: "qwen/qwen3-coder:exacto", wantThinking: ThinkingHigh},
		{pattern: "openai/gpt-4o:extended", wantProvider: "openrouter", wantID: "openai/gpt-4o:extended"},
		{pattern: "qwen/qwen3-coder:exacto:random", wantProvider: "openrouter", wantID: "qwen/qwen3-coder:exacto", wantWarning: "random"},
		// The inner warning wins and drops the outer level.
		{pattern: "qwen/qwen3-coder:exacto:high:random", wantProvider: "openrouter", wantID: "qwen/qwen3-coder:exacto", wantWarning: "random"},
		{pattern: "sonnet:", wantProvider: "anthropic", wantID: "claude-sonnet-4-5", wantWarning: "Invalid thinking level"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			got := ParseModelPattern(tt.pattern, models, tt.strict)
			if tt.wantID == "" {
				if got.Model != nil {
					t.Fatalf("matched %s, want no match", got.Model)
				}
				return
			}
			if got.Model == nil {
				t.Fatalf("no match, want %s/%s", tt.wantProvider, tt.wantID)
			}
			if got.Model.Provider != tt.wantProvider || got.Model.ID != tt.wantID {
				t.Errorf("matched %s, want %s/%s", got.Model, tt.wantProvider, tt.wantID)
			}
			if got.Thinking != tt.wantThinking {
				t.Errorf("thinking %q, want %q", got.Thinking, tt.wantThinking)
			}
			if tt.wantWarning == "" && got.Warning != "" {
				t.Errorf("unexpected warning %q", got.Warning)
			}
			if !strings.Contains(got.Warning, tt.wantWarning) {
				t.Errorf("warning %q, want it to contain %q", got.Warning, tt.wantWarning)
			}
			if tt.wantWarning != "" && got.Thinking != "" {
				t.Errorf("thinking %q set despite warning", got.Thinking)
			}
		})
	}
}

func TestEmptyPatternMatchesSomething(t *testing.T) {
	if got := ParseModelPattern("", resolverModels(), false); got.Model == nil {
		t.Fatal("empty pattern should match by substring, as in pi")
	}
}

func TestFuzzyPrefersAliasesOverDatedIDs(t *testing.T) {
	models := []*Model{
		testModel("anthropic", "claude-sonnet-4-5-20250929", "Claude Sonnet 4.5 (dated)"),
		testModel("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5"),
		testModel("anthropic", "claude-3-5-sonnet-20241022", "Claude 3.5 Sonnet"),
		testModel("anthropic", "claude-3-5-sonnet-20240620", "Claude 3.5 Sonnet old"),
	}
	if got := ParseModelPattern("sonnet", models, false).Model; got.ID != "claude-sonnet-4-5" {
		t.Errorf("sonnet -> %s, want the alias claude-sonnet-4-5", got.ID)
	}
	// Only dated ids match: the newest wins.
	if got := ParseModelPattern("3-5-sonnet", models, false).Model; got.ID != "claude-3-5-sonnet-20241022" {
		t.Errorf("3-5-sonnet -> %s, want the newest dated id", got.ID)
	}
	// -latest counts as an alias even though dated ids sort higher.
	latest := []*Model{testModel("x", "grok-2-20991231", "Grok 2"), testModel("x", "grok-2-latest", "Grok 2 Latest")}
	if got := ParseModelPattern("grok-2", latest, false).Model; got.ID != "grok-2-latest" {
		t.Errorf("grok-2 -> %s, want grok-2-latest", got.ID)
	}
	// Among aliases the one that sorts highest wins.
	aliases := []*Model{testModel("o", "gpt-5", "GPT-5"), testModel("o", "gpt-5.4", "GPT-5.4"), testModel("o", "gpt-5-mini", "GPT-5 mini")}
	if got := ParseModelPattern("gpt-5", aliases, false).Model; got.ID != "gpt-5" {
		t.Errorf("gpt-5 -> %s, want exact id gpt-5", got.ID)
	}
	if got := ParseModelPattern("gpt", aliases, false).Model; got.ID != "gpt-5.4" {
		t.Errorf("gpt -> %s, want gpt-5.4 (sorts highest)", got.ID)
	}
}

func TestFuzzyOnBuiltinCatalog(t *testing.T) {
	reg := NewRegistry(BuiltinModels(), nil)
	all := reg.All()
	tests := []struct{ pattern, want string }{
		{"gpt-4o", "openai/gpt-4o"},        // exact id, unique among providers
		{"openai/gpt-4o", "openai/gpt-4o"}, // provider/id
		{"openrouter/openai/gpt-4o", "openrouter/openai/gpt-4o"},
		{"devstral-medium", "mistral/devstral-medium-latest"}, // aliases over dated, highest first
		{"grok-4.20", "openrouter/x-ai/grok-4.20"},            // all aliases: the highest id wins
		{"grok-4.20-0309", "xai/grok-4.20-0309-reasoning"},    // "reasoning" sorts above "non-reasoning"
		{"kimi-k2.6", "openrouter/moonshotai/kimi-k2.6"},
		{"qwen/qwen3-coder:free", "openrouter/qwen/qwen3-coder:free"},
		{"anthropic/claude-3.7-sonnet:thinking", "openrouter/anthropic/claude-3.7-sonnet:thinking"},
	}
	for _, tt := range tests {
		got := ParseModelPattern(tt.pattern, all, false)
		if got.Model == nil || got.Model.String() != tt.want {
			t.Errorf("%q -> %v, want %s", tt.pattern, got.Model, tt.want)
		}
		if got.Thinking != "" {
			t.Errorf("%q: thinking %q, want none", tt.pattern, got.Thinking)
		}
	}
	// A colon id plus a level: the longest matching prefix is the model.
	got := ParseModelPattern("anthropic/claude-3.7-sonnet:thinking:high", all, true)
	if got.Model == nil || got.Model.ID != "anthropic/claude-3.7-sonnet:thinking" || got.Thinking != ThinkingHigh {
		t.Errorf("colon id with level -> %v %q", got.Model, got.Thinking)
	}
}

func TestCompareIDsFollowsLocaleCompare(t *testing.T) {
	// Expected order computed with node: [...].sort((a, b) => a.localeCompare(b)).
	want := []string{"a b", "a_b", "a-b", "a:b", "a.b", "a1", "ab", "aB", "Ab"}
	for i := 0; i+1 < len(want); i++ {
		if c := compareIDs(want[i], want[i+1]); c >= 0 {
			t.Errorf("compareIDs(%q, %q) = %d, want < 0", want[i], want[i+1], c)
		}
		if c := compareIDs(want[i+1], want[i]); c <= 0 {
			t.Errorf("compareIDs(%q, %q) = %d, want > 0", want[i+1], want[i], c)
		}
	}
	if compareIDs("gpt-4o", "gpt-4o") != 0 {
		t.Error("equal ids must compare 0")
	}
	if compareIDs("gpt-4o", "gpt-4o-mini") >= 0 {
		t.Error("prefix sorts first")
	}
}

func TestResolveCLIModel(t *testing.T) {
	zai := testModel("zai", "glm-5", "GLM-5")
	gateway := testModel("vercel-ai-gateway", "zai/glm-5", "GLM-5")
	reg := NewRegistry(nil, &Customization{Models: append(derefAll(resolverModels()), *zai, *gateway)})
	tests := []struct {
		name, provider, model string
		wantModel             string // provider/id
		wantThinking          ThinkingLevel
		wantSynthetic         bool
		wantErr               string
	}{
		{name: "provider/id", model: "openai/gpt-4o", wantModel: "openai/gpt-4o"},
		{name: "fuzzy within provider", provider: "openai", model: "4o", wantModel: "openai/gpt-4o"},
		{name: "provider flag is case-insensitive", provider: "OpenAI", model: "gpt-4o", wantModel: "openai/gpt-4o"},
		{name: "thinking suffix", model: "sonnet:high", wantModel: "anthropic/claude-sonnet-4-5", wantThinking: ThinkingHigh},
		{name: "exact id beats provider inference", model: "openai/gpt-4o:extended", wantModel: "openrouter/openai/gpt-4o:extended"},
		{name: "invalid suffix is part of the id", provider: "openai", model: "gpt-4o:extended", wantModel: "openai/gpt-4o:extended", wantSynthetic: true},
		{name: "no double prefix", provider: "openrouter", model: "openrouter/openai/ghost-model", wantModel: "openrouter/openai/ghost-model", wantSynthetic: true},
		{name: "provider split beats gateway id", model: "zai/glm-5", wantModel: "zai/glm-5"},
		{name: "provider-prefixed fuzzy", model: "openrouter/qwen", wantModel: "openrouter/qwen/qwen3-coder:exacto"},
		{name: "provider filter", provider: "openrouter", model: "gpt-4o", wantModel: "openrouter/openai/gpt-4o:extended"},
		{name: "unknown provider", provider: "nope", model: "x", wantErr: `Unknown provider "nope". Use --list-models to see available providers/models.`},
		{name: "unknown model", model: "nothing-like-this", wantErr: `Model "nothing-like-this" not found. Use --list-models to see available models.`},
		{name: "strict suffix without provider", model: "sonnet:bogus", wantErr: `Model "sonnet:bogus" not found.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reg.ResolveCLIModel(tt.provider, tt.model)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Model == nil || got.Model.String() != tt.wantModel {
				t.Fatalf("model %v, want %s", got.Model, tt.wantModel)
			}
			if got.Thinking != tt.wantThinking {
				t.Errorf("thinking %q, want %q", got.Thinking, tt.wantThinking)
			}
			if got.Synthetic != tt.wantSynthetic {
				t.Errorf("synthetic %v, want %v", got.Synthetic, tt.wantSynthetic)
			}
			if tt.wantSynthetic && !strings.Contains(got.Warning, "Using custom model id.") {
				t.Errorf("warning %q", got.Warning)
			}
		})
	}
	if _, err := NewRegistry(nil, nil).ResolveCLIModel("openai", "gpt-4o"); err != ErrNoModels {
		t.Errorf("empty registry: %v", err)
	}
	if got, err := reg.ResolveCLIModel("", ""); err != nil || got.Model != nil {
		t.Errorf("no --model: %v %v", got.Model, err)
	}
}

func TestResolveCLIModelSyntheticClonesProviderDefault(t *testing.T) {
	reg := NewRegistry(BuiltinModels(), nil)
	got, err := reg.ResolveCLIModel("openai", "gpt-9-preview")
	if err != nil {
		t.Fatal(err)
	}
	def := reg.Find("openai", "gpt-5.4")
	if !got.Synthetic || got.Model.ID != "gpt-9-preview" || got.Model.Name != "gpt-9-preview" {
		t.Fatalf("got %+v", got)
	}
	if got.Model.ContextWindow != def.ContextWindow || got.Model.BaseURL != def.BaseURL || !got.Model.Reasoning {
		t.Errorf("synthetic model is not a clone of the default: %+v", got.Model)
	}
	if reg.Find("openai", "gpt-9-preview") != nil {
		t.Error("the synthetic model must not enter the registry")
	}
	// Groq's default has a slash: --model openai/gpt-oss-120b infers provider openai, finds nothing
	// there and falls back to the exact id on another provider.
	got, err = reg.ResolveCLIModel("", "openai/gpt-oss-120b")
	if err != nil || got.Model.ID != "openai/gpt-oss-120b" || got.Synthetic {
		t.Errorf("openai/gpt-oss-120b -> %+v, %v", got.Model, err)
	}
	got, err = reg.ResolveCLIModel("groq", "openai/gpt-oss-120b")
	if err != nil || got.Model.String() != "groq/openai/gpt-oss-120b" {
		t.Errorf("--provider groq: %+v, %v", got.Model, err)
	}
}

func derefAll(ms []*Model) []Model {
	out := make([]Model, len(ms))
	for i, m := range ms {
		out[i] = *m
	}
	return out
}

func TestResolveModelScope(t *testing.T) {
	models := resolverModels()
	extra := testModel("openai", "gpt-4o-mini", "GPT-4o mini")
	models = append(models, extra, testModel("acme", "bracketed-model[1m]", "Bracketed"))
	tests := []struct {
		name     string
		patterns []string
		want     []string // provider/id:thinking
		warnings []string
	}{
		{name: "plain", patterns: []string{"sonnet", "gpt-4o"}, want: []string{"anthropic/claude-sonnet-4-5:", "openai/gpt-4o:"}},
		{name: "levels", patterns: []string{"sonnet:high", "gpt-4o:low"}, want: []string{"anthropic/claude-sonnet-4-5:high", "openai/gpt-4o:low"}},
		{name: "duplicates dropped", patterns: []string{"sonnet", "claude-sonnet-4-5:high"}, want: []string{"anthropic/claude-sonnet-4-5:"}},
		// "openai/*" also matches OpenRouter's id "openai/gpt-4o:extended", as in pi.
		{name: "glob on provider/id or id", patterns: []string{"openai/*"}, want: []string{"openai/gpt-4o:", "openrouter/openai/gpt-4o:extended:", "openai/gpt-4o-mini:"}},
		// As with minimatch, * does not cross the "/" inside OpenRouter ids; ** does.
		{name: "glob star on slashed ids", patterns: []string{"openrouter/*"}, warnings: []string{`No models match pattern "openrouter/*"`}},
		{name: "glob globstar", patterns: []string{"openrouter/**"}, want: []string{"openrouter/qwen/qwen3-coder:exacto:", "openrouter/openai/gpt-4o:extended:"}},
		{name: "glob on id, case-insensitive", patterns: []string{"*SONNET*"}, want: []string{"anthropic/claude-sonnet-4-5:"}},
		{name: "glob with level", patterns: []string{"openai/gpt-4o-*:high"}, want: []string{"openai/gpt-4o-mini:high"}},
		{name: "glob ? and class", patterns: []string{"gpt-4?", "gpt-4o-[m]ini"}, want: []string{"openai/gpt-4o:", "openai/gpt-4o-mini:"}},
		{name: "star stays in a segment", patterns: []string{"*gpt-4o:extended"}, warnings: []string{`No models match pattern "*gpt-4o:extended"`}},
		{name: "star per segment", patterns: []string{"*/gpt-4o:extended"}, want: []string{"openrouter/openai/gpt-4o:extended:"}},
		{name: "an exact id with glob characters", patterns: []string{"bracketed-model[1m]:high"}, want: []string{"acme/bracketed-model[1m]:high"}},
		{name: "no match warns", patterns: []string{"nothing", "zzz*"}, warnings: []string{`No models match pattern "nothing"`, `No models match pattern "zzz*"`}},
		{name: "invalid level warns", patterns: []string{"sonnet:bogus"}, want: []string{"anthropic/claude-sonnet-4-5:"}, warnings: []string{`Invalid thinking level "bogus"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scoped, warnings := ResolveModelScope(tt.patterns, models)
			var got []string
			for _, s := range scoped {
				got = append(got, s.Model.String()+":"+string(s.Thinking))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("scoped %v, want %v", got, tt.want)
			}
			if len(warnings) != len(tt.warnings) {
				t.Fatalf("warnings %q, want %q", warnings, tt.warnings)
			}
			for i := range warnings {
				if !strings.Contains(warnings[i], tt.warnings[i]) {
					t.Errorf("warning %q, want %q", warnings[i], tt.warnings[i])
				}
			}
		})
	}
}

func TestCycleModel(t *testing.T) {
	ms := resolverModels()
	if got := CycleModel(ms, ms[0], false); got != ms[1] {
		t.Errorf("forward from first: %v", got)
	}
	if got := CycleModel(ms, ms[3], false); got != ms[0] {
		t.Errorf("forward wraps: %v", got)
	}
	if got := CycleModel(ms, ms[0], true); got != ms[3] {
		t.Errorf("backward wraps: %v", got)
	}
	// A current model that is not in the list counts as the first.
	if got := CycleModel(ms, testModel("x", "y", "y"), false); got != ms[1] {
		t.Errorf("unknown current: %v", got)
	}
	// Equality is by provider and id, not pointer.
	if got := CycleModel(ms, ms[1].Clone(), false); got != ms[2] {
		t.Errorf("clone as current: %v", got)
	}
	if CycleModel(ms[:1], ms[0], false) != nil || CycleModel(nil, nil, false) != nil {
		t.Error("fewer than two models must not cycle")
	}
	scoped := []ScopedModel{{Model: ms[0], Thinking: ThinkingHigh}, {Model: ms[1]}, {Model: ms[2], Thinking: ThinkingLow}}
	next, ok := CycleScopedModel(scoped, ms[0], false, func(p string) bool { return p != "openai" })
	if !ok || next.Model != ms[2] || next.Thinking != ThinkingLow {
		t.Errorf("scoped cycle skipping providers without auth: %v %v", next, ok)
	}
	if _, ok := CycleScopedModel(scoped, ms[0], false, func(p string) bool { return p == "openai" }); ok {
		t.Error("one usable scoped model must not cycle")
	}
	if next, ok := CycleScopedModel(scoped, ms[0], true, nil); !ok || next.Model != ms[2] {
		t.Errorf("backward scoped: %v", next)
	}
}

func TestDefaultAvailableModel(t *testing.T) {
	reg := NewRegistry(BuiltinModels(), nil)
	only := func(providers ...string) func(string) bool {
		return func(p string) bool {
			for _, q := range providers {
				if p == q {
					return true
				}
			}
			return false
		}
	}
	if got := DefaultAvailableModel(reg.Available(only("groq", "mistral"))); got.String() != "groq/openai/gpt-oss-120b" {
		t.Errorf("groq+mistral -> %v", got)
	}
	if got := DefaultAvailableModel(reg.Available(only("mistral", "openai"))); got.String() != "openai/gpt-6.2-sol" {
		t.Errorf("openai first in pi's order -> %v", got)
	}
	if got := DefaultAvailableModel(reg.Available(only("openai", "anthropic"))); got.String() != "anthropic/claude-opus-5-5" {
		t.Errorf("anthropic first in pi 1.6's order -> %v", got)
	}
	custom := []*Model{testModel("ollama", "llama3", "Llama 3"), testModel("ollama", "qwen", "Qwen")}
	if got := DefaultAvailableModel(custom); got != custom[0] {
		t.Errorf("no provider default available -> %v", got)
	}
	if DefaultAvailableModel(nil) != nil {
		t.Error("nothing available -> nil")
	}
}
