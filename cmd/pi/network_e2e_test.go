package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// A stream that stalls after its first chunk, and one that sends keep-alives and nothing else, end
// with a clear message within settings.json's timeouts, after the visible retry.
func TestPrintEndsStreamsThatNeverFinish(t *testing.T) {
	c := openaitest.NewChunks("test-model")
	tests := []struct {
		name     string
		settings string
		response openaitest.Response
		want     string
	}{
		{name: "stall after the first chunk", settings: `{"httpIdleTimeoutMs": 200, "retry": {"baseDelayMs": 1, "maxRetries": 1}}`,
			response: openaitest.Response{Events: []string{c.Role(), c.Text("Hel")}, End: openaitest.EndStall},
			want:     "Request timed out: no data from %s/chat/completions for 200 ms (the stream stalled)"},
		{name: "keep-alives only", settings: `{"contentIdleTimeoutMs": "200", "retry": {"baseDelayMs": 1, "maxRetries": 1}}`,
			response: openaitest.Response{Events: []string{c.Role()}, End: openaitest.EndKeepAlive, KeepAlive: 10 * time.Millisecond},
			want:     "Request timed out: no content from %s/chat/completions for 200 ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"), []byte(tt.settings), 0o644); err != nil {
				t.Fatal(err)
			}
			p.server.Enqueue(tt.response, tt.response)
			start := time.Now()
			r := p.run("", append(p.baseArgs(), "-p", "hi")...)
			elapsed := time.Since(start)
			want := strings.Replace(tt.want, "%s", p.server.URL, 1)
			// On a loaded machine the retried request's headers themselves may take longer than the
			// timeout; that message shows the setting reached the provider as well.
			slow := "Request timed out: no response from " + p.server.URL + "/chat/completions for 200 ms"
			if r.code != 1 || !strings.Contains(r.stderr, want) && !strings.Contains(r.stderr, slow) {
				t.Fatalf("exit %d after %v, stderr:\n%s\nwant %q", r.code, elapsed, r.stderr, want)
			}
			// The retry is what is checked: the server may never record a retried request whose
			// client hung up before the handler ran.
			if n := len(p.server.Requests()); !strings.Contains(r.stderr, "Retrying (1/1) in ") || n < 1 || n > 2 {
				t.Fatalf("%d requests; stderr:\n%s", n, r.stderr)
			}
			if elapsed > 30*time.Second {
				t.Fatalf("took %v", elapsed)
			}
		})
	}
}

func TestInvalidTimeoutSettingIsNamed(t *testing.T) {
	p := newProject(t)
	path := filepath.Join(p.agentDir, "settings.json")
	if err := os.WriteFile(path, []byte(`{"httpIdleTimeoutMs": -5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p.server.Enqueue(openaitest.TextReply("test-model", "fine"))
	r := p.run("", append(p.baseArgs(), "-p", "hi")...)
	if r.code != 0 || r.stdout != "fine\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "Warning: "+path+": httpIdleTimeoutMs: -5 is not a timeout") {
		t.Fatalf("stderr %q", r.stderr)
	}
}

// Faults a retry cannot fix end -p at once with a message naming the URL: a mistyped --base-url, a
// server asking for a longer wait than retry.maxAgentDelayMs. (An unknown host is tested in the
// provider, with an injected resolver: tests do not depend on this machine's DNS.)
func TestPrintFailsFastWhenARetryCannotHelp(t *testing.T) {
	closed, addr := openaitest.ClosedURL(t)
	rate := openaitest.ErrorResponse(429, "Rate limit reached")
	rate.RetryAfter = "120"
	tests := []struct {
		name    string
		baseURL string // "" for the scripted server
		want    string
	}{
		{name: "mistyped --base-url", baseURL: closed,
			want: "Connection refused by " + closed + "/chat/completions: nothing is listening on " + addr},
		{name: "Retry-After beyond the limit",
			want: "429 Rate limit reached (retry after 2m0s). Server asked to retry after 120 s (more than retry.maxAgentDelayMs 60 s); not retrying"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			p.server.SetFallback(rate)
			args := p.baseArgs()
			if tt.baseURL != "" {
				args = []string{"--base-url", tt.baseURL, "--model", "test-model"}
			}
			start := time.Now()
			r := p.run("", append(args, "-p", "hi")...)
			elapsed := time.Since(start)
			if r.code != 1 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, stderr:\n%s\nwant %q", r.code, r.stderr, tt.want)
			}
			if strings.Contains(r.stderr, "Retrying") {
				t.Fatalf("retried:\n%s", r.stderr)
			}
			if tt.baseURL == "" && len(p.server.Requests()) != 1 {
				t.Fatalf("%d requests", len(p.server.Requests()))
			}
			if elapsed > 10*time.Second {
				t.Fatalf("took %v", elapsed)
			}
		})
	}
}

// SIGINT ends -p promptly while a stream sends keep-alives only, and while a retry waits.
func TestSignalDuringKeepAlivesAndRetryWait(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	c := openaitest.NewChunks("test-model")
	keepAlive := openaitest.Response{Events: []string{c.Role()}, End: openaitest.EndKeepAlive, KeepAlive: 10 * time.Millisecond}
	for _, tt := range []struct {
		name, settings string
		ready          string // on stderr; "" waits for the request
	}{
		{name: "keep-alive stream", settings: `{"httpIdleTimeoutMs": 0, "contentIdleTimeoutMs": 0}`},
		{name: "retry wait", settings: `{"contentIdleTimeoutMs": 100, "retry": {"baseDelayMs": 600000, "maxAgentDelayMs": 600000}}`,
			ready: "Retrying (1/3) in 6"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"), []byte(tt.settings), 0o644); err != nil {
				t.Fatal(err)
			}
			p.server.SetFallback(keepAlive)
			cmd := exec.Command(piBinary, append(p.baseArgs(), "-p", "hi")...)
			cmd.Dir = p.dir
			cmd.Env = []string{"HOME=" + p.agentDir, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + p.agentDir}
			stderr := &syncBuffer{changed: make(chan struct{}, 1)}
			cmd.Stderr = stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := p.server.WaitRequest(ctx, 1); err != nil {
				t.Fatal(err)
			}
			for tt.ready != "" && !strings.Contains(stderr.String(), tt.ready) {
				select {
				case <-stderr.changed:
				case <-ctx.Done():
					t.Fatalf("no %q; stderr:\n%s", tt.ready, stderr.String())
				}
			}
			start := time.Now()
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Fatalf("SIGINT: %v (stderr %s), want exit 130", err, stderr.String())
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("SIGINT took %v", d)
			}
		})
	}
}

// syncBuffer collects a process's output and signals each write.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
