package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// tmuxPane runs pi in a tmux pane of its own server for the test.
type tmuxPane struct {
	t      *testing.T
	socket string
}

func startTmuxPi(t *testing.T, p *project, args ...string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (make deps installs it): skipping the terminal end-to-end test")
	}
	env := []string{"HOME=" + filepath.Dir(p.agentDir), "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + p.agentDir, "TERM=xterm-256color"}
	env = append(env, p.env...)
	var quoted []string
	for _, s := range append(env, piBinary) {
		quoted = append(quoted, shellQuote(s))
	}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	script := fmt.Sprintf("cd %s\nexec env -i %s\n", shellQuote(p.dir), strings.Join(quoted, " "))
	path := filepath.Join(t.TempDir(), "run.sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	pane := &tmuxPane{t: t, socket: fmt.Sprintf("pi-trust-%d-%d", os.Getpid(), time.Now().UnixNano())}
	pane.tmux("new-session", "-d", "-s", "pi", "-x", "120", "-y", "40", "sh "+shellQuote(path))
	// The shell execs pi-go, so the pane's process is pi-go.
	pid, _ := strconv.Atoi(strings.TrimSpace(pane.tmux("display-message", "-p", "-t", "pi", "#{pane_pid}")))
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", pane.socket, "kill-server").Run()
		// The test's directories are removed next: pi-go and the processes of its group (the
		// extensions' sidecar) must be gone first, or a late write races the removal.
		awaitGone(t, pid)
	})
	return pane
}

// awaitGone waits until the process pid and its process group have exited (bounded: a process
// that outlives it fails the test). pi-go is not the test's child, so /proc is polled.
func awaitGone(t *testing.T, pid int) {
	if pid <= 0 {
		return
	}
	deadline := time.Now().Add(15 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for syscall.Kill(-pid, 0) == nil || syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Errorf("pi-go (pid %d) or a process of its group is still running 15 s after its terminal closed", pid)
			return
		}
		<-tick.C
	}
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// waitFor polls the pane (tmux offers no event for "drawn"), bounded.
func (p *tmuxPane) waitFor(what string, cond func(string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		screen := p.tmux("capture-pane", "-p", "-t", "pi")
		if cond(screen) {
			return screen
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waiting for %s:\n%s", what, screen)
		}
		<-tick.C
	}
}

func (p *tmuxPane) keys(keys ...string) {
	p.tmux(append([]string{"send-keys", "-t", "pi"}, keys...)...)
}

// The interactive mode asks about an untrusted project before the session starts (pi 1.6's startup
// prompt) and saves the answer; "this session only" saves nothing and the TUI says the project's
// resources are ignored.
func TestTrustPromptInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	t.Run("trust", func(t *testing.T) {
		p := trustProject(t)
		p.server.Enqueue(openaitest.TextReply("mock-model", "trusted answer"))
		pane := startTmuxPi(t, p, "--model", "mock/mock-model")
		pane.waitFor("the trust prompt", func(s string) bool {
			return strings.Contains(s, "Trust project folder?") && strings.Contains(s, p.dir) && strings.Contains(s, "→ Trust") &&
				strings.Contains(s, "Do not trust (this session only)")
		})
		pane.keys("Enter")
		pane.waitFor("the session", func(s string) bool {
			return strings.Contains(s, "mock-model") && !strings.Contains(s, "Trust project folder?")
		})
		data, err := os.ReadFile(filepath.Join(p.agentDir, "trust.json"))
		if err != nil || string(data) != fmt.Sprintf("{\n  %q: true\n}\n", config.CanonicalPath(p.dir)) {
			t.Fatalf("trust.json %q %v", data, err)
		}
		pane.keys("-l", "hi")
		pane.keys("Enter")
		pane.waitFor("the answer", func(s string) bool { return strings.Contains(s, "trusted answer") })
		if system := contentText(requestMessages(t, p.server, 1)[0]["content"]); !strings.Contains(system, "Project rule: mention the README.") {
			t.Errorf("APPEND_SYSTEM.md not used:\n%s", system)
		}
	})
	t.Run("do not trust, this session only", func(t *testing.T) {
		p := trustProject(t)
		pane := startTmuxPi(t, p, "--model", "mock/mock-model")
		pane.waitFor("the trust prompt", func(s string) bool { return strings.Contains(s, "→ Trust") })
		pane.keys("Up") // stays on the first option
		for i := 0; i < 4; i++ {
			pane.keys("Down")
		}
		pane.waitFor("the last option", func(s string) bool { return strings.Contains(s, "→ Do not trust (this session only)") })
		pane.keys("Enter")
		pane.waitFor("the warning", func(s string) bool {
			return strings.Contains(s, "This project is not trusted. Project .pi resources and packages are ignored.")
		})
		if _, err := os.Stat(filepath.Join(p.agentDir, "trust.json")); !os.IsNotExist(err) {
			t.Errorf("trust.json written for a this-session-only answer: %v", err)
		}
	})
}
