package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// The extensions of testdata/extensions, written without Node (one in Go, one in Python), run end
// to end through the built binary against the scripted server: their tools run, their tool_call
// handlers block, their commands run and ask the user through RPC mode's extension UI.

// anyLanguageExtensions builds the Go extension and returns it and the Python one (skipped without
// python3).
func anyLanguageExtensions(t *testing.T) (goExt, pyExt string) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: the Python extension cannot run")
	}
	goExt = filepath.Join(t.TempDir(), "goext")
	build := exec.Command("go", "build", "-o", goExt, "../../testdata/extensions/goext")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building goext: %v\n%s", err, out)
	}
	pyExt, err := filepath.Abs("../../testdata/extensions/python/guard.py")
	if err != nil {
		t.Fatal(err)
	}
	return goExt, pyExt
}

func TestAnyLanguageExtensionsInPrintMode(t *testing.T) {
	goExt, pyExt := anyLanguageExtensions(t)
	p := newProject(t)
	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "",
			openaitest.ToolCallSpec{ID: "c1", Name: "bash", Arguments: `{"command":"rm -rf build"}`},
			openaitest.ToolCallSpec{ID: "c2", Name: "word_count", Arguments: `{"text":"one two three"}`},
			openaitest.ToolCallSpec{ID: "c3", Name: "reverse", Arguments: `{"text":"abc"}`},
			openaitest.ToolCallSpec{ID: "c4", Name: "write", Arguments: `{"path":"secrets.env","content":"X=1"}`}),
		openaitest.TextReply("test-model", "All done."),
	)
	// The Python extension is found in the agent's extensions directory, the Go one named with -e.
	extDir := filepath.Join(p.agentDir, "extensions")
	if err := os.MkdirAll(extDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(pyExt, filepath.Join(extDir, "guard.py")); err != nil {
		t.Fatal(err)
	}
	r := p.run("", append(p.baseArgs(), "-e", goExt, "-p", "go")...)
	if r.code != 0 || r.stdout != "All done.\n" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	var tools []string
	var body struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := p.server.Requests()[0].Decode(&body); err != nil {
		t.Fatal(err)
	}
	for _, tl := range body.Tools {
		tools = append(tools, tl.Function.Name)
	}
	if got := strings.Join(tools, ","); !strings.Contains(got, "word_count") || !strings.Contains(got, "reverse") {
		t.Fatalf("declared tools: %s", got)
	}
	checkToolResults(t, p.server, 2, map[string]string{
		"c1": "goext: rm -rf is not allowed",
		"c2": "3 words",
		"c3": "cba",
		"c4": "python-guard: .env files are protected",
	})
	if _, err := os.Stat(filepath.Join(p.dir, "secrets.env")); err == nil {
		t.Error("the blocked write happened")
	}
}

// checkToolResults checks that the tool results the model got in request n (1-based) contain the
// texts of want, by tool call id.
func checkToolResults(t *testing.T, server *openaitest.Server, n int, want map[string]string) {
	t.Helper()
	results := map[string]string{}
	for _, m := range requestMessages(t, server, n) {
		if m["role"] == "tool" {
			results[m["tool_call_id"].(string)] = contentText(m["content"])
		}
	}
	for id, text := range want {
		if !strings.Contains(results[id], text) {
			t.Errorf("result of %s = %q, want %q", id, results[id], text)
		}
	}
}

// rpcSession is pi-go in RPC mode with a reader of its records.
type rpcSession struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan map[string]any
	cmd   *exec.Cmd
}

func (p *project) startRPC(args ...string) *rpcSession {
	p.t.Helper()
	cmd := exec.Command(piBinary, append([]string{"--mode", "rpc"}, args...)...)
	cmd.Dir = p.dir
	cmd.Env = append([]string{"HOME=" + filepath.Dir(p.agentDir), "PATH=" + os.Getenv("PATH"),
		"PI_CODING_AGENT_DIR=" + p.agentDir}, p.env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	s := &rpcSession{t: p.t, stdin: stdin, lines: make(chan map[string]any, 1024), cmd: cmd}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				s.lines <- m
			}
		}
	}()
	p.t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	return s
}

func (s *rpcSession) send(v any) {
	s.t.Helper()
	data, _ := json.Marshal(v)
	if _, err := s.stdin.Write(append(data, '\n')); err != nil {
		s.t.Fatal(err)
	}
}

// expect returns the first record that matches, failing after a minute (the sidecar's start is
// slow on a loaded machine) or when pi-go ends.
func (s *rpcSession) expect(what string, match func(map[string]any) bool) map[string]any {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for {
		select {
		case m, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("pi-go ended before %s", what)
			}
			if match(m) {
				return m
			}
			s.t.Logf("skipped while waiting for %s: %v %v", what, m["type"], m["method"])
		case <-ctx.Done():
			s.t.Fatalf("no %s", what)
		}
	}
}

// availableModels asks get_available_models (id names the request) and returns the models'
// "provider/id" names, space-separated.
func (s *rpcSession) availableModels(id string) string {
	s.send(map[string]any{"type": "get_available_models", "id": id})
	resp := s.expect("get_available_models", func(m map[string]any) bool { return m["id"] == id })
	var names []string
	data, _ := resp["data"].(map[string]any)
	list, _ := data["models"].([]any)
	for _, m := range list {
		mm, _ := m.(map[string]any)
		names = append(names, fmt.Sprint(mm["provider"], "/", mm["id"]))
	}
	return strings.Join(names, " ")
}

// expectAll waits for records matching every predicate, in any order.
func (s *rpcSession) expectAll(what string, preds ...func(map[string]any) bool) []map[string]any {
	s.t.Helper()
	found := make([]map[string]any, len(preds))
	left := len(preds)
	s.expect(what, func(m map[string]any) bool {
		for i, p := range preds {
			if found[i] == nil && p(m) {
				found[i] = m
				left--
				break
			}
		}
		return left == 0
	})
	return found
}

func isType(typ string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["type"] == typ }
}

func uiRequest(method string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["type"] == "extension_ui_request" && m["method"] == method }
}

func TestAnyLanguageExtensionCommandsInRPCMode(t *testing.T) {
	goExt, pyExt := anyLanguageExtensions(t)
	p := newProject(t)
	s := p.startRPC(append(p.baseArgs(), "-e", goExt, "-e", pyExt)...)

	s.send(map[string]any{"type": "get_commands", "id": "c"})
	resp := s.expect("get_commands", isType("response"))
	names := fmt.Sprint(resp["data"])
	if !strings.Contains(names, "name:stamp") || !strings.Contains(names, "name:py-confirm") {
		t.Fatalf("commands: %s", names)
	}

	s.send(map[string]any{"type": "prompt", "id": "p1", "message": "/py-confirm deploy"})
	req := s.expect("confirm", uiRequest("confirm"))
	if req["title"] != "Python asks" || req["message"] != "Proceed with deploy?" {
		t.Fatalf("confirm: %v", req)
	}
	s.send(map[string]any{"type": "extension_ui_response", "id": req["id"], "confirmed": true})
	if n := s.expect("notify", uiRequest("notify")); n["message"] != "py-confirm: yes" {
		t.Fatalf("notify: %v", n)
	}

	s.send(map[string]any{"type": "prompt", "id": "p2", "message": "/stamp release 1"})
	if n := s.expect("notify", uiRequest("notify")); n["message"] != "stamped: release 1" {
		t.Fatalf("notify: %v", n)
	}
	if p.server.Pending() != 0 || len(p.server.Requests()) != 0 {
		t.Fatal("a command reached the model")
	}
}

// Without Node or without pi's package, pi-go says in one line what to install and runs without the
// TypeScript extensions; the others still load.
func TestMissingNodeOrPiPackageIsOneLine(t *testing.T) {
	goExt, _ := anyLanguageExtensions(t)
	p := newProject(t)
	p.write("ext.ts", "export default function (pi) {}\n")
	// A node with no pi package beside it (never run: pi-go looks for the package first).
	fakeNode := filepath.Join(t.TempDir(), "bin", "node")
	if err := os.MkdirAll(filepath.Dir(fakeNode), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fakeNode, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"PI_GO_NODE=/nonexistent/node"}, "Warning: 1 extension(s) not loaded: extensions need Node.js: install Node 22"},
		{[]string{"PI_PACKAGE_DIR=/nonexistent", "PI_GO_NODE=" + fakeNode}, "Warning: 1 extension(s) not loaded: extensions need pi's package: run `npm install -g @earendil-works/pi-coding-agent`"},
	} {
		p.env = c.env
		p.server.Enqueue(openaitest.ToolCallReply("test-model", "",
			openaitest.ToolCallSpec{ID: "c1", Name: "word_count", Arguments: `{"text":"a b"}`}),
			openaitest.TextReply("test-model", "ok"))
		r := p.run("", append(p.baseArgs(), "-e", "ext.ts", "-e", goExt, "-p", "hi")...)
		if r.code != 0 || r.stdout != "ok\n" {
			t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
		}
		if lines := strings.Count(r.stderr, "\n"); !strings.Contains(r.stderr, c.want) || lines != 1 {
			t.Errorf("stderr (%d lines): %q, want %q", lines, r.stderr, c.want)
		}
	}
}
