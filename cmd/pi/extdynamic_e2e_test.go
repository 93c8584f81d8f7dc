package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// pi 1.6.0's examples that change the extensions' runtime after the start — tools registered
// late, a shutdown asked for, a reload — run in pi-go's RPC mode against the scripted server,
// through pi's own runner in the sidecar.

// systemText is the system prompt of the n-th request (1-based).
func systemText(t *testing.T, p *project, n int) string {
	t.Helper()
	for _, m := range requestMessages(t, p.server, n) {
		if m["role"] == "system" {
			return contentText(m["content"])
		}
	}
	return ""
}

// toolResultText is the text of the tool result with that call id in the n-th request.
func toolResultText(t *testing.T, p *project, n int, callID string) string {
	t.Helper()
	for _, m := range requestMessages(t, p.server, n) {
		if m["role"] == "tool" && m["tool_call_id"] == callID {
			return contentText(m["content"])
		}
	}
	t.Fatalf("request %d has no result of %s", n, callID)
	return ""
}

// dynamic-tools: a tool registered in session_start and one registered by a command are offered
// to the model with their prompt lines and run; a tool registered again with its name replaces
// the earlier one.
func TestPiExampleDynamicTools(t *testing.T) {
	p := mockProject(t)
	// A second extension re-registers its tool from a command, as pi.registerTool allows.
	replacer := filepath.Join(t.TempDir(), "replace.ts")
	if err := os.WriteFile(replacer, []byte(`import { Type } from "typebox";
export default function (pi) {
	const register = (version) => pi.registerTool({
		name: "versioned", label: "Versioned", description: "Version " + version,
		promptSnippet: "Versioned tool " + version, parameters: Type.Object({}),
		async execute() { return { content: [{ type: "text", text: "ran " + version }], details: {} }; },
	});
	register("one");
	pi.registerCommand("version-two", { handler: async (_args, ctx) => { register("two"); ctx.ui.notify("now two", "info"); } });
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startPiExamples(t, p, []string{"dynamic-tools.ts", replacer})
	s.expect("the session_start registration", notifyWith("Registered dynamic tool: echo_session"))

	p.server.Enqueue(
		openaitest.ToolCallReply("mock-model", "", openaitest.ToolCallSpec{ID: "c1", Name: "echo_session", Arguments: `{"message":"hello"}`}),
		openaitest.TextReply("mock-model", "Echoed."))
	s.send(map[string]any{"type": "prompt", "id": "p1", "message": "echo hello"})
	s.expect("the first run's end", isType("agent_settled"))
	if tools := requestTools(t, p, 1); !slices.Contains(tools, "echo_session") || !slices.Contains(tools, "versioned") {
		t.Fatalf("first request's tools: %v", tools)
	}
	sys := systemText(t, p, 1)
	for _, want := range []string{"- echo_session: Echo back user-provided text with [session] prefix",
		"- Use echo_session when the user asks for exact echo output.", "- versioned: Versioned tool one"} {
		if !strings.Contains(sys, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, sys)
		}
	}
	if got := toolResultText(t, p, 2, "c1"); got != "[session] hello" {
		t.Errorf("echo_session's result: %q", got)
	}

	s.send(map[string]any{"type": "prompt", "id": "p2", "message": "/add-echo-tool foo_bar"})
	s.expect("the command's registration", notifyWith("Registered dynamic tool: foo_bar"))
	s.send(map[string]any{"type": "prompt", "id": "p3", "message": "/version-two"})
	s.expect("the re-registration", notifyWith("now two"))
	p.server.Enqueue(
		openaitest.ToolCallReply("mock-model", "",
			openaitest.ToolCallSpec{ID: "c2", Name: "foo_bar", Arguments: `{"message":"hi"}`},
			openaitest.ToolCallSpec{ID: "c3", Name: "versioned", Arguments: `{}`}),
		openaitest.TextReply("mock-model", "Done."))
	s.send(map[string]any{"type": "prompt", "id": "p4", "message": "use them"})
	s.expect("the second run's end", isType("agent_settled"))
	tools := requestTools(t, p, 3)
	if n := strings.Count(strings.Join(tools, " "), "versioned"); n != 1 || !slices.Contains(tools, "foo_bar") {
		t.Fatalf("third request's tools: %v", tools)
	}
	if sys := systemText(t, p, 3); !strings.Contains(sys, "- versioned: Versioned tool two") || strings.Contains(sys, "Versioned tool one") {
		t.Errorf("the replaced tool's line:\n%s", sys)
	}
	if got := toolResultText(t, p, 4, "c2"); got != "[foo_bar] hi" {
		t.Errorf("foo_bar's result: %q", got)
	}
	if got := toolResultText(t, p, 4, "c3"); got != "ran two" {
		t.Errorf("versioned's result: %q", got)
	}
}

// shutdownMarker is an extension that appends the reason of each session_shutdown and session_start
// it gets to the file it returns, one "event reason" a line, and notifies each resources_discover.
func shutdownMarker(t *testing.T, p *project) (ext, marks string) {
	t.Helper()
	dir := t.TempDir()
	ext, marks = filepath.Join(dir, "marker.ts"), filepath.Join(dir, "marks")
	src := `import fs from "node:fs";
export default function (pi) {
	for (const name of ["session_start", "session_shutdown"]) {
		pi.on(name, (event) => { fs.appendFileSync(process.env.PI_GO_TEST_MARKS, name + " " + event.reason + "\n"); });
	}
	pi.on("resources_discover", (event, ctx) => { ctx.ui.notify("resources_discover " + event.reason, "info"); });
}
`
	if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p.env = append(p.env, "PI_GO_TEST_MARKS="+marks)
	return ext, marks
}

// awaitExit reads pi-go's records until its output ends (failing after a minute and a half) and
// returns how it exited.
func (s *rpcSession) awaitExit() error {
	s.t.Helper()
	timeout := time.After(90 * time.Second)
	for {
		select {
		case _, ok := <-s.lines:
			if !ok {
				return s.cmd.Wait()
			}
		case <-timeout:
			s.t.Fatal("pi-go did not exit")
		}
	}
}

// shutdown-command: /quit (ctx.shutdown() from a command) ends RPC mode at once, the extensions
// getting session_shutdown first; pi-go exits 0.
func TestPiExampleShutdownCommandInRPC(t *testing.T) {
	p := mockProject(t)
	marker, marks := shutdownMarker(t, p)
	s := startPiExamples(t, p, []string{"shutdown-command.ts", marker})
	s.send(map[string]any{"type": "prompt", "id": "q", "message": "/quit"})
	s.expect("the command's response", isResponse("q"))
	if err := s.awaitExit(); err != nil {
		t.Fatalf("pi-go exited with %v", err)
	}
	if got, _ := os.ReadFile(marks); string(got) != "session_start startup\nsession_shutdown quit\n" {
		t.Errorf("the extension saw %q", got)
	}
}

// reload-runtime: its tool asks for a reload, which its agent_settled handler runs through its
// command's ctx.reload() once the run has settled: the extensions get session_shutdown and
// session_start with reason "reload", the files are loaded again (a changed tool is offered as it
// is now) and resources_discover follows with reason "reload".
func TestPiExampleReloadRuntime(t *testing.T) {
	p := mockProject(t)
	marker, marks := shutdownMarker(t, p)
	versioned := filepath.Join(t.TempDir(), "versioned.ts")
	writeVersion := func(v string) {
		src := `import { Type } from "typebox";
export default function (pi) {
	pi.registerTool({ name: "versioned", label: "Versioned", description: "Version ` + v + `", parameters: Type.Object({}),
		async execute() { return { content: [{ type: "text", text: "ran ` + v + `" }], details: {} }; } });
}
`
		if err := os.WriteFile(versioned, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeVersion("one")
	s := startPiExamples(t, p, []string{"reload-runtime.ts", marker, versioned})
	s.expect("the start's resources_discover", notifyWith("resources_discover startup"))
	writeVersion("two")
	p.server.Enqueue(openaitest.ToolCallReply("mock-model", "", openaitest.ToolCallSpec{ID: "r", Name: "reload_runtime", Arguments: `{}`}))
	s.send(map[string]any{"type": "prompt", "id": "p1", "message": "reload yourself"})
	s.expect("the run's end", isType("agent_settled"))
	s.expect("the reload's resources_discover", notifyWith("resources_discover reload"))
	if got, _ := os.ReadFile(marks); string(got) != "session_start startup\nsession_shutdown reload\nsession_start reload\n" {
		t.Errorf("the extension saw %q", got)
	}
	p.server.Enqueue(openaitest.TextReply("mock-model", "Reloaded."))
	s.send(map[string]any{"type": "prompt", "id": "p2", "message": "hi"})
	s.expect("the second run's end", isType("agent_settled"))
	body, err := p.server.Requests()[1].JSON()
	if err != nil {
		t.Fatal(err)
	}
	var descriptions []string
	for _, tool := range body["tools"].([]any) {
		fn := tool.(map[string]any)["function"].(map[string]any)
		if fn["name"] == "versioned" || fn["name"] == "reload_runtime" {
			descriptions = append(descriptions, fmt.Sprint(fn["name"], ": ", fn["description"]))
		}
	}
	if got := strings.Join(descriptions, "; "); got != "reload_runtime: Reload extensions, skills, prompts, themes, and context files; versioned: Version two" {
		t.Errorf("tools after the reload: %s", got)
	}
}
