package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// sessionDir is the project's only session directory (after a first run).
func (p *project) sessionDir() string {
	p.t.Helper()
	dirs, err := filepath.Glob(filepath.Join(p.agentDir, "sessions", "*"))
	if err != nil || len(dirs) != 1 {
		p.t.Fatalf("session directories: %v %v", dirs, err)
	}
	return dirs[0]
}

// firstSession runs one prompt and returns the session file it wrote.
func (p *project) firstSession(prompt string) string {
	p.t.Helper()
	p.server.Enqueue(openaitest.TextReply("test-model", "noted"))
	if r := p.run("", append(p.baseArgs(), "-p", prompt)...); r.code != 0 {
		p.t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(p.sessionDir(), "*.jsonl"))
	if len(files) != 1 {
		p.t.Fatalf("session files: %v", files)
	}
	return files[0]
}

// writeNewer writes a file into the session directory with a modification time after every session.
func (p *project) writeNewer(name string, content []byte) string {
	p.t.Helper()
	path := filepath.Join(p.sessionDir(), name)
	if err := os.WriteFile(path, content, 0o600); err != nil {
		p.t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil {
		p.t.Fatal(err)
	}
	return path
}

// -c passes over a newer file that is no session, says so once on stderr in every non-interactive
// mode, and continues the newest valid session.
func TestContinueSkipsGarbageNewestFileAndSaysWhich(t *testing.T) {
	p := newProject(t)
	p.firstSession("remember the first prompt")
	garbage := p.writeNewer("2099-01-01T00-00-00-000Z_garbage.jsonl", []byte("\x00\x01\x02 binary \xff\xfe\n"))

	for _, mode := range [][]string{{"-p", "again"}, {"--mode", "json", "again"}, {"--mode", "rpc"}} {
		before := len(p.server.Requests())
		if mode[0] != "--mode" || mode[1] != "rpc" {
			p.server.Enqueue(openaitest.TextReply("test-model", "ok"))
		}
		r := p.run("", append(append(p.baseArgs(), "-c"), mode...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", mode, r.code, r.stderr)
		}
		if n := strings.Count(r.stderr, garbage); n != 1 || !strings.Contains(r.stderr, "not a session file") {
			t.Errorf("%v: stderr names %s %d times (want once, with the reason):\n%s", mode, garbage, n, r.stderr)
		}
		if !strings.Contains(r.stderr, "continuing this session") {
			t.Errorf("%v: stderr does not say which session is continued:\n%s", mode, r.stderr)
		}
		if len(p.server.Requests()) > before {
			msgs := requestMessages(t, p.server, before+1)
			if len(msgs) < 2 || contentText(msgs[1]["content"]) != "remember the first prompt" {
				t.Errorf("%v: the newest valid session was not continued: %v", mode, msgs)
			}
		}
	}
	if got, _ := os.ReadFile(garbage); !bytes.Equal(got, []byte("\x00\x01\x02 binary \xff\xfe\n")) {
		t.Error("the garbage file was modified")
	}
}

// With nothing to continue but garbage, -c says a new session starts.
func TestContinueWithOnlyGarbageSaysANewSessionStarts(t *testing.T) {
	p := newProject(t)
	if err := os.MkdirAll(filepath.Join(p.agentDir, "sessions", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(p.agentDir, "sessions", "x", "only.jsonl")
	if err := os.WriteFile(garbage, []byte("not json at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.server.Enqueue(openaitest.TextReply("test-model", "fresh"))
	r := p.run("", append(p.baseArgs(), "--session-dir", filepath.Dir(garbage), "-c", "-p", "hi")...)
	if r.code != 0 || r.stdout != "fresh\n" {
		t.Fatalf("exit %d stdout %q: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, garbage) || !strings.Contains(r.stderr, "a new session is started") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// A session's load warnings are printed once (they were printed twice for --session).
func TestSessionLoadWarningsArePrintedOnce(t *testing.T) {
	p := newProject(t)
	file := p.firstSession("first")
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("a malformed line\n")
	f.Close()
	p.server.Enqueue(openaitest.TextReply("test-model", "ok"))
	r := p.run("", append(p.baseArgs(), "--session", file, "-p", "next")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "malformed JSON"); n != 1 {
		t.Errorf("the malformed line is reported %d times, want once:\n%s", n, r.stderr)
	}
}

// A torn last line is moved to a sidecar by the next run; the session stays valid JSONL.
func TestContinueMovesTornTailToSidecar(t *testing.T) {
	p := newProject(t)
	file := p.firstSession("first")
	torn := `{"type":"message","id":"0badf00d","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","con`
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(torn)
	f.Close()
	p.server.Enqueue(openaitest.TextReply("test-model", "ok"))
	r := p.run("", append(p.baseArgs(), "-c", "-p", "next")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	side, _ := filepath.Glob(file + ".torn-*")
	if len(side) != 1 || !strings.Contains(r.stderr, side[0]) {
		t.Fatalf("sidecars %v; stderr:\n%s", side, r.stderr)
	}
	if got, _ := os.ReadFile(side[0]); string(got) != torn {
		t.Errorf("sidecar = %q", got)
	}
	data, _ := os.ReadFile(file)
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("line %d of the session is not JSON: %.60q", i+1, line)
		}
	}
}

// In the TUI the warning is a notice on the screen, not a line on stderr that the UI draws over.
func TestContinueWarningIsATUINotice(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (make deps installs it): skipping the terminal end-to-end test")
	}
	p := newProject(t)
	p.firstSession("first")
	garbage := p.writeNewer("zz-garbage.jsonl", []byte("garbage"))
	stderr := filepath.Join(t.TempDir(), "stderr")
	socket := fmt.Sprintf("pi-cmd-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	cmd := fmt.Sprintf("cd %s && env HOME=%s PI_CODING_AGENT_DIR=%s PI_DEMO_DELAY=0 PATH=%s %s --base-url %s --model test-model -c 2>%s",
		p.dir, filepath.Dir(p.agentDir), p.agentDir, os.Getenv("PATH"), piBinary, p.server.URL, stderr)
	tmux("new-session", "-d", "-s", "e2e", "-x", "400", "-y", "40", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() })
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var screen string
	for {
		screen = tmux("capture-pane", "-p", "-J", "-t", "e2e")
		if strings.Contains(screen, "not a session file") && strings.Contains(screen, "test-model") {
			break
		}
		if time.Now().After(deadline) {
			errText, _ := os.ReadFile(stderr)
			t.Fatalf("no notice about %s on the screen:\n%s\nstderr:\n%s", garbage, screen, errText)
		}
		<-tick.C
	}
	if !strings.Contains(screen, garbage) {
		t.Errorf("the notice does not name %s:\n%s", garbage, screen)
	}
	tmux("send-keys", "-t", "e2e", "C-d")
	for {
		out, _ := exec.Command("tmux", "-L", socket, "list-sessions").CombinedOutput()
		if !strings.Contains(string(out), "e2e:") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("pi did not exit on Ctrl+D")
		}
		<-tick.C
	}
	if errText, _ := os.ReadFile(stderr); bytes.Contains(errText, []byte("not a session file")) {
		t.Errorf("the warning went to stderr in the TUI:\n%s", errText)
	}
}
