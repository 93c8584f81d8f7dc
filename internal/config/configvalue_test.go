package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestValueResolverTemplates checks values against what pi 1.6.0's resolveConfigValue and
// getConfigValueEnvVarNames return for them (recorded with MY_KEY=from-env, OTHER=other, EMPTY= and
// _U=under); an empty want for a value that is not empty means pi had no value.
func TestValueResolverTemplates(t *testing.T) {
	r := NewValueResolver(envMap(map[string]string{"MY_KEY": "from-env", "OTHER": "other", "EMPTY": "", "_U": "under"}))
	tests := []struct {
		in, want string
		names    []string
	}{
		{"sk-literal", "sk-literal", nil},
		{"MY_KEY", "MY_KEY", nil},
		{"$MY_KEY", "from-env", []string{"MY_KEY"}},
		{"${MY_KEY}", "from-env", []string{"MY_KEY"}},
		{"pre-$MY_KEY-post", "pre-from-env-post", []string{"MY_KEY"}},
		{"pre-${MY_KEY}x", "pre-from-envx", []string{"MY_KEY"}},
		{"$MY_KEYx", "", []string{"MY_KEYx"}},
		{"$$MY_KEY", "$MY_KEY", nil},
		{"$!x", "!x", nil},
		{"a$", "a$", nil},
		{"$", "$", nil},
		{"${", "${", nil},
		{"${MY_KEY", "${MY_KEY", nil},
		{"${1BAD}", "${1BAD}", nil},
		{"${}", "${}", nil},
		{"$1abc", "$1abc", nil},
		{"$_U", "under", []string{"_U"}},
		{"$EMPTY", "", []string{"EMPTY"}},
		{"x-$UNSET-$UNSET2", "", []string{"UNSET", "UNSET2"}},
		{"$MY_KEY$OTHER", "from-envother", []string{"MY_KEY", "OTHER"}},
		{"price $$5", "price $5", nil},
		{"${MY_KEY}${OTHER}", "from-envother", []string{"MY_KEY", "OTHER"}},
		{"$MY-KEY", "", []string{"MY"}},
		{"$é", "$é", nil},
		{"$$$MY_KEY", "$from-env", []string{"MY_KEY"}},
		{"a$!b$$c", "a!b$c", nil},
		{"", "", nil},
	}
	for _, tt := range tests {
		got, err := r.Resolve(context.Background(), tt.in)
		var missing *MissingEnvError
		switch {
		case tt.want == "" && tt.in != "":
			if !errors.As(err, &missing) {
				t.Errorf("Resolve(%q) = %q, %v; want no value", tt.in, got, err)
			} else if r.Configured(tt.in, nil) {
				t.Errorf("Configured(%q) = true", tt.in)
			}
		case err != nil || got != tt.want:
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		case !r.Configured(tt.in, nil):
			t.Errorf("Configured(%q) = false", tt.in)
		}
		if names := EnvVarNames(tt.in); !slices.Equal(names, tt.names) {
			t.Errorf("EnvVarNames(%q) = %q, want %q", tt.in, names, tt.names)
		}
	}
	// Missing variables are named, each once, in order; env is read before the environment.
	_, err := r.Resolve(context.Background(), "$A-$B-$A")
	if err == nil || err.Error() != "environment variables A, B are not set" {
		t.Errorf("missing: %v", err)
	}
	if v, err := r.ResolveWith(context.Background(), "$MY_KEY/$ONLY_HERE", map[string]string{"ONLY_HERE": "x", "MY_KEY": "mine"}); err != nil || v != "mine/x" {
		t.Errorf("ResolveWith = %q, %v", v, err)
	}
	if !r.Configured("!anything", nil) || r.Configured("$NOPE", nil) || !r.Configured("$NOPE", map[string]string{"NOPE": "1"}) {
		t.Error("Configured")
	}
}

func TestBareEnvNameWarnings(t *testing.T) {
	models, err := parseModelsConfig([]byte(`{"providers": {
		"acme": {"baseUrl": "http://a/v1", "api": "openai-completions", "apiKey": "OPENAI_API_KEY",
			"headers": {"x-org": "ORG_ID", "x-lit": "literal", "x-ref": "$ORG_ID"},
			"models": [{"id": "m", "headers": {"x-m": "ORG_ID"}}]},
		"other": {"baseUrl": "http://b/v1", "api": "openai-completions", "apiKey": "UNSET_NAME", "models": [{"id": "m"}]}
	}}`), "/cfg/models.json")
	if err != nil {
		t.Fatal(err)
	}
	file := &AuthFile{Path: "/cfg/auth.json", Entries: map[string]AuthCredential{
		"groq": {Type: "api_key", Key: "GROQ_API_KEY"}, "xai": {Type: "api_key", Key: "$GROQ_API_KEY"}}}
	got := BareEnvNameWarnings(models, file, envMap(map[string]string{"OPENAI_API_KEY": "sk-1", "ORG_ID": "o", "GROQ_API_KEY": "g"}))
	want := []string{
		`/cfg/models.json: providers.acme.apiKey is the literal text "OPENAI_API_KEY"; pi 1.6 no longer reads environment variables by bare name: write "$OPENAI_API_KEY"`,
		`/cfg/models.json: providers.acme.headers.x-org is the literal text "ORG_ID"; pi 1.6 no longer reads environment variables by bare name: write "$ORG_ID"`,
		`/cfg/models.json: providers.acme.models.0.headers.x-m is the literal text "ORG_ID"; pi 1.6 no longer reads environment variables by bare name: write "$ORG_ID"`,
		`/cfg/auth.json: groq.key is the literal text "GROQ_API_KEY"; pi 1.6 no longer reads environment variables by bare name: write "$GROQ_API_KEY"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func skipWithoutShell(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell commands are tested with sh")
	}
}

func TestValueResolverCommandCachedAndTrimmed(t *testing.T) {
	skipWithoutShell(t)
	dir := t.TempDir()
	counter := filepath.Join(dir, "runs")
	cmd := "!echo run >> " + counter + "; printf '  sk-from-cmd\\n\\n'"
	r := NewValueResolver(envMap(nil))
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := r.Resolve(context.Background(), cmd)
			if err != nil || got != "sk-from-cmd" {
				t.Errorf("Resolve = %q, %v", got, err)
			}
		}()
	}
	wg.Wait()
	if _, err := r.Resolve(context.Background(), cmd); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(counter)
	if err != nil {
		t.Fatal(err)
	}
	if runs := strings.Count(string(data), "run"); runs != 1 {
		t.Errorf("command ran %d times, want once", runs)
	}
	// A fresh resolver (a new process) runs it again.
	if _, err := NewValueResolver(envMap(nil)).Resolve(context.Background(), cmd); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(counter)
	if runs := strings.Count(string(data), "run"); runs != 2 {
		t.Errorf("new resolver: %d runs", runs)
	}
}

func TestValueResolverCommandFailures(t *testing.T) {
	skipWithoutShell(t)
	dir := t.TempDir()
	flag := filepath.Join(dir, "unlocked")
	r := NewValueResolver(envMap(nil))
	// Fails until the "password manager" is unlocked; failures are not cached.
	cmd := "!test -f " + flag + " && printf secret-value"
	_, err := r.Resolve(context.Background(), cmd)
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Reason != "failed: exit status 1" || strings.Contains(err.Error(), "test -f") {
		t.Fatalf("failing command: %v", err)
	}
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Resolve(context.Background(), cmd); err != nil || got != "secret-value" {
		t.Fatalf("after unlocking: %q %v", got, err)
	}
	_, err = r.Resolve(context.Background(), "!printf '   '")
	if err == nil || !strings.Contains(err.Error(), "printed nothing") {
		t.Errorf("empty output: %v", err)
	}
	// Neither the command nor what it printed reaches the error.
	_, err = r.Resolve(context.Background(), "!printf sk-printed; echo sk-stderr >&2; exit 3")
	if !errors.As(err, &ce) || ce.Reason != "failed: exit status 3" || strings.Contains(err.Error(), "sk-") {
		t.Errorf("failing command: %v", err)
	}
}

func TestValueResolverTimeout(t *testing.T) {
	skipWithoutShell(t)
	r := NewValueResolver(envMap(nil))
	r.timeout = 100 * time.Millisecond
	start := time.Now()
	_, err := r.Resolve(context.Background(), "!sleep 30")
	if err == nil || !strings.Contains(err.Error(), "timed out after 100ms") {
		t.Fatalf("err = %v", err)
	}
	// The whole process group is killed: no wait for the orphaned sleep's stdout.
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("timeout took %s", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Resolve(ctx, "!printf x"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestValueResolverFakeShell(t *testing.T) {
	r := NewValueResolver(envMap(nil))
	var got []string
	r.shell = func(ctx context.Context, command string) (string, error) {
		got = append(got, command)
		return "fake-" + command + "\n", nil
	}
	v, err := r.Resolve(context.Background(), "!op read item")
	if err != nil || v != "fake-op read item" {
		t.Fatalf("%q %v", v, err)
	}
	r.Resolve(context.Background(), "!op read item")
	if len(got) != 1 || got[0] != "op read item" {
		t.Errorf("shell calls: %q", got)
	}
	if !IsCommand("!x") || IsCommand("x!") {
		t.Error("IsCommand")
	}
}
