package config

import (
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func writeModels(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "models.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// stripJSONComments removes // comments and trailing commas from JSON text, leaving strings alone,
// by the rules of pi 0.73.1: string literals are copied untouched; "//" up to the end of the line is
// dropped; a comma followed only by whitespace before } or ] is dropped. Line numbers are preserved.
// Two linear passes, as pi applies its two regular expressions one after the other.
func stripJSONComments(s string) string {
	return string(stripTrailingCommas(stripLineComments([]byte(s))))
}

func TestStripJSONComments(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1, // note` + "\n" + `"b": 2,}`, `{"a": 1, ` + "\n" + `"b": 2}`},
		{`{"url": "http://x//y", "c": "a // b"}`, `{"url": "http://x//y", "c": "a // b"}`},
		{`{"q": "say \"//hi\"", } // end`, `{"q": "say \"//hi\"" } `},
		{`[1, 2, ]`, `[1, 2 ]`},
		{"[1,\n\t]", "[1\n\t]"},
		{`{"s": ",}"}`, `{"s": ",}"}`},
		{`{"a": [1,],}`, `{"a": [1]}`},
	}
	for _, tt := range tests {
		if got := stripJSONComments(tt.in); got != tt.want {
			t.Errorf("stripJSONComments(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

const ollamaModels = `{
  // Local models
  "providers": {
    "ollama": {
      "baseUrl": "http://localhost:11434/v1",
      "api": "openai-completions",
      "apiKey": "ollama",
      "compat": {"supportsDeveloperRole": false, "maxTokensField": "max_tokens"},
      "models": [
        {"id": "llama3.1:8b"},
        {
          "id": "qwen3:32b", "name": "Qwen 3", "reasoning": true, "input": ["text", "image"],
          "contextWindow": 32768, "maxTokens": 8192,
          "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0, "cacheWrite": 0},
          "thinkingLevelMap": {"minimal": null, "xhigh": "max"},
          "compat": {"maxTokensField": "max_completion_tokens", "supportsStore": false},
        },
      ],
    },
    "openai": {
      "baseUrl": "https://proxy.example/v1",
      "modelOverrides": {"gpt-4o": {"name": "GPT-4o (proxy)", "cost": {"input": 1}, "headers": {"x-team": "TEAM_VAR"}}},
    },
    "groq": {
      "models": [{"id": "new-groq-model", "contextWindow": 65536}]
    },
  },
}`

func TestParseModelsConfig(t *testing.T) {
	path := writeModels(t, ollamaModels)
	cfg, err := LoadModelsConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range cfg.Providers {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "ollama,openai,groq" {
		t.Errorf("providers in file order: %v", names)
	}
	reg := provider.NewRegistry(provider.BuiltinModels(), cfg.Customization())

	llama := reg.Find("ollama", "llama3.1:8b")
	if llama == nil {
		t.Fatal("custom model missing")
	}
	want := provider.Model{ID: "llama3.1:8b", Name: "llama3.1:8b", API: "openai-completions", Provider: "ollama",
		BaseURL: "http://localhost:11434/v1", Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 16384}
	if llama.ID != want.ID || llama.Name != want.Name || llama.BaseURL != want.BaseURL || llama.Reasoning ||
		llama.ContextWindow != want.ContextWindow || llama.MaxTokens != want.MaxTokens || llama.Cost != (provider.ModelCost{}) ||
		strings.Join(llama.Input, ",") != "text" {
		t.Errorf("pi's defaults: %+v", llama)
	}
	if llama.Compat == nil || provider.Bool(llama.Compat.SupportsDeveloperRole, true) || llama.Compat.MaxTokensField != "max_tokens" {
		t.Errorf("provider compat inherited: %+v", llama.Compat)
	}

	qwen := reg.Find("ollama", "qwen3:32b")
	if qwen.Name != "Qwen 3" || !qwen.Reasoning || !qwen.SupportsImages() || qwen.ContextWindow != 32768 || qwen.MaxTokens != 8192 || qwen.Cost.Output != 0.2 {
		t.Errorf("explicit fields: %+v", qwen)
	}
	// Model compat wins field by field over provider compat.
	c := qwen.Compat
	if c.MaxTokensField != "max_completion_tokens" || provider.Bool(c.SupportsDeveloperRole, true) || provider.Bool(c.SupportsStore, true) {
		t.Errorf("compat merge: %+v", c)
	}
	if got := provider.SupportedThinkingLevels(qwen); len(got) != 5 || got[1] != provider.ThinkingLow || got[4] != provider.ThinkingXHigh {
		t.Errorf("thinkingLevelMap honoured: %v", got)
	}

	gpt := reg.Find("openai", "gpt-4o")
	if gpt.Name != "GPT-4o (proxy)" || gpt.Cost.Input != 1 || gpt.Cost.Output != 10 || gpt.BaseURL != "https://proxy.example/v1" {
		t.Errorf("override on built-in: %+v", gpt)
	}
	if other := reg.Find("openai", "gpt-4.1"); other.BaseURL != "https://proxy.example/v1" {
		t.Errorf("baseUrl re-routes every built-in model: %s", other.BaseURL)
	}
	// A custom model of a built-in provider inherits its api and base URL.
	g := reg.Find("groq", "new-groq-model")
	if g == nil || g.BaseURL != "https://api.groq.com/openai/v1" || g.API != provider.APIOpenAICompletions || g.ContextWindow != 65536 {
		t.Errorf("built-in provider defaults: %+v", g)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %v", cfg.Warnings)
	}
}

func TestModelsConfigMissingFile(t *testing.T) {
	cfg, err := LoadModelsConfig(filepath.Join(t.TempDir(), "models.json"))
	if err != nil || len(cfg.Providers) != 0 {
		t.Fatalf("missing file: %v %v", cfg, err)
	}
	reg, _, err := LoadRegistry(filepath.Join(t.TempDir(), "nope.json"))
	if err != nil || len(reg.All()) != len(provider.BuiltinModels()) {
		t.Fatalf("registry without models.json: %v", err)
	}
}

func TestModelsConfigErrors(t *testing.T) {
	tests := []struct {
		name, content string
		want          []string // substrings of the error
	}{
		{"syntax", "{\n  \"providers\": {\n    \"x\": {\"a\" 1}\n  }\n}", []string{"Failed to parse models.json:", "line 3", "File: "}},
		{"truncated", `{"providers": {`, []string{"Failed to parse models.json: unexpected end of JSON input"}},
		{"empty", ``, []string{"Failed to parse models.json: unexpected end of JSON input"}},
		{"trailing data", `{"providers": {}} {}`, []string{"Failed to parse models.json: unexpected data after the JSON value"}},
		{"no providers", `{}`, []string{"Invalid models.json schema:", "  - providers: Expected required property"}},
		{"not an object", `[]`, []string{"  - root: Expected object"}},
		{"model without id", `{"providers": {"x": {"baseUrl": "http://h", "apiKey": "k", "api": "openai-completions", "models": [{"name": "n"}]}}}`,
			[]string{"  - providers.x.models.0.id: Expected required property"}},
		{"wrong types", `{"providers": {"x": {"baseUrl": 5, "authHeader": "yes", "models": [{"id": "", "contextWindow": "big", "maxTokens": 1.5, "input": ["audio"], "cost": {"input": 1}}]}}}`,
			[]string{"providers.x.baseUrl: Expected string", "providers.x.authHeader: Expected boolean",
				"providers.x.models.0.id: Expected string length greater or equal to 1", "providers.x.models.0.contextWindow: Expected number",
				"providers.x.models.0.maxTokens: Expected integer", `providers.x.models.0.input.0: Expected "text" or "image"`,
				"providers.x.models.0.cost.output: Expected required property"}},
		{"bad compat", `{"providers": {"x": {"compat": {"supportsStore": "no", "maxTokensField": "tokens", "thinkingFormat": "weird"}}}}`,
			[]string{"providers.x.compat.supportsStore: Expected boolean", "providers.x.compat.maxTokensField: Expected one of", "providers.x.compat.thinkingFormat: Expected one of"}},
		{"bad level map", `{"providers": {"openai": {"modelOverrides": {"gpt-4o": {"thinkingLevelMap": {"maximum": "x", "max": "max", "high": 3}}}}}}`,
			[]string{"providers.openai.modelOverrides.gpt-4o.thinkingLevelMap.maximum: Unknown thinking level", "thinkingLevelMap.high: Expected string or null"}},
		{"header types", `{"providers": {"x": {"baseUrl": "http://h", "headers": {"a": 1}}}}`, []string{"providers.x.headers.a: Expected string"}},
		{"override only needs something", `{"providers": {"openai": {"name": "OpenAI"}}}`,
			[]string{`Failed to load models.json: Provider openai: must specify "baseUrl", "headers", "compat", "modelOverrides", or "models".`}},
		{"custom needs baseUrl", `{"providers": {"mine": {"apiKey": "k", "api": "openai-completions", "models": [{"id": "m"}]}}}`,
			[]string{`Provider mine: "baseUrl" is required when defining custom models.`}},
		{"custom needs api", `{"providers": {"mine": {"baseUrl": "http://h", "apiKey": "k", "models": [{"id": "m"}]}}}`,
			[]string{`Provider mine, model m: no "api" specified. Set at provider or model level.`}},
		{"invalid context window", `{"providers": {"mine": {"baseUrl": "http://h", "apiKey": "k", "api": "openai-completions", "models": [{"id": "m", "contextWindow": 0}]}}}`,
			[]string{"Provider mine, model m: invalid contextWindow"}},
		{"invalid max tokens", `{"providers": {"mine": {"baseUrl": "http://h", "apiKey": "k", "api": "openai-completions", "models": [{"id": "m", "maxTokens": -1}]}}}`,
			[]string{"Provider mine, model m: invalid maxTokens"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeModels(t, tt.content)
			cfg, err := LoadModelsConfig(path)
			var me *ModelsError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want *ModelsError", err)
			}
			if len(cfg.Providers) != 0 {
				t.Error("a bad file must be ignored as a whole")
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\nwant it to contain %q", msg, w)
				}
			}
			if !strings.HasSuffix(msg, "File: "+path) {
				t.Errorf("error must name the file: %q", msg)
			}
			// The registry still has every built-in model.
			reg, _, rerr := LoadRegistry(path)
			if rerr == nil || len(reg.All()) != len(provider.BuiltinModels()) {
				t.Errorf("LoadRegistry with a bad file: %v, %d models", rerr, len(reg.All()))
			}
		})
	}
}

func TestModelsConfigUnsupportedEntriesAreSkippedWithWarnings(t *testing.T) {
	cfg, err := parseModelsConfig([]byte(`{"providers": {
		"amazon-bedrock": {"models": [{"id": "claude-next"}]},
		"proxy": {"baseUrl": "http://p", "apiKey": "k", "api": "bedrock-converse-stream", "models": [{"id": "a"}, {"id": "c"}, {"id": "b", "api": "openai-completions"}]},
		"anthropic": {"models": [{"id": "claude-next"}]},
		"mistral": {"baseUrl": "http://m", "api": "mistral-conversations"}
	}}`), "/cfg/models.json")
	if err != nil {
		t.Fatal(err)
	}
	reg := provider.NewRegistry(nil, cfg.Customization())
	var got []string
	for _, m := range reg.All() {
		got = append(got, m.String())
	}
	if strings.Join(got, " ") != "proxy/b anthropic/claude-next" {
		t.Errorf("usable models: %v", got)
	}
	want := []string{
		"/cfg/models.json: provider amazon-bedrock: pi-go has no built-in amazon-bedrock provider",
		`/cfg/models.json: provider proxy: api "bedrock-converse-stream" is not supported by pi-go (it speaks openai-completions, anthropic-messages, openai-responses, google-generative-ai). Skipped models: a, c.`,
		`/cfg/models.json: provider mistral: api "mistral-conversations" is not supported by pi-go`,
	}
	if len(cfg.Warnings) != len(want) {
		t.Fatalf("warnings: %q", cfg.Warnings)
	}
	for i, w := range want {
		if !strings.Contains(cfg.Warnings[i], w) {
			t.Errorf("warning %q, want %q", cfg.Warnings[i], w)
		}
	}
}

func TestLoadRegistryUpsertsExtraModels(t *testing.T) {
	path := writeModels(t, ollamaModels)
	extra := provider.Model{ID: "llama3.1:8b", Name: "from flag", Provider: "ollama", API: provider.APIOpenAICompletions, BaseURL: "http://other"}
	reg, cfg, err := LoadRegistry(path, extra)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Provider("ollama") == nil || cfg.Provider("nope") != nil {
		t.Error("ModelsConfig.Provider")
	}
	if m := reg.Find("ollama", "llama3.1:8b"); m.Name != "from flag" {
		t.Errorf("extra model replaces the same id: %+v", m)
	}
}

// stripJSONComments does exactly what pi's two regular expressions do, on any text.
func TestStripJSONCommentsMatchesPisRegularExpressions(t *testing.T) {
	lineComment := regexp.MustCompile(`"(?:\\.|[^"\\])*"|//[^\n]*`)
	trailingComma := regexp.MustCompile(`"(?:\\.|[^"\\])*"|,(\s*[}\]])`)
	reference := func(s string) string {
		s = lineComment.ReplaceAllStringFunc(s, func(m string) string {
			if m[0] == '"' {
				return m
			}
			return ""
		})
		return trailingComma.ReplaceAllStringFunc(s, func(m string) string {
			if m[0] == '"' {
				return m
			}
			return m[1:]
		})
	}
	r := rand.New(rand.NewSource(1))
	alphabet := []string{`"`, `\`, `/`, `,`, `}`, `]`, ` `, "\n", "\t", "\f", "a", "{", "[", "é", "\xff"}
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		for n := r.Intn(24); n > 0; n-- {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		in := b.String()
		if got, want := stripJSONComments(in), reference(in); got != want {
			t.Fatalf("stripJSONComments(%q) = %q, pi makes %q", in, got, want)
		}
	}
}

// A repeated provider name keeps its first place and its last value, and keys beside "providers"
// are skipped, as JSON.parse reads the file; a repeated custom model replaces the first in place.
func TestParseModelsConfigRepeatedKeys(t *testing.T) {
	cfg, err := parseModelsConfig([]byte(`{"$schema": {"x": [1, "providers"]},
  "providers": {
    "a": {"baseUrl": "http://a/v1", "apiKey": "k", "api": "openai-completions", "models": [{"id": "m1"}]},
    "b": {"baseUrl": "http://b/v1", "apiKey": "k", "api": "openai-completions", "models": [{"id": "m"}, {"id": "m", "name": "second"}]},
    "a": {"baseUrl": "http://a2/v1", "apiKey": "k", "api": "openai-completions", "models": [{"id": "m2"}]}
  },
  "other": 1}`), "models.json")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range cfg.Providers {
		names = append(names, p.Name+"="+p.BaseURL)
	}
	if strings.Join(names, ",") != "a=http://a2/v1,b=http://b/v1" {
		t.Errorf("providers: %v", names)
	}
	if p := cfg.Provider("a"); p == nil || p.Models[0].ID != "m2" {
		t.Errorf("Provider(a) = %+v", p)
	}
	reg := provider.NewRegistry(nil, cfg.Customization())
	var ids []string
	for _, m := range reg.All() {
		ids = append(ids, m.Provider+"/"+m.ID+"/"+m.Name)
	}
	if strings.Join(ids, ",") != "a/m2/m2,b/m/second" {
		t.Errorf("registry: %v", ids)
	}
}

// pi 1.6 accepts an entry that only sets a key (or authHeader) for a provider, and custom models
// without an apiKey (their provider then has no key until one is configured elsewhere).
func TestModelsConfigPi16Acceptances(t *testing.T) {
	for _, content := range []string{
		`{"providers": {"openai": {"apiKey": "$MY_OPENAI_KEY"}}}`,
		`{"providers": {"openai": {"authHeader": false}}}`,
		`{"providers": {"mine": {"baseUrl": "http://h", "api": "openai-completions", "models": [{"id": "m"}]}}}`,
	} {
		cfg, err := parseModelsConfig([]byte(content), "models.json")
		if err != nil || len(cfg.Providers) != 1 {
			t.Errorf("%s: %v", content, err)
		}
	}
	cfg, _ := parseModelsConfig([]byte(`{"providers": {"mine": {"baseUrl": "http://h", "api": "openai-completions", "models": [{"id": "m"}]}}}`), "models.json")
	a := NewAuth(AuthOptions{Getenv: envMap(nil), Models: cfg})
	var nk *NoAPIKeyError
	if _, _, err := a.APIKey(context.Background(), "mine"); a.HasAuth("mine") || !errors.As(err, &nk) {
		t.Errorf("custom provider without apiKey: %v", err)
	}
}
