package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/pi-go/pi-go/internal/provider"
)

// APIKey holds a secret so that it does not leak by accident: printing it with any fmt verb, logging
// it with slog, or marshalling it as JSON or text shows "[redacted]". The secret is held by a
// closure, which fmt can only print as an address, so even a struct holding an APIKey in an
// unexported field (where fmt cannot call its methods) does not show the key. Reveal is the one way
// out, for the Authorization header.
type APIKey struct {
	get func() string
}

const redacted = "[redacted]"

// NewAPIKey wraps a key; an empty string gives the zero APIKey.
func NewAPIKey(key string) APIKey {
	if key == "" {
		return APIKey{}
	}
	return APIKey{get: func() string { return key }}
}

// Reveal returns the key itself. Call it only to put the key on the wire.
func (k APIKey) Reveal() string {
	if k.get == nil {
		return ""
	}
	return k.get()
}

// IsZero reports whether there is no key.
func (k APIKey) IsZero() bool { return k.get == nil }

// String never shows the key.
func (k APIKey) String() string {
	if k.get == nil {
		return "[none]"
	}
	return redacted
}

// GoString never shows the key.
func (k APIKey) GoString() string { return "config.APIKey(" + k.String() + ")" }

// Format makes every fmt verb (%s %v %q %x %d %+v %#v ...) print String's text.
func (k APIKey) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, k.GoString())
		return
	}
	fmt.Fprint(f, k.String())
}

// MarshalJSON writes "[redacted]": a key must never reach a session or settings file.
func (k APIKey) MarshalJSON() ([]byte, error) { return json.Marshal(k.String()) }

// MarshalText writes "[redacted]".
func (k APIKey) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// LogValue keeps the key out of slog output.
func (k APIKey) LogValue() slog.Value { return slog.StringValue(k.String()) }

// Headers are request headers whose values may be secrets (resolved from commands or environment
// variables, Authorization). Printing them shows the names only.
type Headers map[string]string

// Format prints the header names with redacted values.
func (h Headers) Format(f fmt.State, verb rune) {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k+":"+redacted)
	}
	sort.Strings(names)
	fmt.Fprint(f, "map["+strings.Join(names, " ")+"]")
}

// LogValue keeps header values out of slog output.
func (h Headers) LogValue() slog.Value { return slog.StringValue(fmt.Sprint(h)) }

// MarshalJSON keeps header values out of JSON.
func (h Headers) MarshalJSON() ([]byte, error) {
	out := make(map[string]string, len(h))
	for k := range h {
		out[k] = redacted
	}
	return json.Marshal(out)
}

// AuthCredential is one auth.json entry as read at start. Only api_key entries are used from it:
// OAuth logins count only for extensions' providers that brought the login, and are read live from
// the AuthStore (oauth.go); pi's built-in OAuth providers are not implemented by pi-go.
type AuthCredential struct {
	Type string `json:"type"` // "api_key" or "oauth"
	// Key is the api_key value as written: a literal, a template with $NAME references or a
	// !command (see ValueResolver).
	Key string `json:"key,omitempty"`
	// Env are variables for this credential's $NAME references, read before the environment
	// (pi 1.6's provider-scoped env).
	Env map[string]string `json:"env,omitempty"`
}

// AuthFile is a parsed auth.json: {"<provider>": {"type": "api_key", "key": "..."}, ...}.
type AuthFile struct {
	Path    string
	Entries map[string]AuthCredential
	// Warnings name the entries ignored for a value of the wrong type (the file, the provider and
	// the key; never a value).
	Warnings []string
}

// LoadAuthFile reads auth.json; a missing file is empty. Errors never quote the file's content.
func LoadAuthFile(path string) (*AuthFile, error) {
	af := &AuthFile{Path: path, Entries: map[string]AuthCredential{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return af, nil
	}
	if err != nil {
		return af, fmt.Errorf("read auth.json: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return af, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return af, fmt.Errorf("%s is not valid JSON%s", path, position(string(data), syn.Offset))
		}
		return af, fmt.Errorf("%s is not a JSON object of credentials", path)
	}
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		// An entry with a value of the wrong type is skipped and named (never quoted); the others
		// stay usable.
		var generic any
		if err := json.Unmarshal(raw[name], &generic); err != nil {
			continue
		}
		if _, problems, ok := checkValue(generic, authCredentialType, name); !ok || len(problems) > 0 {
			for _, p := range problems {
				af.Warnings = append(af.Warnings, fmt.Sprintf("%s: %s (entry ignored)", path, p))
			}
			continue
		}
		var c AuthCredential
		if err := json.Unmarshal(raw[name], &c); err != nil {
			continue
		}
		af.Entries[name] = c
	}
	return af, nil
}

var authCredentialType = reflect.TypeOf(AuthCredential{})

// KeySource says where a provider's key came from.
type KeySource string

const (
	KeyFromRuntime    KeySource = "--api-key"
	KeyFromAuthFile   KeySource = "auth.json"
	KeyFromEnv        KeySource = "environment"
	KeyFromModelsJSON KeySource = "models.json"
	// KeyNotNeeded: the provider is an endpoint that takes requests without a key.
	KeyNotNeeded KeySource = "none needed"
)

// NoAPIKeyError says a provider has no key configured.
type NoAPIKeyError struct {
	Provider string
	EnvVar   string // the provider's environment variable, "" if it has none
}

func (e *NoAPIKeyError) Error() string {
	hint := "pass --api-key, or add an api_key entry to auth.json or an apiKey to models.json"
	if e.EnvVar != "" {
		hint = "set " + e.EnvVar + ", " + hint
	}
	return fmt.Sprintf("No API key found for %s. To fix it, %s.", e.Provider, hint)
}

// AuthOptions configure an Auth.
type AuthOptions struct {
	Getenv   Getenv         // nil: os.Getenv
	Resolver *ValueResolver // nil: a new one reading Getenv
	File     *AuthFile      // parsed auth.json; nil: none
	Models   *ModelsConfig  // parsed models.json (provider apiKey, headers, authHeader); nil: none
	// Store is auth.json as the logins of extensions' providers read and write it, live (nil: none).
	Store *AuthStore
}

// Auth finds API keys and request headers in pi 1.6's order: the runtime --api-key, auth.json
// api_key entries, models.json's provider apiKey, the provider's environment variable. (pi 0.73.1
// read the environment variable before models.json.) A models.json apiKey that names an unset
// variable leaves the provider without a key, as in pi 1.6: it does not fall back to the
// environment variable. Safe for concurrent use.
type Auth struct {
	getenv   Getenv
	resolver *ValueResolver
	file     *AuthFile
	models   *ModelsConfig

	mu       sync.Mutex
	runtime  map[string]APIKey
	keyless  map[string]bool
	extraEnv map[string]string // provider → env var that may supply its key (see Endpoint)
	// extProviders are the providers extensions registered (extprovider.go), by name.
	extProviders map[string]*ProviderConfig
	// providerAuth is the authentication extensions' providers bring (oauth.go), by name;
	// refreshing runs one OAuth refresh at a time per provider.
	store        *AuthStore
	providerAuth map[string]ProviderAuth
	refreshing   singleflight.Group
}

// NewAuth builds an Auth.
func NewAuth(o AuthOptions) *Auth {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Resolver == nil {
		o.Resolver = NewValueResolver(o.Getenv)
	}
	return &Auth{getenv: o.Getenv, resolver: o.Resolver, file: o.File, models: o.Models, store: o.Store,
		runtime: map[string]APIKey{}, keyless: map[string]bool{}, extraEnv: map[string]string{}}
}

// SetRuntimeAPIKey sets the --api-key override for a provider (never written anywhere).
func (a *Auth) SetRuntimeAPIKey(provider string, key APIKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if key.IsZero() {
		delete(a.runtime, provider)
		return
	}
	a.runtime[provider] = key
}

// AddEndpoint registers a --base-url endpoint: a custom endpoint works without a key, and takes one
// from the environment variable the endpoint allows (see Endpoint.KeyEnvVar).
func (a *Auth) AddEndpoint(e Endpoint) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e.Provider == CustomProvider {
		a.keyless[e.Provider] = true
	}
	if env := e.KeyEnvVar(); env != "" && env != provider.APIKeyEnvVar(e.Provider) {
		a.extraEnv[e.Provider] = env
	}
}

func (a *Auth) envVarFor(prov string) (builtin, extra string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return provider.APIKeyEnvVar(prov), a.extraEnv[prov]
}

// keyEnvVars are the environment variables that hold a provider's key, in pi's order: for Anthropic
// ANTHROPIC_AUTH_TOKEN (sent as a bearer token, see RequestAuth) and ANTHROPIC_OAUTH_TOKEN before
// ANTHROPIC_API_KEY.
func (a *Auth) keyEnvVars(prov string) []string {
	builtin, extra := a.envVarFor(prov)
	if prov == "anthropic" {
		return []string{provider.AnthropicAuthTokenEnv, "ANTHROPIC_OAUTH_TOKEN", builtin, extra}
	}
	return []string{builtin, extra}
}

// HasAuth reports whether a provider has any key configured (or needs none), without running
// commands: the test for "available" models. Like pi, an auth.json entry or a models.json apiKey
// counts even if resolving it later fails; a value naming an unset variable does not.
func (a *Auth) HasAuth(prov string) bool {
	a.mu.Lock()
	_, rt := a.runtime[prov]
	keyless := a.keyless[prov]
	a.mu.Unlock()
	if rt || keyless {
		return true
	}
	if has, handled := a.hasProviderAuth(prov); handled {
		return has
	}
	if c, ok := a.fileEntry(prov); ok && c.Key != "" {
		return a.resolver.Configured(c.Key, c.Env)
	}
	if p := a.providerConfig(prov); p != nil && p.APIKey != "" {
		return a.resolver.Configured(p.APIKey, nil)
	}
	for _, env := range a.keyEnvVars(prov) {
		if env != "" && a.getenv(env) != "" {
			return true
		}
	}
	return false
}

func (a *Auth) fileEntry(prov string) (AuthCredential, bool) {
	if a.file == nil {
		return AuthCredential{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	c, ok := a.file.Entries[prov]
	return c, ok && c.Type == "api_key"
}

// ForgetFileEntry drops prov's auth.json entry read at start (/logout removed it from the file).
func (a *Auth) ForgetFileEntry(prov string) {
	if a.file == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.file.Entries, prov)
}

// APIKey returns the key for a provider and where it came from. A provider that needs no key gets
// the zero key and KeyNotNeeded; one with nothing configured gets a *NoAPIKeyError. A value that
// fails to resolve (a !command that fails, a $NAME that is not set) is an error naming its source,
// never a fall-through.
func (a *Auth) APIKey(ctx context.Context, prov string) (APIKey, KeySource, error) {
	key, source, _, err := a.resolveKey(ctx, prov)
	return key, source, err
}

// resolveKey is APIKey, with the headers an extension's provider auth adds to its key (nil: none).
func (a *Auth) resolveKey(ctx context.Context, prov string) (APIKey, KeySource, map[string]string, error) {
	a.mu.Lock()
	rt, hasRT := a.runtime[prov]
	keyless := a.keyless[prov]
	a.mu.Unlock()
	if hasRT {
		return rt, KeyFromRuntime, nil, nil
	}
	if r, source, handled, err := a.resolveProviderAuth(ctx, prov); handled {
		return r.APIKey, source, r.Headers, err
	}
	if c, ok := a.fileEntry(prov); ok && c.Key != "" {
		v, err := a.resolver.ResolveWith(ctx, c.Key, c.Env)
		if err != nil {
			return APIKey{}, KeyFromAuthFile, nil, fmt.Errorf("API key for provider %q in %s (%s.key): %w",
				prov, fileOr(a.file.Path, "auth.json"), prov, err)
		}
		return NewAPIKey(v), KeyFromAuthFile, nil, nil
	}
	if p := a.providerConfig(prov); p != nil && p.APIKey != "" {
		v, err := a.resolver.Resolve(ctx, p.APIKey)
		if err != nil {
			return APIKey{}, KeyFromModelsJSON, nil, fmt.Errorf("API key for provider %q in %s (providers.%s.apiKey): %w",
				prov, a.configFile(prov), prov, err)
		}
		return NewAPIKey(v), KeyFromModelsJSON, nil, nil
	}
	builtin, _ := a.envVarFor(prov)
	for _, env := range a.keyEnvVars(prov) {
		if env == "" {
			continue
		}
		if v := a.getenv(env); v != "" {
			return NewAPIKey(v), KeyFromEnv, nil, nil
		}
	}
	if keyless {
		return APIKey{}, KeyNotNeeded, nil, nil
	}
	return APIKey{}, "", nil, &NoAPIKeyError{Provider: prov, EnvVar: builtin}
}

// RequestAuth is what one request to a model needs: its key (zero for a keyless endpoint) and its
// extra headers.
type RequestAuth struct {
	APIKey  APIKey
	Source  KeySource
	Headers Headers // nil when there are none
}

// RequestAuth resolves the key and the headers of a request to m (pi's getApiKeyAndHeaders): the
// model's own headers, then models.json provider headers, then models.json model headers (each
// value resolved like a key, every one must resolve), and "Authorization: Bearer <key>" when the
// provider sets authHeader.
func (a *Auth) RequestAuth(ctx context.Context, m *provider.Model) (RequestAuth, error) {
	key, source, authHeaders, err := a.resolveKey(ctx, m.Provider)
	if err != nil {
		return RequestAuth{}, err
	}
	headers := Headers{}
	for k, v := range m.Headers {
		headers[k] = v
	}
	for k, v := range authHeaders {
		headers[k] = v
	}
	if m.Provider == "anthropic" && source == KeyFromEnv {
		if tok := a.getenv(provider.AnthropicAuthTokenEnv); tok != "" && tok == key.Reveal() {
			// pi sends ANTHROPIC_AUTH_TOKEN as a bearer token, not as an API key.
			headers["Authorization"] = "Bearer " + tok
			key = APIKey{}
		}
	}
	pc := a.providerConfig(m.Provider)
	if pc != nil {
		if err := a.resolveHeaders(ctx, headers, pc.Headers, m.Provider, "providers."+m.Provider+".headers"); err != nil {
			return RequestAuth{}, err
		}
		mh, at := modelHeaders(pc, m.ID)
		if err := a.resolveHeaders(ctx, headers, mh, m.Provider, at); err != nil {
			return RequestAuth{}, err
		}
		if pc.AuthHeader != nil && *pc.AuthHeader {
			if key.IsZero() {
				return RequestAuth{}, &NoAPIKeyError{Provider: m.Provider, EnvVar: provider.APIKeyEnvVar(m.Provider)}
			}
			headers["Authorization"] = "Bearer " + key.Reveal()
		}
	}
	if len(headers) == 0 {
		headers = nil
	}
	return RequestAuth{APIKey: key, Source: source, Headers: headers}, nil
}

// modelHeaders are a model's own models.json headers, and where they are in the file: its
// definition's when it is a custom model, else its modelOverrides entry's.
func modelHeaders(pc *ProviderConfig, id string) (map[string]string, string) {
	for i := range pc.Models {
		if pc.Models[i].ID == id {
			return pc.Models[i].Headers, fmt.Sprintf("providers.%s.models.%d.headers", pc.Name, i)
		}
	}
	return pc.ModelOverrides[id].Headers, fmt.Sprintf("providers.%s.modelOverrides.%s.headers", pc.Name, id)
}

// fileOr is path, or name when the file was not read from a path.
func fileOr(path, name string) string {
	if path == "" {
		return name
	}
	return path
}

// resolveHeaders resolves the header values src (at the key path at of models.json) into dst.
func (a *Auth) resolveHeaders(ctx context.Context, dst Headers, src map[string]string, prov, at string) error {
	names := make([]string, 0, len(src))
	for k := range src {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		v, err := a.resolver.Resolve(ctx, src[name])
		if err != nil {
			return fmt.Errorf("header %q for provider %q in %s (%s.%s): %w",
				name, prov, a.configFile(prov), at, name, err)
		}
		dst[name] = v
	}
	return nil
}

// BareEnvNameWarnings names every models.json apiKey and header value, and every auth.json key, that
// is the bare name of a set environment variable: pi 0.73.1 sent that variable's value, pi 1.6 (and
// pi-go) send the name itself. One line per value, naming the file and the key; the value is a
// variable's name, never a secret.
func BareEnvNameWarnings(models *ModelsConfig, file *AuthFile, getenv Getenv) []string {
	var out []string
	warn := func(path, at, value string) {
		if bareEnvName(value, getenv) {
			out = append(out, fmt.Sprintf("%s: %s is the literal text %q; pi 1.6 no longer reads environment variables by bare name: write \"$%s\"",
				path, at, value, value))
		}
	}
	headers := func(path, at string, h map[string]string) {
		for _, name := range sortedStringKeys(h) {
			warn(path, at+"."+name, h[name])
		}
	}
	if models != nil {
		path := fileOr(models.Path, "models.json")
		for _, p := range models.Providers {
			at := "providers." + p.Name
			warn(path, at+".apiKey", p.APIKey)
			headers(path, at+".headers", p.Headers)
			for i, m := range p.Models {
				headers(path, fmt.Sprintf("%s.models.%d.headers", at, i), m.Headers)
			}
			for _, id := range sortedStringKeys(p.ModelOverrides) {
				headers(path, at+".modelOverrides."+id+".headers", p.ModelOverrides[id].Headers)
			}
		}
	}
	if file != nil {
		path := fileOr(file.Path, "auth.json")
		for _, name := range sortedStringKeys(file.Entries) {
			if c := file.Entries[name]; c.Type == "api_key" {
				warn(path, name+".key", c.Key)
			}
		}
	}
	return out
}

func sortedStringKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
