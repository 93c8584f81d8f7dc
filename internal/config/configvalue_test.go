package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestValueResolverLiteralAndEnv(t *testing.T) {
	r := NewValueResolver(envMap(map[string]string{"MY_KEY": "from-env", "EMPTY": ""}))
	tests := map[string]string{
		"MY_KEY":     "from-env",
		"sk-literal": "sk-literal",
		"EMPTY":      "EMPTY", // an empty variable does not count
		"":           "",
	}
	for in, want := range tests {
		got, err := r.Resolve(context.Background(), in)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
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
