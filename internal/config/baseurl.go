package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
)

// EnvBaseURL is the environment variable read when --base-url is not given (the OpenAI SDKs' name).
const EnvBaseURL = "OPENAI_BASE_URL"

// CustomProvider is the provider name of a --base-url endpoint that is not a built-in provider's.
const CustomProvider = "custom"

// Endpoint is an OpenAI-compatible server chosen with --base-url or $OPENAI_BASE_URL (a local
// Ollama, llama.cpp or vLLM, a proxy, or a built-in provider's own URL).
type Endpoint struct {
	// Provider is the built-in provider whose host BaseURL is on (so its key and models apply), or
	// CustomProvider.
	Provider string
	BaseURL  string // without a trailing slash
	// FromEnv is set when the URL came from $OPENAI_BASE_URL rather than the flag.
	FromEnv bool
}

// ResolveEndpoint returns the --base-url flag's endpoint, else $OPENAI_BASE_URL's; ok is false when
// neither is set.
func ResolveEndpoint(flag string, getenv Getenv) (e Endpoint, ok bool, err error) {
	raw, fromEnv := flag, false
	if raw == "" {
		if getenv == nil {
			return Endpoint{}, false, nil
		}
		raw, fromEnv = getenv(EnvBaseURL), true
		if raw == "" {
			return Endpoint{}, false, nil
		}
	}
	e, err = ParseEndpoint(raw)
	if err != nil {
		if fromEnv {
			return Endpoint{}, false, fmt.Errorf("%s: %w", EnvBaseURL, err)
		}
		return Endpoint{}, false, fmt.Errorf("--base-url: %w", err)
	}
	e.FromEnv = fromEnv
	return e, true, nil
}

// ParseEndpoint checks a base URL (http or https, with a host) and names its provider: the
// built-in provider with the same scheme and host, else CustomProvider. The URL is used as given,
// without adding "/v1".
func ParseEndpoint(raw string) (Endpoint, error) {
	s := strings.TrimRight(strings.TrimSpace(raw), "/")
	if s == "" {
		return Endpoint{}, errors.New("empty base URL")
	}
	u, err := url.Parse(s)
	if err != nil {
		return Endpoint{}, fmt.Errorf("invalid base URL %q: %w", redactURL(s), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return Endpoint{}, fmt.Errorf("invalid base URL %q: want http:// or https://, e.g. http://localhost:11434/v1", redactURL(s))
	}
	if u.Host == "" {
		return Endpoint{}, fmt.Errorf("invalid base URL %q: no host", redactURL(s))
	}
	if u.User != nil {
		return Endpoint{}, errors.New("invalid base URL: credentials in the URL are not supported; pass the key with --api-key")
	}
	e := Endpoint{Provider: CustomProvider, BaseURL: s}
	for _, p := range provider.BuiltinProviders() {
		bu, err := url.Parse(p.BaseURL)
		if err == nil && strings.EqualFold(bu.Host, u.Host) && bu.Scheme == u.Scheme {
			e.Provider = p.Name
			break
		}
	}
	return e, nil
}

// redactURL drops any user info from a URL before it goes into a message.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return s
}

// KeyEnvVar is the environment variable whose key may be sent to this endpoint: the provider's own
// for a built-in host; for a custom endpoint OPENAI_API_KEY only when the URL also came from the
// environment (the OpenAI SDK convention of setting both), so an OpenAI key is never sent to a server
// named only on the command line.
func (e Endpoint) KeyEnvVar() string {
	if e.Provider != CustomProvider {
		return provider.APIKeyEnvVar(e.Provider)
	}
	if e.FromEnv {
		return "OPENAI_API_KEY"
	}
	return ""
}

// Model builds the model called id on this endpoint. On a built-in provider's host a catalogue model
// with that id is used as it is (re-routed to BaseURL); an unknown id there clones the provider's
// default model, as --provider does. On a custom endpoint the model gets pi's defaults for custom
// models (context window 128000, 16384 output tokens, text input, no reasoning, no cost) and the
// conservative compat local servers accept: no store, system rather than developer role, max_tokens,
// no strict flag on tools. The id is taken literally: "qwen2.5-coder:7b" keeps its tag.
func (e Endpoint) Model(id string) (provider.Model, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return provider.Model{}, fmt.Errorf("a model id is required with --base-url %s (e.g. --model qwen2.5-coder)", e.BaseURL)
	}
	if e.Provider != CustomProvider {
		m, ok := provider.BuiltinModel(e.Provider, id)
		if !ok {
			def, found := provider.BuiltinModel(e.Provider, provider.DefaultModelID(e.Provider))
			if !found {
				return provider.Model{}, fmt.Errorf("provider %s has no default model", e.Provider)
			}
			m = def
			m.ID, m.Name = id, id
		}
		m.BaseURL = e.BaseURL
		return m, nil
	}
	return provider.Model{
		ID:            id,
		Name:          id,
		API:           provider.APIOpenAICompletions,
		Provider:      CustomProvider,
		BaseURL:       e.BaseURL,
		Input:         []string{"text"},
		ContextWindow: DefaultContextWindow,
		MaxTokens:     DefaultMaxTokens,
		Compat: &provider.Compat{
			SupportsStore:         provider.Ptr(false),
			SupportsDeveloperRole: provider.Ptr(false),
			MaxTokensField:        "max_tokens",
			SupportsStrictMode:    provider.Ptr(false),
		},
	}, nil
}
