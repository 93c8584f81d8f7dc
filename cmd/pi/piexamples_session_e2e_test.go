package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// pi 1.6.0's examples that act on the session beyond a run's own events — compaction, model
// selection, `!` commands, the active tools, custom messages — each run in pi-go's RPC mode against
// the scripted server, through pi's own runner in the sidecar, and each checked by its effect.

// startPiExamples starts pi-go in RPC mode on the mock models with pi 1.6.0's examples named (paths
// under examples/extensions) and extra arguments.
func startPiExamples(t *testing.T, p *project, examples []string, extra ...string) *rpcSession {
	t.Helper()
	pi := findPiExamples(t, testPiVersion)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	args := []string{"--provider", "mock", "--model", "mock-model"}
	for _, name := range examples {
		if !strings.HasPrefix(name, "/") {
			name = filepath.Join(pi.pkg, "examples", "extensions", name)
		}
		args = append(args, "-e", name)
	}
	return p.startRPC(append(args, extra...)...)
}

// smallCompactions makes compaction keep only the newest turn, so a short conversation has
// something to summarise.
func smallCompactions(t *testing.T, p *project) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"), []byte(`{"compaction":{"keepRecentTokens":1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
}

func isResponse(id string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["type"] == "response" && m["id"] == id }
}

func notifyWith(text string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		return m["type"] == "extension_ui_request" && m["method"] == "notify" && strings.Contains(fmt.Sprint(m["message"]), text)
	}
}

// sessionFileOf is the session file pi-go writes now.
func sessionFileOf(s *rpcSession, id string) string {
	s.t.Helper()
	s.send(map[string]any{"type": "get_state", "id": id})
	st := s.expect("get_state", isResponse(id))
	file, _ := st["data"].(map[string]any)["sessionFile"].(string)
	if file == "" {
		s.t.Fatalf("no session file: %v", st)
	}
	return file
}

// model-status: model_select reaches the extension on set_model and cycle_model, with its source.
func TestPiExampleModelStatus(t *testing.T) {
	p := mockProject(t)
	s := startPiExamples(t, p, []string{"model-status.ts"})
	s.send(map[string]any{"type": "set_model", "id": "m1", "provider": "mock", "modelId": "mock-reasoner"})
	got := s.expectAll("model-status's notify and status",
		notifyWith("Model: mock/mock-reasoner"),
		func(m map[string]any) bool {
			return m["type"] == "extension_ui_request" && m["method"] == "setStatus" && m["statusKey"] == "model" &&
				m["statusText"] == "🤖 mock-reasoner"
		})
	if got[0]["notifyType"] != "info" {
		t.Errorf("notify: %v", got[0])
	}
	s.send(map[string]any{"type": "cycle_model", "id": "m2"})
	s.expect("the cycled model's notify", notifyWith("Model: mock/mock-model"))
}

// trigger-compact: the command compacts through ctx.compact, whose onComplete runs when pi-go's
// compaction has ended; the command's instructions reach the summary request.
func TestPiExampleTriggerCompact(t *testing.T) {
	p := mockProject(t)
	smallCompactions(t, p)
	s := startPiExamples(t, p, []string{"trigger-compact.ts"})
	p.server.Enqueue(openaitest.TextReply("mock-model", "Hello there."), openaitest.TextReply("mock-model", "Hi again."))
	for i, text := range []string{"hello", "and again"} {
		s.send(map[string]any{"type": "prompt", "id": fmt.Sprint("p", i), "message": text})
		s.expect("the run's end", isType("agent_settled"))
	}
	p.server.Enqueue(openaitest.TextReply("mock-model", "## Goal\nSay hello."))
	s.send(map[string]any{"type": "prompt", "id": "tc", "message": "/trigger-compact keep the greetings"})
	s.expect("Compaction started", notifyWith("Compaction started"))
	end := s.expect("compaction_end", isType("compaction_end"))
	if res, _ := end["result"].(map[string]any); res == nil || !strings.Contains(fmt.Sprint(res["summary"]), "Say hello.") {
		t.Fatalf("compaction_end: %v", end)
	}
	s.expect("Compaction completed", notifyWith("Compaction completed"))
	summaryRequest := requestMessages(t, p.server, 3)
	if text := contentText(summaryRequest[len(summaryRequest)-1]["content"]); !strings.Contains(text, "keep the greetings") {
		t.Errorf("the summary request lacks the instructions: %.300s", text)
	}
}

// custom-compaction: session_before_compact summarises with another model through the extension's
// own model registry and its summary replaces pi-go's (fromHook in the session file).
func TestPiExampleCustomCompaction(t *testing.T) {
	p := newProject(t)
	// The example asks for google/gemini-2.5-flash: models.json points it at the scripted server.
	models := fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"api":"openai-completions","apiKey":"mock-key","models":[{"id":"mock-model"}]},`+
		`"google":{"baseUrl":%q,"api":"openai-completions","apiKey":"g-key","models":[{"id":"gemini-2.5-flash"}]}}}`, p.server.URL, p.server.URL)
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	smallCompactions(t, p)
	s := startPiExamples(t, p, []string{"custom-compaction.ts"})
	p.server.Enqueue(openaitest.TextReply("mock-model", "Hello there."), openaitest.TextReply("mock-model", "Hi again."))
	for i, text := range []string{"hello", "and again"} {
		s.send(map[string]any{"type": "prompt", "id": fmt.Sprint("p", i), "message": text})
		s.expect("the run's end", isType("agent_settled"))
	}
	p.server.Enqueue(openaitest.TextReply("gemini-2.5-flash", "FULL SUMMARY from flash"))
	s.send(map[string]any{"type": "compact", "id": "c"})
	s.expect("the extension's notify", notifyWith("Custom compaction: summarizing"))
	resp := s.expect("compact's response", isResponse("c"))
	data, _ := resp["data"].(map[string]any)
	if resp["success"] != true || data["summary"] != "FULL SUMMARY from flash" {
		t.Fatalf("compact: %v", resp)
	}
	var body struct {
		Model string `json:"model"`
	}
	if err := p.server.Requests()[2].Decode(&body); err != nil || body.Model != "gemini-2.5-flash" {
		t.Errorf("summary request went to %q (%v)", body.Model, err)
	}
	file := sessionFileOf(s, "st")
	content, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(content), `"summary":"FULL SUMMARY from flash"`) || !strings.Contains(string(content), `"fromHook":true`) {
		t.Errorf("no extension compaction in %s:\n%s", file, content)
	}
}

// interactive-shell: user_bash answers an interactive command with its own result outside the TUI;
// other commands run as usual.
func TestPiExampleUserBash(t *testing.T) {
	p := mockProject(t)
	s := startPiExamples(t, p, []string{"interactive-shell.ts"})
	s.send(map[string]any{"type": "bash", "id": "b1", "command": "vim notes.txt"})
	resp := s.expect("bash's response", isResponse("b1"))
	data, _ := resp["data"].(map[string]any)
	if data["output"] != "(interactive commands require TUI)" || fmt.Sprint(data["exitCode"]) != "1" {
		t.Fatalf("bash: %v", resp)
	}
	s.send(map[string]any{"type": "bash", "id": "b2", "command": "echo local"})
	resp = s.expect("bash's response", isResponse("b2"))
	if data, _ := resp["data"].(map[string]any); data["output"] != "local\n" {
		t.Fatalf("bash: %v", resp)
	}
	s.send(map[string]any{"type": "get_messages", "id": "msgs"})
	msgs := fmt.Sprint(s.expect("get_messages", isResponse("msgs"))["data"])
	if !strings.Contains(msgs, "command:vim notes.txt") || !strings.Contains(msgs, "output:(interactive commands require TUI)") {
		t.Errorf("the extension's result is not in the transcript: %s", msgs)
	}
}

// plan-mode: --plan restricts the tools through setActiveTools, its tool_call gate blocks a
// destructive command, before_agent_start adds its context, and choosing "Execute" restores the
// tools and starts the next run with sendMessage's custom message (triggerTurn).
func TestPiExamplePlanMode(t *testing.T) {
	p := mockProject(t)
	s := startPiExamples(t, p, []string{"plan-mode/index.ts"}, "--plan")
	p.server.Enqueue(
		openaitest.ToolCallReply("mock-model", "", openaitest.ToolCallSpec{ID: "rm", Name: "bash", Arguments: `{"command":"rm -rf build"}`}),
		openaitest.TextReply("mock-model", "Plan:\n1. Read the configuration file\n2. Fix the broken setting"),
		openaitest.TextReply("mock-model", "Read it [DONE:1]. Fixed it [DONE:2]."),
	)
	s.send(map[string]any{"type": "prompt", "id": "plan", "message": "make a plan"})
	// pi-go does not hold the run for agent_end's handlers: answering once the run has settled makes
	// the messages sendMessage sends land in an idle session every time.
	sel := s.expectAll("plan-mode's select and the settled run", uiRequest("select"), isType("agent_settled"))[0]
	if sel["title"] != "Plan mode - what next?" {
		t.Fatalf("select: %v", sel)
	}
	planTools := strings.Join(requestTools(t, p, 1), ",")
	if strings.Contains(planTools, "edit") || strings.Contains(planTools, "write") || !strings.Contains(planTools, "grep") {
		t.Errorf("plan mode's tools: %s", planTools)
	}
	first := requestMessages(t, p.server, 1)
	if text := contentText(first[len(first)-1]["content"]); !strings.Contains(text, "[PLAN MODE ACTIVE]") {
		t.Errorf("no plan-mode context: %.200s", text)
	}
	checkToolResults(t, p.server, 2, map[string]string{"rm": "Plan mode: command blocked"})

	s.send(map[string]any{"type": "extension_ui_response", "id": sel["id"], "value": "Execute the plan (track progress)"})
	s.expect("the execution run", func(m map[string]any) bool {
		return m["type"] == "agent_settled" && len(p.server.Requests()) == 3
	})
	execTools := strings.Join(requestTools(t, p, 3), ",")
	if !strings.Contains(execTools, "edit") || !strings.Contains(execTools, "write") {
		t.Errorf("execution tools: %s", execTools)
	}
	third := requestMessages(t, p.server, 3)
	if text := contentText(third[len(third)-1]["content"]); !strings.HasPrefix(text, "Execute the plan.") ||
		!strings.Contains(text, "2. Fix the broken setting") || !strings.Contains(text, "Start with: ") {
		t.Errorf("execution message: %.300s", text)
	}
}

// tools: a session that saved a tool selection (the example's tools-config entry) gets it back
// through session_start and setActiveTools.
func TestPiExampleToolsRestore(t *testing.T) {
	p := mockProject(t)
	file := filepath.Join(p.dir, "saved.jsonl")
	header := fmt.Sprintf(`{"type":"session","version":3,"id":"0197a0a0-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":%q}`, p.dir)
	entry := `{"type":"custom","customType":"tools-config","data":{"enabledTools":["read","ls"]},"id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z"}`
	if err := os.WriteFile(file, []byte(header+"\n"+entry+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startPiExamples(t, p, []string{"tools.ts"}, "--session", file)
	p.server.Enqueue(openaitest.TextReply("mock-model", "ok"))
	s.send(map[string]any{"type": "prompt", "id": "p", "message": "hi"})
	s.expect("the run's end", isType("agent_settled"))
	if got := strings.Join(requestTools(t, p, 1), ","); got != "read,ls" {
		t.Errorf("declared tools %q, want read,ls", got)
	}
}

// sessionOpsExtension uses the session operations pi's API offers beyond the examples above:
// commands that replace the session (newSession, switchSession with withSession), navigateTree with
// a session_before_tree summary, setModel, sendMessage's nextTurn, and a user_bash handler whose
// operations the sidecar runs.
const sessionOpsExtension = `import { createLocalBashOperations } from "@earendil-works/pi-coding-agent";

export default function (pi) {
	pi.registerCommand("fresh", {
		description: "A new session",
		handler: async (_args, ctx) => {
			const before = ctx.sessionManager.getSessionFile();
			const r = await ctx.newSession({
				parentSession: before,
				withSession: async (c) => c.ui.notify("fresh from " + before, "info"),
			});
			if (r.cancelled) ctx.ui.notify("fresh cancelled", "info");
		},
	});
	pi.registerCommand("back", {
		handler: async (args, ctx) => {
			await ctx.switchSession(args.trim(), {
				withSession: async (c) => c.ui.notify("back in " + c.sessionManager.getSessionFile(), "info"),
			});
		},
	});
	pi.registerCommand("goto", {
		handler: async (args, ctx) => {
			const r = await ctx.navigateTree(args.trim(), { summarize: true });
			ctx.ui.notify("navigated cancelled=" + r.cancelled + " editor=" + (r.editorText ?? ""), "info");
		},
	});
	pi.registerCommand("use-model", {
		handler: async (args, ctx) => {
			const [provider, id] = args.trim().split("/");
			const model = ctx.modelRegistry.find(provider, id);
			const ok = model ? await pi.setModel(model) : false;
			ctx.ui.notify("setModel " + args.trim() + ": " + ok + " active=" + pi.getActiveTools().join(","), "info");
		},
	});
	pi.registerCommand("remind", {
		handler: async (args) => {
			pi.sendMessage({ customType: "reminder", content: args.trim(), display: true }, { deliverAs: "nextTurn" });
		},
	});
	pi.on("session_before_tree", async (event) => ({
		summary: { summary: "ext summary of " + event.preparation.entriesToSummarize.length + " entries" },
	}));
	pi.on("session_tree", async (event, ctx) => {
		ctx.ui.notify("tree fromExtension=" + event.fromExtension + " " + event.summaryEntry?.summary, "info");
	});
	pi.on("user_bash", async (event) => {
		if (!event.command.startsWith("wrapped ")) return;
		const local = createLocalBashOperations();
		return {
			operations: {
				exec: (command, cwd, options) => local.exec("echo wrapped-by-ext; " + command.slice(8), cwd, options),
			},
		};
	});
}
`

func TestExtensionSessionOperations(t *testing.T) {
	p := mockProject(t)
	p.write("ops.ts", sessionOpsExtension)
	s := startPiExamples(t, p, []string{filepath.Join(p.dir, "ops.ts")})

	p.server.Enqueue(openaitest.TextReply("mock-model", "one"), openaitest.TextReply("mock-model", "two"))
	s.send(map[string]any{"type": "prompt", "id": "p1", "message": "first"})
	s.expect("the first run", isType("agent_settled"))

	// sendMessage's nextTurn goes with the next prompt, after it.
	s.send(map[string]any{"type": "prompt", "id": "r", "message": "/remind remember the milk"})
	s.expect("/remind's response", isResponse("r"))
	s.send(map[string]any{"type": "prompt", "id": "p2", "message": "second"})
	s.expect("the second run", isType("agent_settled"))
	second := requestMessages(t, p.server, 2)
	if n := len(second); n < 2 || contentText(second[n-2]["content"]) != "second" || !strings.Contains(contentText(second[n-1]["content"]), "remember the milk") {
		t.Errorf("nextTurn message: %v", second)
	}

	// setModel through the extension's registry.
	s.send(map[string]any{"type": "prompt", "id": "um", "message": "/use-model mock/mock-reasoner"})
	s.expect("setModel's notify", notifyWith("setModel mock/mock-reasoner: true active=read,bash,edit,write"))
	s.send(map[string]any{"type": "get_state", "id": "st1"})
	if st := fmt.Sprint(s.expect("get_state", isResponse("st1"))["data"]); !strings.Contains(st, "id:mock-reasoner") {
		t.Errorf("model after setModel: %s", st)
	}

	// user_bash's operations run in the sidecar, their output streamed.
	s.send(map[string]any{"type": "bash", "id": "b", "command": "wrapped echo hi"})
	got := s.expectAll("the wrapped command", isResponse("b"), func(m map[string]any) bool {
		return m["type"] == "bash_execution_update" && strings.Contains(fmt.Sprint(m["delta"]), "wrapped-by-ext")
	})
	if data, _ := got[0]["data"].(map[string]any); data["output"] != "wrapped-by-ext\nhi\n" || fmt.Sprint(data["exitCode"]) != "0" {
		t.Fatalf("bash: %v", got[0])
	}

	// navigateTree with the extension's branch summary: no summary request reaches the model.
	s.send(map[string]any{"type": "get_fork_messages", "id": "fm"})
	fm := s.expect("get_fork_messages", isResponse("fm"))
	msgs, _ := fm["data"].(map[string]any)["messages"].([]any)
	if len(msgs) < 2 {
		t.Fatalf("fork messages: %v", fm)
	}
	target := msgs[1].(map[string]any)["entryId"].(string)
	requests := len(p.server.Requests())
	s.send(map[string]any{"type": "prompt", "id": "g", "message": "/goto " + target})
	s.expectAll("the navigation",
		notifyWith("tree fromExtension=true ext summary of "),
		notifyWith("navigated cancelled=false editor=second"))
	if n := len(p.server.Requests()); n != requests {
		t.Errorf("%d summary requests reached the model", n-requests)
	}

	// newSession and switchSession from commands, with withSession run in the new session.
	old := sessionFileOf(s, "st2")
	s.send(map[string]any{"type": "prompt", "id": "f", "message": "/fresh"})
	s.expect("withSession's notify", notifyWith("fresh from "+old))
	if now := sessionFileOf(s, "st3"); now == old {
		t.Fatalf("still in %s", now)
	}
	s.send(map[string]any{"type": "prompt", "id": "b2", "message": "/back " + old})
	s.expect("switchSession's notify", notifyWith("back in "+old))
	if now := sessionFileOf(s, "st4"); now != old {
		t.Fatalf("in %s, want %s", now, old)
	}
}

// boundaryExtension uses pi 1.6's actionable boundaries as its docs show them: turn_end records an
// entry for every turn, agent_before_settle adds a reminder once and asks for one more request.
const boundaryExtension = `export default function (pi) {
	let reminded = false;
	pi.on("turn_end", async (event, ctx) => ({
		entries: [...event.entries, { type: "custom", customType: "turn-log",
			data: { turn: event.turnIndex, outcome: event.outcome, window: ctx.getContextUsage()?.contextWindow } }],
	}));
	pi.on("agent_before_settle", async (event) => {
		if (reminded) return;
		reminded = true;
		return {
			entries: [...event.entries, { type: "custom_message", customType: "review-reminder", content: "Review the final diff before replying.", display: false }],
			continue: true,
		};
	});
}
`

func TestExtensionBoundaries(t *testing.T) {
	p := mockProject(t)
	p.write("boundary.ts", boundaryExtension)
	s := startPiExamples(t, p, []string{filepath.Join(p.dir, "boundary.ts")})
	p.server.Enqueue(openaitest.TextReply("mock-model", "Done."), openaitest.TextReply("mock-model", "Reviewed."))
	s.send(map[string]any{"type": "prompt", "id": "p", "message": "change it"})
	s.expect("the settled run", isType("agent_settled"))
	if n := len(p.server.Requests()); n != 2 {
		t.Fatalf("%d requests, want the answer and the one agent_before_settle asked for", n)
	}
	second := requestMessages(t, p.server, 2)
	if text := contentText(second[len(second)-1]["content"]); text != "Review the final diff before replying." {
		t.Errorf("the continuation ended with %q", text)
	}
	content, err := os.ReadFile(sessionFileOf(s, "st"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"customType":"turn-log","data":{"turn":0,"outcome":"completed","window":`, `"customType":"review-reminder"`} {
		if !strings.Contains(string(content), want) {
			t.Errorf("no %s in the session:\n%s", want, content)
		}
	}
	// Both turns of the run (the answer and the continuation) were logged.
	if n := strings.Count(string(content), `"customType":"turn-log"`); n != 2 {
		t.Errorf("%d turn-log entries, want 2", n)
	}
}

// preset: --preset applies a project preset at session_start through setModel, setThinkingLevel and
// setActiveTools, and its instructions join the system prompt through before_agent_start.
func TestPiExamplePreset(t *testing.T) {
	p := mockProject(t)
	p.write(".pi/presets.json", `{"review":{"provider":"mock","model":"mock-reasoner","thinkingLevel":"high",`+
		`"tools":["read","grep"],"instructions":"You are reviewing code: never edit."}}`)
	s := startPiExamples(t, p, []string{"preset.ts"}, "--preset=review")
	p.server.Enqueue(openaitest.TextReply("mock-reasoner", "Looks fine."))
	s.send(map[string]any{"type": "prompt", "id": "p", "message": "review it"})
	s.expectAll("the preset's notify and the run", notifyWith(`Preset "review" activated`), isType("agent_settled"))
	body, err := p.server.Requests()[0].JSON()
	if err != nil {
		t.Fatal(err)
	}
	if body["model"] != "mock-reasoner" || body["reasoning_effort"] != "high" {
		t.Errorf("request model %v, reasoning_effort %v", body["model"], body["reasoning_effort"])
	}
	if tools := strings.Join(requestTools(t, p, 1), ","); tools != "read,grep" {
		t.Errorf("tools: %s", tools)
	}
	first := requestMessages(t, p.server, 1)
	if text := contentText(first[0]["content"]); !strings.Contains(text, "You are reviewing code: never edit.") {
		t.Errorf("system prompt lacks the preset's instructions: ...%s", text[max(0, len(text)-200):])
	}
}
