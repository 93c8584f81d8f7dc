package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// piBinary is the binary built once for the end-to-end tests.
var piBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pi-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	piBinary = filepath.Join(dir, "pi")
	// Built as make build builds it (static, stripped), so the process benchmarks measure the binary
	// users run: a cgo build also loads the C library at every start.
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", piBinary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building pi:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// project is a temp project directory with its own agent dir.
type project struct {
	t        *testing.T
	dir      string
	agentDir string
	server   *openaitest.Server
	// env are extra environment variables for every run ("NAME=value").
	env []string
}

func newProject(t *testing.T) *project {
	t.Helper()
	root := t.TempDir()
	p := &project{t: t, dir: filepath.Join(root, "proj"), agentDir: filepath.Join(root, "agent"), server: openaitest.Start(t)}
	for _, d := range []string{p.dir, p.agentDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func (p *project) write(rel, content string) {
	p.t.Helper()
	path := filepath.Join(p.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

type result struct {
	stdout, stderr string
	code           int
}

// run starts pi in the project against the scripted server.
func (p *project) run(stdin string, args ...string) result {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, piBinary, args...)
	cmd.Dir = p.dir
	cmd.Env = []string{
		"HOME=" + filepath.Dir(p.agentDir),
		"PATH=" + os.Getenv("PATH"),
		"PI_CODING_AGENT_DIR=" + p.agentDir,
		"PI_DEMO_DELAY=0",
	}
	cmd.Env = append(cmd.Env, p.env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		p.t.Fatalf("running pi: %v", err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

func (p *project) baseArgs() []string {
	return []string{"--base-url", p.server.URL, "--model", "test-model"}
}

// requestMessages decodes the messages of the n-th request (1-based).
func requestMessages(t *testing.T, s *openaitest.Server, n int) []map[string]any {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) < n {
		t.Fatalf("only %d requests", len(reqs))
	}
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := reqs[n-1].Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Messages
}

func TestPrintModeMultiTurnToolRunEditsAFile(t *testing.T) {
	p := newProject(t)
	p.write("greet.go", "package main\n\nfunc greet() string { return \"hello\" }\n")
	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "Let me read it.",
			openaitest.ToolCallSpec{ID: "call_1", Name: "read", Arguments: `{"path":"greet.go"}`}),
		openaitest.ToolCallReply("test-model", "",
			openaitest.ToolCallSpec{ID: "call_2", Name: "edit", Arguments: `{"path":"greet.go","edits":[{"oldText":"\"hello\"","newText":"\"hello, world\""}]}`}),
		openaitest.TextReply("test-model", "Changed the ", "greeting."),
	)
	r := p.run("", append(p.baseArgs(), "-p", "make greet say hello, world")...)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr: %s", r.code, r.stderr)
	}
	if r.stdout != "Changed the greeting.\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	data, _ := os.ReadFile(filepath.Join(p.dir, "greet.go"))
	if !strings.Contains(string(data), `"hello, world"`) {
		t.Errorf("file not edited: %s", data)
	}
	msgs := requestMessages(t, p.server, 3)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m["role"].(string))
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,assistant,tool" {
		t.Errorf("third request roles: %v", roles)
	}
	if !strings.Contains(fmt.Sprint(msgs[5]["content"]), "Successfully replaced") {
		t.Errorf("edit result not sent back: %v", msgs[5])
	}

	// -c continues that session: the whole history goes into the next request.
	p.server.Enqueue(openaitest.TextReply("test-model", "Yes."))
	r = p.run("", append(p.baseArgs(), "-c", "-p", "did it work?")...)
	if r.code != 0 || r.stdout != "Yes.\n" {
		t.Fatalf("continue: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	msgs = requestMessages(t, p.server, 4)
	if len(msgs) != 8 || contentText(msgs[7]["content"]) != "did it work?" {
		t.Errorf("continued request carries %d messages (want 8), last %v", len(msgs), msgs[len(msgs)-1])
	}
}

func TestJSONModeFollowsTheLoopContract(t *testing.T) {
	p := newProject(t)
	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "c1", Name: "bash", Arguments: `{"command":"echo hi"}`}),
		openaitest.TextReply("test-model", "done"),
	)
	r := p.run("", append(p.baseArgs(), "--mode", "json", "go")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var types []string
	for i, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %d is not JSON: %q", i+1, line)
		}
		typ := ev["type"].(string)
		if i == 0 {
			if typ != "session" || ev["version"].(float64) != 3 || ev["cwd"] == nil {
				t.Fatalf("first line must be the session header: %s", line)
			}
			continue
		}
		if typ == "message_update" {
			// pi 1.6: the delta and the usage so far, never the whole partial message.
			if ev["assistantMessageEvent"] == nil || ev["usage"] == nil || ev["message"] != nil {
				t.Errorf("message_update is not {type, usage, assistantMessageEvent}: %s", line)
			}
			continue
		}
		types = append(types, typ)
	}
	// The system message declaring the prompt and tools, then the prompt.
	want := "agent_start turn_start message_start message_end message_start message_end message_start message_end " +
		"tool_execution_start tool_execution_update tool_execution_update tool_execution_end message_start message_end turn_end " +
		"turn_start message_start message_end turn_end agent_end agent_settled"
	got := strings.Join(types, " ")
	// bash may stream its output in one or more updates.
	got = collapseRepeats(got, "tool_execution_update ")
	want = collapseRepeats(want, "tool_execution_update ")
	if got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
}

// contentText is the text of a request message's content (a string or text parts).
func contentText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, part := range c {
			if m, ok := part.(map[string]any); ok && m["type"] == "text" {
				b.WriteString(m["text"].(string))
			}
		}
		return b.String()
	}
	return ""
}

func collapseRepeats(s, word string) string {
	for strings.Contains(s, word+word) {
		s = strings.ReplaceAll(s, word+word, word)
	}
	return s
}

func TestContextFilesAndSystemPromptReachTheRequest(t *testing.T) {
	p := newProject(t)
	p.write("AGENTS.md", "Always answer in haiku.")
	p.write(".pi/APPEND_SYSTEM.md", "APPENDED-LINE")
	if err := os.WriteFile(filepath.Join(p.agentDir, "AGENTS.md"), []byte("Global rule."), 0o644); err != nil {
		t.Fatal(err)
	}
	p.server.Enqueue(openaitest.TextReply("test-model", "ok"))
	// The project's .pi files count only when it is trusted (pi 1.6).
	if r := p.run("", append(p.baseArgs(), "--approve", "-p", "hi")...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sys := requestMessages(t, p.server, 1)[0]
	content, _ := sys["content"].(string)
	// pi 1.6's sections: the appended prompt is the addendum, then the context files (global first),
	// then the working directory; no date.
	tail := "\n\n<addendum>\nAPPENDED-LINE\n</addendum>\n\n<project_context>\nProject-specific instructions and guidelines:\n\n" +
		`<project_instructions path="` + filepath.Join(p.agentDir, "AGENTS.md") + `">` + "\nGlobal rule.\n</project_instructions>\n\n" +
		`<project_instructions path="` + filepath.Join(p.dir, "AGENTS.md") + `">` + "\nAlways answer in haiku.\n</project_instructions>\n</project_context>\n\n" +
		"<cwd>\n" + p.dir + "\n</cwd>"
	if !strings.HasPrefix(content, "You are a coding assistant running inside pi, a coding agent harness.") ||
		!strings.Contains(content, "\n</rules>"+tail) || !strings.HasSuffix(content, tail) {
		t.Errorf("system prompt:\n%s\nwant it to end with the rules and\n%s", content, tail)
	}

	// SYSTEM.md replaces the preamble, the tool list and the rules.
	p.write(".pi/SYSTEM.md", "CUSTOM-SYSTEM-PROMPT")
	p.server.Enqueue(openaitest.TextReply("test-model", "ok"))
	if r := p.run("", append(p.baseArgs(), "--approve", "--no-session", "-p", "hi")...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	content, _ = requestMessages(t, p.server, 2)[0]["content"].(string)
	if content != "CUSTOM-SYSTEM-PROMPT"+tail {
		t.Errorf("SYSTEM.md must replace the default prompt:\n%s", content)
	}
}

func TestErrorsAUserCanMake(t *testing.T) {
	p := newProject(t)
	p.server.Enqueue(openaitest.ErrorResponse(401, "Incorrect API key provided"))
	r := p.run("", append(p.baseArgs(), "-p", "hi")...)
	if r.code != 1 || !strings.Contains(r.stderr, "401") || !strings.Contains(r.stderr, "Incorrect API key provided") {
		t.Errorf("401: exit %d stderr %q", r.code, r.stderr)
	}

	// Connection refused is retried (pi's rule); keep the back-off short for the test.
	if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"), []byte(`{"retry":{"baseDelayMs":1,"maxRetries":2}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = p.run("", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "-p", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "127.0.0.1:1") {
		t.Errorf("connection refused: exit %d stderr %q", r.code, r.stderr)
	}

	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--thinking", "ultra", "-p", "x"}, "Warning: Invalid thinking level \"ultra\""}, // pi 1.6 warns and goes on
		{[]string{"--model", "no-such-model-anywhere", "-p", "x"}, "no-such-model-anywhere"},
		{[]string{"--provider", "nope", "--model", "x", "-p", "x"}, "nope"},
		{[]string{"--provider", "demo", "@missing.txt", "-p"}, "File not found"},
		{[]string{"--session", "deadbeef", "-p", "x"}, "No session found matching 'deadbeef'"},
		{[]string{"-p", "x"}, "No models available"},
		{[]string{"--model", "gpt-4o", "-p", "x"}, "OPENAI_API_KEY"},
	}
	for _, c := range cases {
		r := p.run("", c.args...)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("pi %v: exit %d, stderr %q; want exit 1 mentioning %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

func TestVersionAndHelp(t *testing.T) {
	p := newProject(t)
	// The test binary is built with go build (no -X): the commit, if any, is Go's vcs stamp.
	if r := p.run("", "--version"); r.code != 0 || !regexp.MustCompile(`^pi-go \d+\.\d+\.\d+\S*( \(commit [0-9a-f]{7}(-dirty)?\))?\n$`).MatchString(r.stdout) {
		t.Errorf("--version: %+v", r)
	}
	if r := p.run("", "--help"); r.code != 0 || !strings.Contains(r.stdout, "--base-url") {
		t.Errorf("--help: %+v", r)
	}
}

func TestStdinIsMergedIntoTheFirstPrompt(t *testing.T) {
	p := newProject(t)
	p.write("note.txt", "NOTE-CONTENT")
	p.server.Enqueue(openaitest.TextReply("test-model", "ok"))
	r := p.run("piped text\n", append(p.baseArgs(), "@note.txt", "question")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	user := contentText(requestMessages(t, p.server, 1)[1]["content"])
	want := "piped text<file name=\"" + filepath.Join(p.dir, "note.txt") + "\">\nNOTE-CONTENT\n</file>\nquestion"
	if user != want {
		t.Errorf("first prompt:\n got %q\nwant %q", user, want)
	}
}

func TestSignalAbortsCleanly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	p := newProject(t)
	gate := make(chan struct{})
	sent := make(chan int, 16)
	resp := openaitest.TextReply("test-model", "partial ", "never")
	resp.Gate, resp.Sent = gate, sent
	p.server.Enqueue(resp)
	cmd := exec.Command(piBinary, append(p.baseArgs(), "-p", "hi")...)
	cmd.Dir = p.dir
	cmd.Env = []string{"HOME=" + p.agentDir, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + p.agentDir}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	gate <- struct{}{} // role chunk
	<-sent
	gate <- struct{}{} // "partial "
	<-sent
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("SIGINT: %v (stderr %s), want exit 130", err, errb.String())
	}
	// The session file stays valid and holds the aborted answer.
	files, _ := filepath.Glob(filepath.Join(p.agentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	data, _ := os.ReadFile(files[0])
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("invalid line in session: %q", line)
		}
	}
	if !strings.Contains(string(data), `"stopReason":"aborted"`) {
		t.Errorf("aborted message not saved:\n%s", data)
	}
}

func TestPrintWaitsForOverflowRecovery(t *testing.T) {
	p := newProject(t)
	if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"),
		[]byte(`{"compaction":{"keepRecentTokens":5}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p.server.Enqueue(
		openaitest.TextReply("test-model", "first answer"),
		openaitest.ErrorResponse(400, "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."),
		openaitest.TextReply("test-model", "## Goal\nsummary"),
		openaitest.TextReply("test-model", "answer after compaction"),
	)
	if r := p.run("", append(p.baseArgs(), "-p", "one")...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	r := p.run("", append(p.baseArgs(), "-c", "-p", "two: the second request, longer than what is kept")...)
	if r.code != 0 || r.stdout != "answer after compaction\n" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "Compacting the context (overflow)") {
		t.Errorf("stderr should say why the answer took longer: %q", r.stderr)
	}
	msgs := requestMessages(t, p.server, 4)
	if !strings.Contains(contentText(msgs[1]["content"]), "## Goal\nsummary") {
		t.Errorf("the continued request must start with the summary: %v", msgs[1])
	}
}

func TestResetMidStreamIsRetriedWithoutLeaks(t *testing.T) {
	p := newProject(t)
	if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"), []byte(`{"retry":{"baseDelayMs":1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	chunks := openaitest.NewChunks("test-model")
	broken := openaitest.Response{Events: []string{chunks.Role()}, End: openaitest.EndReset}
	for i := 0; i < 50; i++ {
		broken.Events = append(broken.Events, chunks.Text("x"))
	}
	p.server.Enqueue(broken, openaitest.TextReply("test-model", "clean ", "answer"))
	r := p.run("", append(p.baseArgs(), "--mode", "json", "hi")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var starts, ends int
	var final string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		switch ev["type"] {
		case "auto_retry_start":
			starts++
		case "auto_retry_end":
			ends++
			if ev["success"] != true {
				t.Errorf("retry failed: %s", line)
			}
		case "agent_end":
			msgs := ev["messages"].([]any)
			final = contentText(msgs[len(msgs)-1].(map[string]any)["content"])
		}
	}
	if starts != 1 || ends != 1 {
		t.Errorf("retry events: %d starts, %d ends", starts, ends)
	}
	if final != "clean answer" {
		t.Errorf("final message %q: no text of the failed attempt may leak into it", final)
	}
	if n := len(requestMessages(t, p.server, 2)); n != len(requestMessages(t, p.server, 1)) {
		t.Errorf("the retry must send the first request's context")
	}
}

// The prompt is in the session file before the model answers: a process killed (SIGKILL) during the
// first streamed answer keeps it, and -c resumes with it (pi 0.73.1 wrote nothing before the first
// answer ended).
func TestPromptSurvivesAKillDuringTheFirstAnswer(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	p := newProject(t)
	gate := make(chan struct{})
	sent := make(chan int, 16)
	resp := openaitest.TextReply("test-model", "partial ", "never")
	resp.Gate, resp.Sent = gate, sent
	p.server.Enqueue(resp)
	cmd := exec.Command(piBinary, append(p.baseArgs(), "-p", "the prompt that must not be lost")...)
	cmd.Dir = p.dir
	cmd.Env = []string{"HOME=" + p.agentDir, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + p.agentDir}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	gate <- struct{}{} // the role chunk: the answer has started streaming
	<-sent
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	close(gate) // release the server's handler
	files, _ := filepath.Glob(filepath.Join(p.agentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files after the kill: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"text":"the prompt that must not be lost"`) {
		t.Fatalf("the prompt is not in the session file:\n%s", data)
	}
	p.server.Enqueue(openaitest.TextReply("test-model", "resumed"))
	if r := p.run("", append(p.baseArgs(), "-c", "-p", "again")...); r.code != 0 || r.stdout != "resumed\n" {
		t.Fatalf("resume: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	msgs := requestMessages(t, p.server, 2)
	if len(msgs) < 3 || contentText(msgs[1]["content"]) != "the prompt that must not be lost" {
		t.Errorf("the resumed request does not carry the first prompt: %v", msgs)
	}
}
