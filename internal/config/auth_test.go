package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

const secretKey = "sk-test-SECRET-0123456789"

func TestAPIKeyNeverPrints(t *testing.T) {
	k := NewAPIKey(secretKey)
	type holder struct {
		Key     APIKey
		private APIKey
	}
	h := holder{Key: k, private: k}
	var outputs []string
	for _, verb := range []string{"%s", "%v", "%+v", "%#v", "%q", "%x", "%X", "%d", "%10s", "%T"} {
		outputs = append(outputs, fmt.Sprintf(verb, k), fmt.Sprintf(verb, h), fmt.Sprintf(verb, &h))
	}
	outputs = append(outputs, fmt.Sprint(k), fmt.Sprintln(h), k.String(), k.GoString(), fmt.Sprint([]APIKey{k}),
		fmt.Sprint(map[string]APIKey{"k": k}))
	js, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, string(js))
	text, _ := k.MarshalText()
	outputs = append(outputs, string(text))
	var logBuf bytes.Buffer
	slog.New(slog.NewJSONHandler(&logBuf, nil)).Info("auth", "key", k, "holder", h)
	slog.New(slog.NewTextHandler(&logBuf, nil)).Info("auth", "key", k)
	outputs = append(outputs, logBuf.String())
	for _, out := range outputs {
		if strings.Contains(out, "SECRET") || strings.Contains(out, fmt.Sprintf("%x", secretKey)) {
			t.Errorf("key leaked: %s", out)
		}
	}
	if !strings.Contains(fmt.Sprint(k), "[redacted]") || string(js) != `{"Key":"[redacted]"}` {
		t.Errorf("redaction marker missing: %s %s", fmt.Sprint(k), js)
	}
	if k.Reveal() != secretKey || k.IsZero() || !NewAPIKey("").IsZero() || NewAPIKey("").String() != "[none]" {
		t.Error("Reveal/IsZero")
	}
	hdr := Headers{"Authorization": "Bearer " + secretKey, "x-team": "blue"}
	hs := fmt.Sprintf("%v %+v %s", hdr, hdr, hdr)
	hj, _ := json.Marshal(hdr)
	if strings.Contains(hs+string(hj), "SECRET") || strings.Contains(hs, "blue") || !strings.Contains(hs, "Authorization") {
		t.Errorf("headers printed as %s / %s", hs, hj)
	}
}

func writeAuth(t *testing.T, content string) *AuthFile {
	t.Helper()
	path := filepath.Join(t.TempDir(), "auth.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	af, err := LoadAuthFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return af
}

func TestAPIKeyLookupOrder(t *testing.T) {
	models, err := parseModelsConfig([]byte(`{"providers": {
		"openai": {"baseUrl": "https://api.openai.com/v1", "apiKey": "models-json-openai"},
		"local": {"baseUrl": "http://localhost:8080/v1", "api": "openai-completions", "apiKey": "$LOCAL_KEY_VAR", "models": [{"id": "m"}]},
		"bare": {"baseUrl": "http://localhost:8081/v1", "api": "openai-completions", "apiKey": "LOCAL_KEY_VAR", "models": [{"id": "m"}]},
		"groq": {"apiKey": "$UNSET_GROQ"}
	}}`), "models.json")
	if err != nil {
		t.Fatal(err)
	}
	file := writeAuth(t, `{"openai": {"type": "api_key", "key": "auth-json-openai"}, "groq": {"type": "oauth", "access": "x", "expires": 1}}`)
	env := map[string]string{"OPENAI_API_KEY": "env-openai", "GROQ_API_KEY": "env-groq", "LOCAL_KEY_VAR": "env-local"}
	newAuth := func(file *AuthFile, models *ModelsConfig) *Auth {
		return NewAuth(AuthOptions{Getenv: envMap(env), File: file, Models: models})
	}
	ctx := context.Background()
	check := func(a *Auth, prov, wantKey string, wantSource KeySource) {
		t.Helper()
		k, src, err := a.APIKey(ctx, prov)
		if err != nil {
			t.Fatalf("%s: %v", prov, err)
		}
		if k.Reveal() != wantKey || src != wantSource {
			t.Errorf("%s: %q from %s, want %q from %s", prov, k.Reveal(), src, wantKey, wantSource)
		}
		if !a.HasAuth(prov) {
			t.Errorf("%s: HasAuth false", prov)
		}
	}
	a := newAuth(file, models)
	check(a, "openai", "auth-json-openai", KeyFromAuthFile) // auth.json before env and models.json
	a.SetRuntimeAPIKey("openai", NewAPIKey("runtime-openai"))
	check(a, "openai", "runtime-openai", KeyFromRuntime) // --api-key first
	a.SetRuntimeAPIKey("openai", APIKey{})
	check(a, "openai", "auth-json-openai", KeyFromAuthFile)
	check(newAuth(nil, models), "openai", "models-json-openai", KeyFromModelsJSON) // models.json before env (pi 1.6)
	check(newAuth(nil, nil), "openai", "env-openai", KeyFromEnv)
	check(newAuth(nil, nil), "groq", "env-groq", KeyFromEnv) // OAuth entries are not keys for pi-go
	check(a, "local", "env-local", KeyFromModelsJSON)        // models.json apiKey "$NAME"
	check(a, "bare", "LOCAL_KEY_VAR", KeyFromModelsJSON)     // a bare name is the literal (pi 1.6)
	// A models.json apiKey naming an unset variable leaves the provider without a key: no fall back
	// to GROQ_API_KEY, as in pi 1.6.
	if a.HasAuth("groq") {
		t.Error("groq: HasAuth with its apiKey variable unset")
	}
	if _, _, err := a.APIKey(ctx, "groq"); err == nil || err.Error() != `API key for provider "groq" in models.json (providers.groq.apiKey): environment variable UNSET_GROQ is not set` {
		t.Errorf("groq: %v", err)
	}
	delete(env, "LOCAL_KEY_VAR")
	if _, _, err := a.APIKey(ctx, "local"); err == nil || !strings.Contains(err.Error(), "LOCAL_KEY_VAR is not set") {
		t.Errorf("local with its variable unset: %v", err)
	}

	_, _, err = a.APIKey(ctx, "mistral")
	var nk *NoAPIKeyError
	if !errors.As(err, &nk) || nk.EnvVar != "MISTRAL_API_KEY" || !strings.Contains(err.Error(), "No API key found for mistral") ||
		!strings.Contains(err.Error(), "MISTRAL_API_KEY") {
		t.Errorf("no key: %v", err)
	}
	if a.HasAuth("mistral") || a.HasAuth("unknown") {
		t.Error("HasAuth without any key")
	}
}

func TestAPIKeyFromCommandsAndFailures(t *testing.T) {
	skipWithoutShell(t)
	file := writeAuth(t, `{"openai": {"type": "api_key", "key": "!printf sk-from-auth-cmd"}, "xai": {"type": "api_key", "key": "!exit 1"}}`)
	models, err := parseModelsConfig([]byte(`{"providers": {"mine": {"baseUrl": "http://h/v1", "api": "openai-completions",
		"apiKey": "!printf sk-from-models-cmd", "models": [{"id": "m"}]}, "bad": {"baseUrl": "http://b/v1", "api": "openai-completions",
		"apiKey": "!false", "models": [{"id": "m"}]}}}`), "models.json")
	if err != nil {
		t.Fatal(err)
	}
	a := NewAuth(AuthOptions{Getenv: envMap(map[string]string{"XAI_API_KEY": "env-xai"}), File: file, Models: models})
	ctx := context.Background()
	if k, src, err := a.APIKey(ctx, "openai"); err != nil || k.Reveal() != "sk-from-auth-cmd" || src != KeyFromAuthFile {
		t.Errorf("auth.json command: %v %s %v", k.Reveal(), src, err)
	}
	if k, _, err := a.APIKey(ctx, "mine"); err != nil || k.Reveal() != "sk-from-models-cmd" {
		t.Errorf("models.json command: %v %v", k.Reveal(), err)
	}
	// A failing command is an error naming its source; it does not silently fall back.
	if _, src, err := a.APIKey(ctx, "xai"); err == nil || src != KeyFromAuthFile || !strings.Contains(err.Error(), `API key for provider "xai" in `+file.Path+` (xai.key): !command failed: exit status 1`) {
		t.Errorf("failing auth.json command: %v", err)
	}
	if _, _, err := a.APIKey(ctx, "bad"); err == nil || !strings.Contains(err.Error(), `in models.json (providers.bad.apiKey): !command failed: exit status 1`) {
		t.Errorf("failing models.json command: %v", err)
	}
	// HasAuth runs no command.
	if !a.HasAuth("bad") || !a.HasAuth("xai") {
		t.Error("configured commands count as auth")
	}
}

func TestLoadAuthFile(t *testing.T) {
	af, err := LoadAuthFile(filepath.Join(t.TempDir(), "auth.json"))
	if err != nil || len(af.Entries) != 0 {
		t.Fatalf("missing file: %v", err)
	}
	empty := writeAuth(t, "  \n")
	if len(empty.Entries) != 0 {
		t.Error("blank file")
	}
	// One malformed entry is skipped, the others stay.
	mixed := writeAuth(t, `{"openai": {"type": "api_key", "key": "k"}, "bad": {"type": 5}, "groq": "nope"}`)
	if len(mixed.Entries) != 1 || mixed.Entries["openai"].Key != "k" {
		t.Errorf("entries: %+v", mixed.Entries)
	}
	path := filepath.Join(t.TempDir(), "auth.json")
	os.WriteFile(path, []byte(`{"openai": {"type": "api_key", "key": "`+secretKey+`"`), 0o600)
	_, err = LoadAuthFile(path)
	if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("broken auth.json: %v", err)
	}
	os.WriteFile(path, []byte(`{"openai": {"type": "api_key", "key": "`+secretKey+`"} x`), 0o600)
	_, err = LoadAuthFile(path)
	if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("broken auth.json: %v", err)
	}
}

func TestRequestAuthHeaders(t *testing.T) {
	models, err := parseModelsConfig([]byte(`{"providers": {
		"proxy": {"baseUrl": "http://p/v1", "api": "openai-completions", "apiKey": "$PROXY_KEY", "authHeader": true,
			"headers": {"x-org": "$ORG_VAR", "x-both": "provider"},
			"models": [{"id": "m", "headers": {"x-both": "model", "x-model": "literal"}}]},
		"openai": {"modelOverrides": {"gpt-4o": {"headers": {"x-override": "yes"}}}},
		"nokey": {"baseUrl": "http://n/v1", "api": "openai-completions", "apiKey": "!false", "authHeader": true, "models": [{"id": "m"}]}
	}}`), "models.json")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PROXY_KEY": "sk-proxy", "ORG_VAR": "org-42", "OPENAI_API_KEY": "sk-openai"}
	a := NewAuth(AuthOptions{Getenv: envMap(env), Models: models})
	reg := provider.NewRegistry(provider.BuiltinModels(), models.Customization())
	ctx := context.Background()

	ra, err := a.RequestAuth(ctx, reg.Find("proxy", "m"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"x-org": "org-42", "x-both": "model", "x-model": "literal", "Authorization": "Bearer sk-proxy"}
	if len(ra.Headers) != len(want) {
		t.Errorf("headers %d, want %d", len(ra.Headers), len(want))
	}
	for k, v := range want {
		if ra.Headers[k] != v {
			t.Errorf("header %s = %q, want %q", k, ra.Headers[k], v)
		}
	}
	if ra.APIKey.Reveal() != "sk-proxy" || ra.Source != KeyFromModelsJSON {
		t.Errorf("key %q from %s", ra.APIKey.Reveal(), ra.Source)
	}
	ra, err = a.RequestAuth(ctx, reg.Find("openai", "gpt-4o"))
	if err != nil || ra.Headers["x-override"] != "yes" || ra.APIKey.Reveal() != "sk-openai" {
		t.Errorf("override headers: %v %v", ra.Headers, err)
	}
	ra, err = a.RequestAuth(ctx, reg.Find("openai", "gpt-4.1"))
	if err != nil || ra.Headers != nil {
		t.Errorf("no headers: %v %v", ra.Headers, err)
	}
	// A key that fails to resolve stops the request with an error naming its source.
	delete(env, "PROXY_KEY")
	noKey := NewAuth(AuthOptions{Getenv: envMap(env), Models: models})
	noKey.resolver.shell = func(context.Context, string) (string, error) { return "", errors.New("exit status 1") }
	if _, err := noKey.RequestAuth(ctx, reg.Find("nokey", "m")); err == nil || !strings.Contains(err.Error(), `API key for provider "nokey" in models.json`) {
		t.Errorf("failing key with authHeader: %v", err)
	}
}

func TestRequestAuthHeaderCommandFailure(t *testing.T) {
	skipWithoutShell(t)
	models, err := parseModelsConfig([]byte(`{"providers": {"p": {"baseUrl": "http://p/v1", "api": "openai-completions",
		"apiKey": "k", "headers": {"x-token": "!exit 2"}, "models": [{"id": "m"}]}}}`), "models.json")
	if err != nil {
		t.Fatal(err)
	}
	a := NewAuth(AuthOptions{Getenv: envMap(nil), Models: models})
	m := &provider.Model{ID: "m", Provider: "p"}
	_, err = a.RequestAuth(context.Background(), m)
	if err == nil || !strings.Contains(err.Error(), `header "x-token" for provider "p" in models.json (providers.p.headers.x-token): !command failed: exit status 2`) {
		t.Errorf("err = %v", err)
	}
}

// A failing !command names the provider, the file, the key and how the command ended; never the
// command itself or anything it printed (either may hold a secret).
func TestCommandErrorsNeverShowTheCommandOrItsOutput(t *testing.T) {
	skipWithoutShell(t)
	const secret = "sk-live-SECRET-9f8e7d6c5b4a"
	fail := "!printf " + secret + "; echo " + secret + " >&2; exit 3"
	empty := "!true " + secret
	dir := t.TempDir()
	authPath := filepath.Join(dir, "auth.json")
	if err := os.WriteFile(authPath, []byte(`{"acme": {"type": "api_key", "key": "`+fail+`"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	file, err := LoadAuthFile(authPath)
	if err != nil {
		t.Fatal(err)
	}
	modelsPath := filepath.Join(dir, "models.json")
	models, err := parseModelsConfig([]byte(`{"providers": {
		"keyed": {"baseUrl": "http://k/v1", "api": "openai-completions", "apiKey": "`+fail+`", "models": [{"id": "m"}]},
		"silent": {"baseUrl": "http://s/v1", "api": "openai-completions", "apiKey": "`+empty+`", "models": [{"id": "m"}]},
		"hdr": {"baseUrl": "http://h/v1", "api": "openai-completions", "apiKey": "k", "headers": {"X-Token": "`+fail+`"}, "models": [{"id": "m"}]},
		"mhdr": {"baseUrl": "http://m/v1", "api": "openai-completions", "apiKey": "k", "models": [{"id": "m", "headers": {"X-Model": "`+fail+`"}}]}
	}}`), modelsPath)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAuth(AuthOptions{Getenv: envMap(nil), File: file, Models: models})
	ctx := context.Background()
	check := func(err error, want ...string) {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		if strings.Contains(msg, "SECRET") || strings.Contains(msg, "printf") {
			t.Errorf("the error shows the command or its output: %s", msg)
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("error %q does not say %q", msg, w)
			}
		}
	}
	_, _, err = a.APIKey(ctx, "acme")
	check(err, `provider "acme"`, authPath, "acme.key", "exit status 3")
	_, _, err = a.APIKey(ctx, "keyed")
	check(err, `provider "keyed"`, modelsPath, "providers.keyed.apiKey", "exit status 3")
	_, _, err = a.APIKey(ctx, "silent")
	check(err, `provider "silent"`, "providers.silent.apiKey", "printed nothing")
	_, err = a.RequestAuth(ctx, &provider.Model{ID: "m", Provider: "hdr"})
	check(err, `provider "hdr"`, modelsPath, "providers.hdr.headers.X-Token", "exit status 3")
	_, err = a.RequestAuth(ctx, &provider.Model{ID: "m", Provider: "mhdr"})
	check(err, `provider "mhdr"`, modelsPath, "providers.mhdr.models.0.headers.X-Model", "exit status 3")

	a.resolver.timeout = 50 * time.Millisecond
	slow := NewAuth(AuthOptions{Getenv: envMap(nil), Resolver: a.resolver, Models: mustParseModels(t,
		`{"providers": {"slow": {"baseUrl": "http://s/v1", "api": "openai-completions", "apiKey": "!sleep 5; echo `+secret+`", "models": [{"id": "m"}]}}}`)})
	_, _, err = slow.APIKey(ctx, "slow")
	check(err, `provider "slow"`, "providers.slow.apiKey", "timed out after 50ms")
}

func mustParseModels(t *testing.T, content string) *ModelsConfig {
	t.Helper()
	cfg, err := parseModelsConfig([]byte(content), "models.json")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// auth.json keys resolve like models.json values; a credential's "env" is read before the
// environment (pi 1.6).
func TestAuthFileKeyTemplates(t *testing.T) {
	file := writeAuth(t, `{"openai": {"type": "api_key", "key": "$OWN_KEY", "env": {"OWN_KEY": "from-credential"}},
		"groq": {"type": "api_key", "key": "gsk-${GROQ_PART}"}, "xai": {"type": "api_key", "key": "$UNSET_XAI"}}`)
	a := NewAuth(AuthOptions{Getenv: envMap(map[string]string{"OWN_KEY": "from-env", "GROQ_PART": "abc", "XAI_API_KEY": "env-xai"}), File: file})
	ctx := context.Background()
	if k, src, err := a.APIKey(ctx, "openai"); err != nil || k.Reveal() != "from-credential" || src != KeyFromAuthFile {
		t.Errorf("openai: %q %s %v", k.Reveal(), src, err)
	}
	if k, _, err := a.APIKey(ctx, "groq"); err != nil || k.Reveal() != "gsk-abc" {
		t.Errorf("groq: %q %v", k.Reveal(), err)
	}
	if a.HasAuth("xai") {
		t.Error("xai: HasAuth with its key's variable unset")
	}
	if _, _, err := a.APIKey(ctx, "xai"); err == nil || !strings.Contains(err.Error(), "(xai.key): environment variable UNSET_XAI is not set") {
		t.Errorf("xai: %v", err)
	}
}
