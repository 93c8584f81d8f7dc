package config

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// DefaultCommandTimeout bounds a "!command" config value, as pi does.
const DefaultCommandTimeout = 10 * time.Second

// ValueResolver resolves pi 1.6's config values (API keys and header values in models.json and
// auth.json): "!command" runs command in the shell and uses its trimmed stdout; any other value is a
// template whose "$NAME" and "${NAME}" are replaced by environment variables, with "$$" for a literal
// "$" and "$!" for a literal "!" (template.go); a value without references is the literal text. pi
// 0.73.1 took a bare string that named an environment variable as that variable; pi 1.6 sends the
// text, and so does pi-go (BareEnvNameWarnings says so to whoever relied on it). Command results are
// cached for the resolver's lifetime (one per process); a command that fails is run again on the next
// request, so unlocking a password manager takes effect without a restart. Safe for concurrent use;
// concurrent requests for one command run it once.
type ValueResolver struct {
	getenv  Getenv
	timeout time.Duration
	// shell runs a command line; tests replace it. It must honour ctx.
	shell func(ctx context.Context, command string) (string, error)

	mu     sync.Mutex
	cache  map[string]string
	flight singleflight.Group
}

// NewValueResolver returns a resolver reading the environment through getenv (nil: os.Getenv).
func NewValueResolver(getenv Getenv) *ValueResolver {
	if getenv == nil {
		getenv = os.Getenv
	}
	return &ValueResolver{getenv: getenv, timeout: DefaultCommandTimeout, shell: runShell, cache: map[string]string{}}
}

// IsCommand reports whether a config value is a "!command".
func IsCommand(value string) bool { return strings.HasPrefix(value, "!") }

// CommandError is a "!command" value that gave no value: it failed, timed out or printed nothing.
// Its text says how the command ended and never quotes the command line, its output or its error
// output: any of them may hold a secret (a token passed as an argument, a password manager's
// message). The caller names where the value was configured.
type CommandError struct {
	Reason string // "failed: exit status 3", "timed out after 10s", "printed nothing"
}

func (e *CommandError) Error() string {
	return "!command " + e.Reason + " (the command and its output are not shown, as they may hold secrets; run it in a shell to see them)"
}

// MissingEnvError is a value that refers to environment variables that are not set (or empty): pi
// 1.6 then has no value at all, not a partial one.
type MissingEnvError struct {
	Names []string
}

func (e *MissingEnvError) Error() string {
	if len(e.Names) == 1 {
		return "environment variable " + e.Names[0] + " is not set"
	}
	return "environment variables " + strings.Join(e.Names, ", ") + " are not set"
}

// lookup reads a variable from env first, then the resolver's environment; empty counts as unset.
func (r *ValueResolver) lookup(name string, env map[string]string) (string, bool) {
	if v := env[name]; v != "" {
		return v, true
	}
	if v := r.getenv(name); v != "" {
		return v, true
	}
	return "", false
}

// Configured reports whether value can give a value without running anything: a command always
// counts (as in pi, it may still fail later), a template when every variable it names is set.
func (r *ValueResolver) Configured(value string, env map[string]string) bool {
	if IsCommand(value) {
		return true
	}
	for _, name := range EnvVarNames(value) {
		if _, ok := r.lookup(name, env); !ok {
			return false
		}
	}
	return true
}

// Resolve returns the value's meaning. For a command that fails, times out or prints nothing, the
// error is a *CommandError; for a template naming unset variables, a *MissingEnvError.
func (r *ValueResolver) Resolve(ctx context.Context, value string) (string, error) {
	return r.ResolveWith(ctx, value, nil)
}

// ResolveWith is Resolve with env consulted before the environment (auth.json's per-credential
// "env" object).
func (r *ValueResolver) ResolveWith(ctx context.Context, value string, env map[string]string) (string, error) {
	if !IsCommand(value) {
		return r.expand(value, env)
	}
	r.mu.Lock()
	cached, ok := r.cache[value]
	r.mu.Unlock()
	if ok {
		return cached, nil
	}
	out, err, _ := r.flight.Do(value, func() (any, error) {
		cctx, cancel := context.WithTimeout(ctx, r.timeout)
		defer cancel()
		out, err := r.shell(cctx, value[1:])
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			if errors.Is(cctx.Err(), context.DeadlineExceeded) {
				return "", &CommandError{Reason: "timed out after " + r.timeout.String()}
			}
			return "", &CommandError{Reason: "failed: " + describeExit(err)}
		}
		out = strings.TrimSpace(out)
		if out == "" {
			return "", &CommandError{Reason: "printed nothing"}
		}
		r.mu.Lock()
		r.cache[value] = out
		r.mu.Unlock()
		return out, nil
	})
	if err != nil {
		return "", err
	}
	return out.(string), nil
}

// describeExit says how a command ended (exit status, signal) without quoting the command or
// anything it printed: an *exec.ExitError carries the captured stderr, and an error of starting the
// shell names it, never the command.
func describeExit(err error) string {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ProcessState.String()
	}
	return err.Error()
}

// runShell runs command with sh -c (cmd /C on Windows), stdin empty; only stdout is used (stderr is
// captured by exec into the error, which describeExit does not show).
func runShell(ctx context.Context, command string) (string, error) {
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	killGroupOnCancel(cmd)
	// A child that keeps stdout open after the shell is killed must not hold us past the timeout.
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	return string(out), err
}
