package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// mockProject is a project whose models.json has pi's interop provider "mock" on the scripted server.
func mockProject(t *testing.T) *project {
	t.Helper()
	p := newProject(t)
	models := fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"api":"openai-completions","apiKey":"mock-key","models":[`+
		`{"id":"mock-model"},{"id":"mock-reasoner","reasoning":true,"contextWindow":64000,"maxTokens":8000}]}}}`, p.server.URL)
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// requestTools are the tool names of the n-th request (1-based).
func requestTools(t *testing.T, p *project, n int) []string {
	t.Helper()
	body, err := p.server.Requests()[n-1].JSON()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	tools, _ := body["tools"].([]any)
	for _, tool := range tools {
		names = append(names, tool.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	return names
}

// The command-line errors of pi 1.6, word for word, before any request.
func TestCommandLineErrorsOfPi16(t *testing.T) {
	p := mockProject(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--provider", "mock", "-p", "hi"}, "Error: --provider requires --model (for example: --provider mock --model <pattern>)\n"},
		{[]string{"-p", "--mode", "bogus", "hi"}, "Error: Invalid mode \"bogus\". Valid values: text, json, rpc\n"},
		{[]string{"-p", "hi", "--mode"}, "Error: --mode requires text, json, or rpc\n"},
		{[]string{"--mode", "-p", "hi"}, "Error: --mode requires text, json, or rpc\n"},
		{[]string{"--tools", "read,+grep", "-p", "hi"}, "Error: --tools: tool names cannot be mixed with +name or -name entries\n"},
		{[]string{"--tools", "+gr*", "-p", "hi"}, "Error: --tools: +name and -name entries take exact tool names, not patterns: +gr*\n"},
		{[]string{"--session-id", "-bad", "-p", "hi"}, "Error: Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character\n"},
		{[]string{"--session-id", "abc", "-c", "-p", "hi"}, "Error: --session-id cannot be combined with --continue\n"},
		{[]string{"--name", "  ", "-p", "hi"}, "Error: --name requires a non-empty value\n"},
		{[]string{"--tui-mode", "tabs", "-p", "hi"}, "Error: Invalid TUI mode \"tabs\". Valid values: regular, fullscreen\n"},
		{[]string{"--tui-mode", "-p", "hi"}, "Error: --tui-mode requires regular or fullscreen\n"},
		{[]string{"-p", "hi", "--tui-mode"}, "Error: --tui-mode requires regular or fullscreen\n"},
		{[]string{"-p", "hi", "--name"}, "Error: --name requires a value\n"},
	} {
		args := tc.args
		if args[0] != "--provider" {
			args = append([]string{"--model", "mock/mock-model"}, args...)
		}
		r := p.run("", args...)
		if r.code != 1 || r.stderr != tc.want || r.stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want %q", tc.args, r.code, r.stderr, r.stdout, tc.want)
		}
	}
	if n := len(p.server.Requests()); n != 0 {
		t.Errorf("%d requests", n)
	}
	// The offline demo model of pi-go needs no --model.
	if r := p.run("", "--provider", "demo", "-p", "hello"); r.code != 0 {
		t.Errorf("--provider demo: exit %d: %s", r.code, r.stderr)
	}
}

// --tools with patterns and +name/-name lists, and --exclude-tools, select the tools pi 1.6 selects
// (the interop cases "--tools with a pattern", "--tools +grep,-bash" and "--exclude-tools bash").
func TestToolSelectionOfPi16(t *testing.T) {
	for _, tc := range []struct {
		args, want []string
		settings   string
	}{
		{[]string{"--tools", "gr*,read"}, []string{"read", "grep"}, ""},
		{[]string{"--tools", "+grep,-bash"}, []string{"read", "edit", "write", "grep"}, ""},
		{[]string{"-xt", "bash"}, []string{"read", "edit", "write"}, ""},
		{[]string{"--exclude-tools", "*e*"}, []string{"bash"}, ""},
		{[]string{"--tools", "bash,read"}, []string{"bash", "read"}, ""},
		{nil, []string{"read", "bash", "ls"}, `{"defaultTools": ["read", "bash", "+ls"]}`},
		{[]string{"--tools", "-bash"}, []string{"read", "ls"}, `{"defaultTools": ["read", "bash", "+ls"]}`},
		{[]string{"--no-tools", "--tools", "+find"}, []string{"find"}, ""},
	} {
		p := mockProject(t)
		if tc.settings != "" {
			if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"), []byte(tc.settings), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p.server.Enqueue(openaitest.TextReply("mock-model", "ok"))
		r := p.run("", append([]string{"--model", "mock/mock-model", "-p", "hi"}, tc.args...)...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%q: exit %d: %s", tc.args, r.code, r.stderr)
		}
		if got := requestTools(t, p, 1); !slices.Equal(got, tc.want) {
			t.Errorf("%q %s: tools %q, want %q", tc.args, tc.settings, got, tc.want)
		}
	}
}

// --thinking max is clamped to what the model offers, an invalid level is warned about and ignored
// (pi 1.6 goes on), and "--" ends the options.
func TestThinkingMaxAndEndOfOptions(t *testing.T) {
	p := mockProject(t)
	p.server.Enqueue(openaitest.TextReply("mock-reasoner", "ok"), openaitest.TextReply("mock-model", "ok"), openaitest.TextReply("mock-model", "ok"))
	if r := p.run("", "--model", "mock/mock-reasoner", "--thinking", "max", "-p", "hi"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	body, _ := p.server.Requests()[0].JSON()
	if body["reasoning_effort"] != "high" {
		t.Errorf("max on a model without max: reasoning_effort %v", body["reasoning_effort"])
	}
	r := p.run("", "--model", "mock/mock-model", "--thinking", "huge", "-p", "hi")
	if r.code != 0 || r.stderr != "Warning: Invalid thinking level \"huge\". Valid values: off, minimal, low, medium, high, xhigh, max\n" {
		t.Errorf("invalid level: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := p.run("", "--model", "mock/mock-model", "-p", "--", "--version is a message here"); r.code != 0 {
		t.Fatalf("--: exit %d: %s", r.code, r.stderr)
	}
	msgs := requestMessages(t, p.server, 3)
	if got := contentText(msgs[len(msgs)-1]["content"]); got != "--version is a message here" {
		t.Errorf("message after --: %q", got)
	}
}

// -p with an answer cut at the output limit prints it, says so on stderr and exits 1 (pi 1.6). The
// answer uses the model's whole output limit (16384 tokens): a shorter "length" stop is one pi 1.6
// recovers from like a context overflow instead.
func TestPrintModeTruncatedAnswer(t *testing.T) {
	p := mockProject(t)
	c := openaitest.NewChunks("mock-model")
	p.server.Enqueue(openaitest.Response{Events: []string{c.Role(), c.Text("Cut short"), c.Finish("length"), c.Usage(10, 16384, 0), openaitest.Done()}})
	r := p.run("", "--model", "mock/mock-model", "--no-session", "-p", "hi")
	if r.code != 1 || r.stdout != "Cut short\n" || r.stderr != "Response was truncated: the model reached its output token limit.\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// --session-id opens this project's session with that id or creates one with it; --name names it.
func TestSessionIDAndName(t *testing.T) {
	p := mockProject(t)
	p.server.Enqueue(openaitest.TextReply("mock-model", "first"), openaitest.TextReply("mock-model", "second"))
	r := p.run("", "--model", "mock/mock-model", "--session-id", "interop-session-1", "--name", "  interop name ", "-p", "hi")
	if r.code != 0 || r.stderr != "Warning: No project session found with id 'interop-session-1'; creating a new session with that id.\n" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(p.agentDir, "sessions", "*", "*_interop-session-1.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	data, _ := os.ReadFile(files[0])
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	// As pi 1.6: the name first, then the new session's model and thinking level.
	if !strings.HasPrefix(lines[0], `{"type":"session","version":3,"id":"interop-session-1",`) ||
		!strings.HasPrefix(lines[1], `{"type":"session_info","id":"`) || !strings.HasSuffix(lines[1], `,"name":"interop name"}`) ||
		!strings.HasPrefix(lines[2], `{"type":"model_change",`) || !strings.HasPrefix(lines[3], `{"type":"thinking_level_change",`) {
		t.Errorf("session file:\n%s", data)
	}
	r = p.run("", "--model", "mock/mock-model", "--session-id", "interop-session-1", "-p", "again")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("second run: exit %d, stderr %q", r.code, r.stderr)
	}
	msgs := requestMessages(t, p.server, 2)
	if len(msgs) != 4 || contentText(msgs[1]["content"]) != "hi" {
		t.Errorf("the second run did not continue the session: %d messages", len(msgs))
	}
	if r := p.run("", "--fork", files[0], "--session-id", "interop-session-1", "-p", "x"); r.code != 1 || r.stderr != "Session already exists with id 'interop-session-1'\n" {
		t.Errorf("fork onto an existing id: exit %d, stderr %q", r.code, r.stderr)
	}
}

// AGENTS.override.md is read instead of the AGENTS.md beside it (the interop case "AGENTS.override.md
// beside AGENTS.md").
func TestAgentsOverrideReachesTheRequest(t *testing.T) {
	p := mockProject(t)
	p.write("AGENTS.md", "Use tabs.\n")
	p.write("AGENTS.override.md", "Use spaces, not tabs.\n")
	p.server.Enqueue(openaitest.TextReply("mock-model", "ok"))
	if r := p.run("", "--model", "mock/mock-model", "--no-session", "-p", "hi"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	system := contentText(requestMessages(t, p.server, 1)[0]["content"])
	if !strings.Contains(system, "Use spaces, not tabs.") || strings.Contains(system, "Use tabs.") ||
		!strings.Contains(system, filepath.Join(p.dir, "AGENTS.override.md")) {
		t.Errorf("system prompt:\n%s", system)
	}
}

// The bash tool's commands get AI_AGENT=pi and the session's variables (the interop case "bash tool
// environment"); PI_SESSION_FILE only for a session saved to a file.
func TestBashToolEnvironment(t *testing.T) {
	for _, saved := range []bool{true, false} {
		p := mockProject(t)
		p.env = []string{"PI_SESSION_ID=inherited", "PI_MODEL=inherited"}
		p.server.Enqueue(
			openaitest.ToolCallReply("mock-model", "", openaitest.ToolCallSpec{ID: "c1", Name: "bash",
				Arguments: `{"command":"env | grep -E '^(AI_AGENT|PI_[A-Z_]+)=' | grep -v -e PI_CODING_AGENT_DIR -e PI_DEMO_DELAY | sort"}`}),
			openaitest.TextReply("mock-model", "That is the environment."))
		args := []string{"--model", "mock/mock-model", "--session-id", "env-session", "-p", "show the environment"}
		if !saved {
			args = append(args, "--no-session")
		}
		r := p.run("", args...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		msgs := requestMessages(t, p.server, 2)
		got := contentText(msgs[len(msgs)-1]["content"])
		want := "AI_AGENT=pi\nPI_CODING_AGENT=true\nPI_MODEL=mock-model\nPI_PROVIDER=mock\nPI_REASONING_LEVEL=off\n"
		if saved {
			files, _ := filepath.Glob(filepath.Join(p.agentDir, "sessions", "*", "*_env-session.jsonl"))
			if len(files) != 1 {
				t.Fatalf("session files %v", files)
			}
			want += "PI_SESSION_FILE=" + files[0] + "\n"
		}
		want += "PI_SESSION_ID=env-session\n"
		if got != want {
			t.Errorf("saved %v: the command saw\n%s\nwant\n%s", saved, got, want)
		}
	}
}
