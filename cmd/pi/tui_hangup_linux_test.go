package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestTUIEndsWhenTheTerminalCloses runs the built binary in a tmux pane, submits a prompt whose
// command runs `sleep 300`, and closes the terminal (tmux kill-server: the pseudo-terminal goes away
// and its processes get SIGHUP). pi must exit promptly, leave no process of the command behind, keep
// the prompt in a valid session file and remove its full-output files. Under nohup-like conditions
// (SIGHUP ignored) the closed terminal alone, seen as the end of its input, must do the same, and so
// must SIGTERM with the terminal still there.
func TestTUIEndsWhenTheTerminalCloses(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (make deps installs it): skipping the terminal end-to-end test")
	}
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	for _, tc := range []struct{ name, prelude string }{
		{"SIGHUP", ""},
		{"SIGHUP ignored", "trap '' HUP\n"},
		// The terminal stays; SIGTERM alone must end the TUI the same way.
		{"SIGTERM", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newLifecycle(t)
			l.enqueueSleeper()
			var env []string
			for _, kv := range l.env() {
				env = append(env, shellQuote(kv))
			}
			script := fmt.Sprintf("cd %s\n%sexec env %s %s --base-url %s --model test-model\n",
				shellQuote(l.dir), tc.prelude, strings.Join(env, " "), shellQuote(piBinary), shellQuote(l.server.URL))
			scriptPath := filepath.Join(t.TempDir(), "run.sh")
			if err := os.WriteFile(scriptPath, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			socket := fmt.Sprintf("pi-hangup-%d-%d", os.Getpid(), time.Now().UnixNano())
			tmux := func(args ...string) string {
				t.Helper()
				out, err := exec.Command("tmux", append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
				if err != nil {
					t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return string(out)
			}
			tmux("new-session", "-d", "-s", "pi", "-x", "120", "-y", "40", "sh "+shellQuote(scriptPath))
			t.Cleanup(func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() })

			// The pane offers no event for "drawn": poll it, bounded.
			deadline := time.Now().Add(20 * time.Second)
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for screen := ""; !strings.Contains(screen, "test-model"); screen = tmux("capture-pane", "-p", "-t", "pi") {
				if time.Now().After(deadline) {
					t.Fatalf("the TUI never showed its footer:\n%s", screen)
				}
				<-tick.C
			}
			tmux("send-keys", "-t", "pi", "-l", "sleep please")
			tmux("send-keys", "-t", "pi", "Enter")
			shell, pi := l.readPids()
			t.Cleanup(func() { _ = syscall.Kill(pi, syscall.SIGKILL) })
			fd := openPidfd(t, pi)

			if tc.name == "SIGTERM" {
				if err := syscall.Kill(pi, syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			} else {
				tmux("kill-server")
			}
			took, ok := awaitPidfd(fd, lifecycleBound)
			if !ok {
				t.Fatalf("pi (pid %d) still runs %v after the %s", pi, lifecycleBound, tc.name)
			}
			t.Logf("%s to exit: %v", tc.name, took)
			l.checkAfterExit(shell, "sleep please")
		})
	}
}
