package rpc

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"go.uber.org/goleak"
)

// The end-to-end tests drive the real binary (`pi --mode rpc`) as a client would, against the scripted
// server. The binary is built once per test run, on first use, so runs that filter them out build
// nothing. PI_RPC_E2E_BINARY names another binary to test instead (a release build, say).

var piBuild struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// TestMain also checks that no test leaves a goroutine behind (Serve's reader, command goroutines,
// runs, the writer's flush timer).
func TestMain(m *testing.M) {
	code := m.Run()
	if piBuild.dir != "" {
		os.RemoveAll(piBuild.dir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left running:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func piBinary(t *testing.T) string {
	t.Helper()
	piBuild.once.Do(func() {
		if bin := os.Getenv("PI_RPC_E2E_BINARY"); bin != "" {
			piBuild.path = bin
			return
		}
		piBuild.dir, piBuild.err = os.MkdirTemp("", "pi-rpc-e2e-")
		if piBuild.err != nil {
			return
		}
		piBuild.path = filepath.Join(piBuild.dir, "pi")
		out, err := exec.Command("go", "build", "-o", piBuild.path, "github.com/pi-go/pi-go/cmd/pi").CombinedOutput()
		if err != nil {
			piBuild.err = fmt.Errorf("building pi: %v\n%s", err, out)
		}
	})
	if piBuild.err != nil {
		t.Fatal(piBuild.err)
	}
	return piBuild.path
}

// piProcess is a running `pi --mode rpc` with a client on its stdin and stdout.
type piProcess struct {
	*client
	cmd      *exec.Cmd
	srv      *openaitest.Server
	dir      string // the project
	agentDir string
}

func startPi(t *testing.T, extraArgs ...string) *piProcess {
	t.Helper()
	root := t.TempDir()
	p := &piProcess{srv: openaitest.Start(t), dir: filepath.Join(root, "proj"), agentDir: filepath.Join(root, "agent")}
	for _, d := range []string{p.dir, p.agentDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeCompactableSettings(t, p.agentDir)
	args := append([]string{"--mode", "rpc", "--base-url", p.srv.URL, "--model", "mock-model"}, extraArgs...)
	p.cmd = exec.Command(piBinary(t), args...)
	p.cmd.Dir = p.dir
	p.cmd.Env = []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + p.agentDir}
	p.cmd.Stderr = &testLog{t: t}
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.client = &client{t: t, w: stdin, bump: make(chan struct{}), done: make(chan error, 1), outEOF: make(chan struct{})}
	go func() {
		p.client.readOutput(stdout)
		p.client.done <- p.cmd.Wait()
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-p.outEOF:
		case <-time.After(waitTimeout):
			p.cmd.Process.Kill()
			t.Error("pi did not exit after its stdin closed")
		}
	})
	return p
}

// sessionFiles lists the session files pi wrote under its agent dir.
func (p *piProcess) sessionFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(p.agentDir, "sessions", "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestE2EPromptSteerBashAndSessionFile(t *testing.T) {
	p := startPi(t)
	st := p.ok(map[string]any{"type": "get_state"}).(map[string]any)
	if st["model"].(map[string]any)["id"] != "mock-model" || st["isStreaming"] != false || st["messageCount"] != 0.0 {
		t.Fatalf("initial state: %v", st)
	}

	// A prompt whose answer streams slowly and calls bash; a steer sent meanwhile arrives after the
	// tool result.
	first, gate := toolCallAnswer("echo step1-done")
	p.srv.Enqueue(first, openaitest.TextReply("mock-model", "Short, as asked."))
	p.ok(map[string]any{"type": "prompt", "message": "write a long essay, then run a command"})
	release(t, gate, 2)
	p.waitFor(0, func(r record) bool { return strings.Contains(r.raw, `"text_delta"`) })
	p.ok(map[string]any{"type": "steer", "message": "STEER: keep it short"})
	close(gate)
	endAt, _ := p.waitEvent(0, "agent_end")
	messageEnds := 0
	for _, r := range p.records()[:endAt] {
		if r.obj["type"] == "message_end" {
			messageEnds++
		}
	}
	if messageEnds < 2 {
		t.Errorf("%d message_end events", messageEnds)
	}
	if roles := strings.Join(requestRoles(t, p.srv.Requests()[1]), " | "); !strings.HasSuffix(roles, "assistant | tool | user:STEER: keep it short") {
		t.Errorf("second request: %s", roles)
	}

	// One session file, a header first, the messages in it, and stats that agree.
	files := p.sessionFiles(t)
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	entries := fileEntries(t, files[0])
	if entries[0]["type"] != "session" {
		t.Errorf("first line: %v", entries[0])
	}
	msgs := fileMessages(t, files[0])
	stats := p.ok(map[string]any{"type": "get_session_stats"}).(map[string]any)
	if stats["sessionFile"] != files[0] || stats["totalMessages"] != float64(len(msgs)) || stats["userMessages"] != 2.0 ||
		stats["toolResults"] != 1.0 || stats["sessionId"] != entries[0]["id"] {
		t.Errorf("stats %v, file has %d messages", stats, len(msgs))
	}
	got := p.ok(map[string]any{"type": "get_messages"}).(map[string]any)["messages"].([]any)
	if jsonOf(t, got) != jsonOf(t, msgs) {
		t.Errorf("get_messages differs from the session file")
	}

	// The user's bash: its output is recorded and goes to the model with the next prompt.
	res := p.ok(map[string]any{"type": "bash", "command": "echo hello-e2e"}).(map[string]any)
	if res["output"] != "hello-e2e\n" || res["exitCode"] != 0.0 || res["cancelled"] != false {
		t.Errorf("bash: %v", res)
	}
	p.srv.Enqueue(openaitest.TextReply("mock-model", "You said hello-e2e."))
	from := p.count()
	p.ok(map[string]any{"type": "prompt", "message": "what did the command print?"})
	p.waitEvent(from, "agent_end")
	if roles := strings.Join(requestRoles(t, p.srv.Requests()[2]), " | "); !strings.Contains(roles, "hello-e2e") {
		t.Errorf("bash output not sent: %s", roles)
	}
	found := false
	for _, m := range fileMessages(t, files[0]) {
		if m["role"] == "bashExecution" && m["output"] == "hello-e2e\n" {
			found = true
		}
	}
	if !found {
		t.Error("no bashExecution entry in the session file")
	}

	p.ok(map[string]any{"type": "set_session_name", "name": "e2e run"})
	var names []any
	for _, e := range fileEntries(t, files[0]) {
		if e["type"] == "session_info" {
			names = append(names, e["name"])
		}
	}
	if len(names) != 1 || names[0] != "e2e run" {
		t.Errorf("session_info entries: %v", names)
	}
	if st := p.ok(map[string]any{"type": "get_state"}).(map[string]any); st["sessionName"] != "e2e run" {
		t.Errorf("sessionName: %v", st["sessionName"])
	}

	p.srv.Enqueue(openaitest.TextReply("mock-model", "## Goal\nAn essay and a command."))
	res = p.ok(map[string]any{"type": "compact"}).(map[string]any)
	if res["summary"] != "## Goal\nAn essay and a command." || res["tokensBefore"].(float64) <= 0 {
		t.Errorf("compact: %v", res)
	}
	if n := len(compactionEntries(t, files[0])); n != 1 {
		t.Errorf("%d compaction entries", n)
	}
}

func TestE2EAbortAndEndOfInputLeaveNoProcess(t *testing.T) {
	needProc(t)
	p := startPi(t)
	cmd, marker := sleepCommand()
	args, _ := json.Marshal(map[string]string{"command": cmd})
	p.srv.Enqueue(openaitest.ToolCallReply("mock-model", "", openaitest.ToolCallSpec{ID: "call_1", Name: "bash", Arguments: string(args)}))

	p.ok(map[string]any{"type": "prompt", "message": "sleep"})
	p.waitEvent(0, "tool_execution_start")
	waitProcesses(t, marker, true)
	p.ok(map[string]any{"type": "abort"})
	waitProcesses(t, marker, false)
	if st := p.ok(map[string]any{"type": "get_state"}).(map[string]any); st["isStreaming"] != false {
		t.Errorf("state after abort: %v", st)
	}

	// A `bash` command still running when stdin ends is killed, and pi exits cleanly.
	cmd2, marker2 := sleepCommand()
	p.send(map[string]any{"type": "bash", "command": cmd2})
	waitProcesses(t, marker2, true)
	// Framing through real pipes: CRLF, a parse error, and a last line without LF.
	if _, err := p.w.Write([]byte("{\"id\":\"crlf\",\"type\":\"get_state\"}\r\nnot json\n{\"id\":\"last\",\"type\":\"get_state\"}")); err != nil {
		t.Fatal(err)
	}
	p.response("crlf")
	p.w.Close()
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("pi exited with %v", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("pi did not exit at the end of its input")
	}
	waitProcesses(t, marker2, false)
	p.response("last")
	if _, r := p.waitFor(0, func(r record) bool { return r.obj["command"] == "parse" }); r.str("error") != `Failed to parse command: Unexpected token 'o', "not json" is not valid JSON` {
		t.Errorf("parse error: %s", r.raw)
	}
}
