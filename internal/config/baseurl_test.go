package config

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func TestParseEndpoint(t *testing.T) {
	tests := []struct {
		in, provider, base, err string
	}{
		{in: "http://localhost:11434/v1", provider: "custom", base: "http://localhost:11434/v1"},
		{in: " http://127.0.0.1:8080/v1/ ", provider: "custom", base: "http://127.0.0.1:8080/v1"},
		{in: "https://api.openai.com/v1", provider: "openai", base: "https://api.openai.com/v1"},
		{in: "https://OPENROUTER.ai/api/v1", provider: "openrouter", base: "https://OPENROUTER.ai/api/v1"},
		{in: "https://api.groq.com/openai/v1", provider: "groq", base: "https://api.groq.com/openai/v1"},
		{in: "http://api.openai.com/v1", provider: "custom", base: "http://api.openai.com/v1"},
		{in: "localhost:11434/v1", err: "want http:// or https://"},
		{in: "ftp://host/v1", err: "want http:// or https://"},
		{in: "http:///v1", err: "no host"},
		{in: "", err: "empty base URL"},
		{in: "https://user:" + secretKey + "@host/v1", err: "credentials in the URL are not supported"},
	}
	for _, tt := range tests {
		e, err := ParseEndpoint(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.in, err, tt.err)
			}
			if err != nil && strings.Contains(err.Error(), "SECRET") {
				t.Errorf("%q: error leaks the password: %v", tt.in, err)
			}
			continue
		}
		if err != nil || e.Provider != tt.provider || e.BaseURL != tt.base {
			t.Errorf("%q: %+v %v, want %s %s", tt.in, e, err, tt.provider, tt.base)
		}
	}
}

func TestResolveEndpoint(t *testing.T) {
	env := envMap(map[string]string{EnvBaseURL: "http://env-host:8000/v1"})
	e, ok, err := ResolveEndpoint("http://flag-host/v1", env)
	if err != nil || !ok || e.BaseURL != "http://flag-host/v1" || e.FromEnv {
		t.Errorf("flag wins: %+v %v %v", e, ok, err)
	}
	e, ok, err = ResolveEndpoint("", env)
	if err != nil || !ok || e.BaseURL != "http://env-host:8000/v1" || !e.FromEnv {
		t.Errorf("env: %+v %v %v", e, ok, err)
	}
	if _, ok, err := ResolveEndpoint("", envMap(nil)); ok || err != nil {
		t.Errorf("neither: %v %v", ok, err)
	}
	if _, _, err := ResolveEndpoint("", envMap(map[string]string{EnvBaseURL: "nonsense"})); err == nil || !strings.HasPrefix(err.Error(), EnvBaseURL+":") {
		t.Errorf("bad env value: %v", err)
	}
	if _, _, err := ResolveEndpoint("nonsense", nil); err == nil || !strings.HasPrefix(err.Error(), "--base-url:") {
		t.Errorf("bad flag value: %v", err)
	}
}

func TestEndpointModel(t *testing.T) {
	e, _ := ParseEndpoint("http://localhost:11434/v1")
	m, err := e.Model("qwen2.5-coder:7b")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "qwen2.5-coder:7b" || m.Name != m.ID || m.Provider != "custom" || m.BaseURL != "http://localhost:11434/v1" ||
		m.API != provider.APIOpenAICompletions || m.ContextWindow != 128000 || m.MaxTokens != 16384 || m.Reasoning ||
		strings.Join(m.Input, ",") != "text" || m.Cost != (provider.ModelCost{}) {
		t.Errorf("custom endpoint model: %+v", m)
	}
	if c := m.Compat; c == nil || provider.Bool(c.SupportsStore, true) || provider.Bool(c.SupportsDeveloperRole, true) ||
		c.MaxTokensField != "max_tokens" || provider.Bool(c.SupportsStrictMode, true) {
		t.Errorf("conservative compat: %+v", m.Compat)
	}
	if _, err := e.Model("  "); err == nil || !strings.Contains(err.Error(), "--model") {
		t.Errorf("missing id: %v", err)
	}

	or, _ := ParseEndpoint("https://openrouter.ai/api/v1")
	known, err := or.Model("moonshotai/kimi-k2.6")
	if err != nil || known.ContextWindow != 262144 || known.Provider != "openrouter" {
		t.Errorf("built-in host, known id: %+v %v", known, err)
	}
	unknown, err := or.Model("vendor/new-model")
	if err != nil || unknown.ID != "vendor/new-model" || unknown.Provider != "openrouter" || unknown.ContextWindow != known.ContextWindow {
		t.Errorf("built-in host, unknown id clones the default: %+v %v", unknown, err)
	}

	// The model joins the registry and resolves there.
	reg, _, err := LoadRegistry("", m)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := reg.ResolveCLIModel("", "qwen2.5-coder:7b"); err != nil || got.Model.Provider != "custom" || got.Thinking != "" {
		t.Errorf("resolve the endpoint model: %+v %v", got.Model, err)
	}
}

func TestEndpointAuth(t *testing.T) {
	ctx := context.Background()
	env := map[string]string{"OPENAI_API_KEY": secretKey}

	// A custom endpoint named on the command line works without a key and never gets OPENAI_API_KEY.
	flagEP, _, _ := ResolveEndpoint("http://localhost:11434/v1", envMap(env))
	a := NewAuth(AuthOptions{Getenv: envMap(env)})
	if a.HasAuth("custom") {
		t.Error("custom endpoint before AddEndpoint")
	}
	a.AddEndpoint(flagEP)
	k, src, err := a.APIKey(ctx, "custom")
	if err != nil || !k.IsZero() || src != KeyNotNeeded || !a.HasAuth("custom") {
		t.Errorf("keyless endpoint: %v %s %v", k, src, err)
	}
	m, _ := flagEP.Model("qwen2.5-coder")
	ra, err := a.RequestAuth(ctx, &m)
	if err != nil || !ra.APIKey.IsZero() || ra.Headers != nil {
		t.Errorf("keyless request: %+v %v", ra, err)
	}
	// --api-key still applies.
	a.SetRuntimeAPIKey("custom", NewAPIKey("sk-local"))
	if k, _, _ := a.APIKey(ctx, "custom"); k.Reveal() != "sk-local" {
		t.Errorf("runtime key for endpoint: %v", k)
	}

	// From the environment, OPENAI_BASE_URL pairs with OPENAI_API_KEY.
	env[EnvBaseURL] = "https://litellm.internal/v1"
	envEP, _, _ := ResolveEndpoint("", envMap(env))
	b := NewAuth(AuthOptions{Getenv: envMap(env)})
	b.AddEndpoint(envEP)
	if k, src, err := b.APIKey(ctx, "custom"); err != nil || k.Reveal() != secretKey || src != KeyFromEnv {
		t.Errorf("env endpoint key: %s %v", src, err)
	}

	// A built-in host needs that provider's key like any of its models.
	orEP, _, _ := ResolveEndpoint("https://openrouter.ai/api/v1", envMap(env))
	c := NewAuth(AuthOptions{Getenv: envMap(env)})
	c.AddEndpoint(orEP)
	var nk *NoAPIKeyError
	if _, _, err := c.APIKey(ctx, "openrouter"); !errors.As(err, &nk) || nk.EnvVar != "OPENROUTER_API_KEY" {
		t.Errorf("built-in host without its key: %v", err)
	}
}
