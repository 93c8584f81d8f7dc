package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// routerExtension registers "mock", an OpenAI-compatible provider (the scripted server) with a small
// and a large model, and the virtual model router/auto as pi's docs/virtual-models.md shows one: a
// user's request goes to large at the selected level "high", to small otherwise, always at level
// "low"; a continuation stays on the previous answer's model, at "minimal". The router state counts
// the user's requests.
const routerExtension = `
const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
const model = (id) => ({ id, name: id, reasoning: true, input: ["text"], cost: zero, contextWindow: 64000, maxTokens: 4096 });

export default function (pi) {
	pi.registerProvider("mock", {
		baseUrl: process.env.MOCK_URL,
		apiKey: "mock-secret",
		api: "openai-completions",
		models: [model("small"), model("large")],
	});
	pi.registerVirtualModel({
		provider: "router",
		id: "auto",
		name: "Auto",
		thinkingLevels: ["low", "high"],
		route(request, ctx) {
			if (request.model.id !== "auto") throw new Error("route got " + request.model.id);
			const last = request.messages.at(-1);
			if (last?.role === "user" && JSON.stringify(last.content).includes("boom")) throw new Error("router exploded");
			if (request.reason === "retry") {
				if (!request.failed?.message?.errorMessage?.includes("overloaded")) throw new Error("retry without the failed answer");
				return { model: ctx.modelRegistry.find("mock", "small"), thinkingLevel: "high" };
			}
			if (request.reason === "continuation") {
				if (!request.previous) throw new Error("continuation without previous");
				return { model: request.previous.model, thinkingLevel: "minimal", state: request.state };
			}
			const id = request.thinkingLevel === "high" ? "large" : "small";
			return { model: ctx.modelRegistry.find("mock", id), thinkingLevel: "low", state: { users: (request.state?.users ?? 0) + 1 } };
		},
	});
	pi.registerCommand("drop-router", {
		description: "unregister router/auto",
		handler: async (_args, ctx) => {
			pi.unregisterVirtualModel("router", "auto");
			ctx.ui.notify("router dropped", "info");
		},
	});
}
`

// sessionLines reads a session file's entries.
func sessionLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, e)
	}
	return out
}

// requestModels are the models the scripted server was asked for, in order.
func requestModels(t *testing.T, p *project) []string {
	t.Helper()
	var out []string
	for _, r := range p.server.Requests() {
		var body struct {
			Model string `json:"model"`
		}
		if err := r.Decode(&body); err != nil {
			t.Fatal(err)
		}
		out = append(out, body.Model)
	}
	return out
}

// routerProject is a project with the router extension and pi 1.6.0's runner on Node 22.
func routerProject(t *testing.T) *project {
	t.Helper()
	pi, why := findPi16()
	if why != "" {
		if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	p := newProject(t)
	p.write("router.ts", routerExtension)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg, "MOCK_URL="+p.server.URL)
	return p
}

func TestExtensionVirtualModelRoutesEachRequest(t *testing.T) {
	p := routerProject(t)
	p.write("notes.txt", "virtual models route\n")

	// The virtual model is in the catalog.
	r := p.run("", "-e", "router.ts", "--list-models")
	if !strings.Contains(r.stdout, "router") || !strings.Contains(r.stdout, "auto") {
		t.Fatalf("--list-models lacks router/auto:\n%s\n%s", r.stdout, r.stderr)
	}

	// A user's request at "high" goes to large; the tool result's follow-up stays there.
	p.server.Enqueue(openaitest.ToolCallReply("large", "", openaitest.ToolCallSpec{ID: "c1", Name: "read", Arguments: `{"path":"notes.txt"}`}))
	p.server.Enqueue(openaitest.TextReply("large", "Read it."))
	r = p.run("", "-e", "router.ts", "--model", "router/auto", "--thinking", "high", "-p", "read notes.txt")
	if r.code != 0 || !strings.Contains(r.stdout, "Read it.") {
		t.Fatalf("first run: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if got := strings.Join(requestModels(t, p), " "); got != "large large" {
		t.Fatalf("requests went to %q", got)
	}
	reqs := p.server.Requests()
	if auth := reqs[0].Header.Get("Authorization"); auth != "Bearer mock-secret" {
		t.Errorf("Authorization %q", auth)
	}

	files, _ := filepath.Glob(filepath.Join(p.sessionDir(), "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	var selected, dispatched []string
	for _, e := range sessionLines(t, files[0]) {
		switch e["type"] {
		case "custom":
			selected = append(selected, fmt.Sprint(e["customType"], e["data"]))
		case "model_change":
			selected = append(selected, e["provider"].(string)+"/"+e["modelId"].(string))
		case "thinking_level_change":
			selected = append(selected, e["thinkingLevel"].(string))
		case "message":
			m, _ := e["message"].(map[string]any)
			if m["role"] == "assistant" {
				dispatched = append(dispatched, m["provider"].(string)+"/"+m["model"].(string)+":"+m["thinkingLevel"].(string)+":"+m["api"].(string))
			}
		}
	}
	if got := strings.Join(selected, " "); got != "router/auto high pi.virtual-model-statemap[modelId:auto provider:router state:map[users:1]]" {
		t.Errorf("selection entries: %q", got)
	}
	want := "mock/large:low:openai-completions mock/large:minimal:openai-completions"
	if got := strings.Join(dispatched, " "); got != want {
		t.Errorf("assistant messages: %q, want %q", got, want)
	}

	// In the continued session, at "low" the router picks small.
	p.server.Enqueue(openaitest.TextReply("small", "Small talk."))
	r = p.run("", "-e", "router.ts", "-c", "--model", "router/auto", "--thinking", "low", "-p", "hello")
	if r.code != 0 || !strings.Contains(r.stdout, "Small talk.") {
		t.Fatalf("continued run: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if got := strings.Join(requestModels(t, p), " "); got != "large large small" {
		b, _ := os.ReadFile(files[0])
		t.Fatalf("requests went to %q\n%s\n%s", got, b, r.stderr)
	}
	// The state stored by the first run came back to route() from the session file.
	var states []string
	for _, e := range sessionLines(t, files[0]) {
		if e["type"] == "custom" && e["customType"] == "pi.virtual-model-state" {
			states = append(states, fmt.Sprint(e["data"].(map[string]any)["state"]))
		}
	}
	if got := strings.Join(states, " "); got != "map[users:1] map[users:2]" {
		t.Errorf("router states %q", got)
	}
}

func TestExtensionVirtualModelInRPCMode(t *testing.T) {
	p := routerProject(t)
	if err := os.WriteFile(filepath.Join(p.agentDir, "settings.json"), []byte(`{"retry":{"baseDelayMs":1,"maxRetries":2}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := p.startRPC("-e", "router.ts", "--no-session", "--model", "router/auto", "--thinking", "low")
	if got := s.availableModels("m1"); !strings.Contains(got, "router/auto") || !strings.Contains(got, "mock/small") {
		t.Fatalf("available models: %s", got)
	}

	p.server.Enqueue(openaitest.TextReply("small", "Routed to small."))
	s.send(map[string]any{"type": "prompt", "id": "p1", "message": "hi"})
	end := s.expect("the routed answer", isType("agent_end"))
	if got := fmt.Sprint(end); !strings.Contains(got, "Routed to small.") || !strings.Contains(got, "model:small") {
		t.Fatalf("agent_end: %v", end)
	}
	// A prompt sent before the run settles is refused as one sent while the agent works.
	s.expect("the routed run to settle", isType("agent_settled"))

	// A route() that throws ends the request with an error answer naming it; nothing is sent.
	s.send(map[string]any{"type": "prompt", "id": "p2", "message": "boom"})
	end = s.expect("the failed route", isType("agent_end"))
	if got := fmt.Sprint(end); !strings.Contains(got, "router exploded") || !strings.Contains(got, "stopReason:error") {
		t.Fatalf("agent_end after a failing route: %v", end)
	}
	s.expect("the failed run to settle", isType("agent_settled"))
	if n := len(p.server.Requests()); n != 1 {
		t.Fatalf("%d requests reached the server", n)
	}

	// The harness's retry of a failed answer is routed with reason "retry" and the failed answer:
	// the router moves it from large to small.
	s.send(map[string]any{"type": "set_thinking_level", "id": "th", "level": "high"})
	s.expect("set_thinking_level", func(m map[string]any) bool { return m["id"] == "th" })
	p.server.Enqueue(openaitest.ErrorResponse(503, "large is overloaded"))
	p.server.Enqueue(openaitest.TextReply("small", "Small after retry."))
	s.send(map[string]any{"type": "prompt", "id": "p4", "message": "try hard"})
	end = s.expect("the retried answer", func(m map[string]any) bool { return m["type"] == "agent_end" && m["willRetry"] != true })
	if got := fmt.Sprint(end); !strings.Contains(got, "Small after retry.") || !strings.Contains(got, "thinkingLevel:high") {
		t.Fatalf("agent_end after a retry: %v", end)
	}
	s.expect("the retried run to settle", isType("agent_settled"))
	if got := strings.Join(requestModels(t, p), " "); got != "small large small" {
		t.Fatalf("requests went to %q", got)
	}

	// unregisterVirtualModel takes it out of the catalog.
	s.send(map[string]any{"type": "prompt", "id": "p3", "message": "/drop-router"})
	if n := s.expect("the command's notify", uiRequest("notify")); n["message"] != "router dropped" {
		t.Fatalf("notify: %v", n)
	}
	if got := s.availableModels("m2"); strings.Contains(got, "router/auto") {
		t.Fatalf("router/auto still available: %s", got)
	}
}
