//go:build unix

package extensions

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cliFor writes pi-go's CLI for Node with a shell script as "pi-go" and returns the command that runs
// it with args.
func cliFor(t *testing.T, node, script string, args ...string) *exec.Cmd {
	t.Helper()
	dir := t.TempDir()
	exe := filepath.Join(dir, "pi go") // a space: the name is quoted in the CLI
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	cli, err := writeCLI(filepath.Join(dir, "cache"), exe)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, append([]string{cli}, args...)...)
	// Its own process group, killed at the end: a script left behind cannot hold the test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	return cmd
}

// nextLine is the next line of lines, or "" when none comes within 30 s.
func nextLine(lines <-chan string) string {
	select {
	case l := <-lines:
		return l
	case <-time.After(30 * time.Second):
		return ""
	}
}

func TestSidecarCLIRunsPiGoWithItsArgumentsAndExitCode(t *testing.T) {
	pi := findPi(t, "1.6.0")
	cmd := cliFor(t, pi.node, `printf '[%s]\n' "$@"; exit 7`, "--mode", "json", "Task: two words")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("exit: %v", err)
	}
	if string(out) != "[--mode]\n[json]\n[Task: two words]\n" {
		t.Errorf("stdout: %q", out)
	}
}

func TestSidecarCLIPassesSignalsOn(t *testing.T) {
	pi := findPi(t, "1.6.0")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			// pi-go handles the signal (and exits 3); the CLI only passes it on.
			cmd := cliFor(t, pi.node, `trap 'echo got; kill $child; exit 3' INT TERM HUP
sleep 600 & child=$!
echo ready
wait $child`)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := make(chan string, 4)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					lines <- sc.Text()
				}
			}()
			if l := nextLine(lines); l != "ready" {
				t.Fatalf("no ready: %q", l)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if l := nextLine(lines); l != "got" {
				t.Fatalf("pi-go did not get %v: %q", sig, l)
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Errorf("exit: %v", err)
			}
		})
	}
}

func TestSidecarCLIEndsByThePiGoSignal(t *testing.T) {
	pi := findPi(t, "1.6.0")
	err := cliFor(t, pi.node, `kill -TERM $$`).Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("exit: %v", err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("the CLI did not end by SIGTERM: %v", err)
	}
}

func TestSidecarCLIIsWrittenPerExecutable(t *testing.T) {
	dir := t.TempDir()
	a, err := writeCLI(dir, "/opt/a/pi")
	if err != nil {
		t.Fatal(err)
	}
	b, err := writeCLI(dir, "/opt/b/pi")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := writeCLI(dir, "/opt/a/pi")
	if a == b || a != again || !strings.HasPrefix(filepath.Base(a), "pi-go-cli-") {
		t.Errorf("CLI files: %s %s %s", a, b, again)
	}
	data, _ := os.ReadFile(b)
	if !strings.HasPrefix(string(data), `const executable = "/opt/b/pi";`+"\n") {
		t.Errorf("CLI of /opt/b/pi: %.80s", data)
	}
}
