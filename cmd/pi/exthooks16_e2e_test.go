package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/anthropictest"
)

// headerTracer is a before_provider_headers handler as pi documents it: it changes the record in
// place (adds a tracing header, deletes one with null) and returns nothing; a second handler sees
// the first one's change.
const headerTracer = `export default function (pi) {
	pi.on("before_provider_headers", (event) => {
		event.headers["x-pi-trace"] = "trace-" + Object.keys(event.headers).includes("authorization");
		event.headers["anthropic-version"] = null;
	});
	pi.on("before_provider_headers", (event) => {
		event.headers["x-pi-seen"] = event.headers["x-pi-trace"];
	});
}
`

// before_provider_headers through pi 1.6.0's runner: the scripted server sees the injected headers,
// not the deleted one, and the API key was not shown to the handler but still reaches the server.
func TestExtensionBeforeProviderHeaders(t *testing.T) {
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	var mu sync.Mutex
	var seen []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(anthropictest.SSE(anthropictest.Answer{ID: "msg_1", Model: "m", Blocks: []anthropictest.Block{anthropictest.Text("traced ok")},
			Usage: &anthropictest.Usage{Input: 10, Output: 2}}.Events()...)))
	}))
	t.Cleanup(srv.Close)
	models := `{"providers":{"hdr":{"baseUrl":"` + srv.URL + `","api":"anthropic-messages","apiKey":"key-123","models":[{"id":"m"}]}}}`
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	p.write("tracer.js", headerTracer)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	s := p.startRPC("--provider", "hdr", "--model", "m", "-e", filepath.Join(p.dir, "tracer.js"))
	s.send(map[string]any{"type": "prompt", "id": "p", "message": "hello"})
	s.expectAll("the answer", func(m map[string]any) bool {
		return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["message"]), "traced ok")
	}, isType("agent_settled"))
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 {
		t.Fatalf("%d requests", len(seen))
	}
	h := seen[0]
	if h.Get("X-Pi-Trace") != "trace-false" || h.Get("X-Pi-Seen") != "trace-false" {
		t.Errorf("the server did not get the injected headers: %v", h)
	}
	if h.Get("Anthropic-Version") != "" {
		t.Errorf("the header the handler set to null was sent: %v", h)
	}
	if h.Get("X-Api-Key") != "key-123" {
		t.Errorf("the API key did not reach the server: %v", h)
	}
}

// contextPhases shows what each phase sees (context: no system messages; context_with_system: the
// whole transcript, its system message first) and adds a message in the second phase.
const contextPhases = `export default function (pi) {
	pi.on("context", (event, ctx) => {
		ctx.ui.notify("context roles " + event.messages.map((m) => m.role).join(","), "info");
	});
	pi.on("context_with_system", (event, ctx) => {
		ctx.ui.notify("with system roles " + event.messages.map((m) => m.role).join(","), "info");
		return { messages: [...event.messages, { role: "user", content: "added by context_with_system", timestamp: Date.now() }] };
	});
}
`

// context_with_system through pi 1.6.0's runner: raised after context with the system messages, and
// what it returns is what the server receives.
func TestExtensionContextWithSystem(t *testing.T) {
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	fam := startAPIFamilies(t)
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(fam.modelsJSON()), 0o644); err != nil {
		t.Fatal(err)
	}
	p.write("phases.js", contextPhases)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	s := p.startRPC("--provider", "fam-completions", "--model", "m", "-e", filepath.Join(p.dir, "phases.js"))
	s.send(map[string]any{"type": "prompt", "id": "p", "message": "hello"})
	s.expectAll("both phases and the answer", notifyWith("context roles user"), notifyWith("with system roles system,user"),
		func(m map[string]any) bool {
			return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["message"]), "completions ok")
		}, isType("agent_settled"))
	reqs := fam.requests("openai-completions")
	if len(reqs) != 1 || !strings.Contains(string(reqs[0]), "added by context_with_system") || !strings.Contains(string(reqs[0]), "hello") {
		t.Errorf("the server did not get the transcript context_with_system returned: %s", reqs)
	}
}

// promptWatcher asks a confirm from a command and shows the ui_prompt events around it.
const promptWatcher = `export default function (pi) {
	pi.registerCommand("ask", {
		description: "asks",
		handler: async (_args, ctx) => {
			const ok = await ctx.ui.confirm("Proceed?", "really");
			ctx.ui.notify("answer " + ok, "info");
		},
	});
	for (const type of ["ui_prompt_start", "ui_prompt_end"]) {
		pi.on(type, (event, ctx) => ctx.ui.notify("seen " + event.type + " " + event.reason + " " + event.kind + " " + event.title, "info"));
	}
}
`

// ui_prompt_start and ui_prompt_end through pi 1.6.0's runner in RPC mode: raised around a blocking
// confirm, the end after the user answered.
func TestExtensionUIPromptEvents(t *testing.T) {
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	p.write("watch.js", promptWatcher)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	s := p.startRPC("--provider", "demo", "-e", filepath.Join(p.dir, "watch.js"))
	s.send(map[string]any{"type": "prompt", "id": "p", "message": "/ask"})
	got := s.expectAll("the confirm and ui_prompt_start", uiRequest("confirm"), notifyWith("seen ui_prompt_start ui_prompt confirm Proceed?"))
	s.send(map[string]any{"type": "extension_ui_response", "id": got[0]["id"], "confirmed": true})
	s.expectAll("ui_prompt_end after the answer", notifyWith("seen ui_prompt_end ui_prompt confirm Proceed?"), notifyWith("answer true"))
}

// ctx.scopedModels with pi 1.6.0's runner: the --models set, with the thinking level a pattern named.
func TestExtensionScopedModels(t *testing.T) {
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	models := `{"providers":{"sc":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"k","models":[{"id":"a","reasoning":true},{"id":"b"},{"id":"c"}]}}}`
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	p.write("scope.js", `export default function (pi) {
	pi.registerCommand("scope", {
		description: "shows the scope",
		handler: async (_args, ctx) => {
			ctx.ui.notify("scope " + ctx.scopedModels.map((s) => s.model.provider + "/" + s.model.id + ":" + (s.thinkingLevel ?? "-")).join(","), "info");
		},
	});
}
`)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	s := p.startRPC("--models", "sc/a:high,sc/b", "-e", filepath.Join(p.dir, "scope.js"))
	s.send(map[string]any{"type": "prompt", "id": "p", "message": "/scope"})
	s.expect("the scope", notifyWith("scope sc/a:high,sc/b:-"))
}

// mcp_servers_change, pi.unregisterMcpServer and pi.getMcpServers with pi 1.6.0's runner: a server
// registered while loading is listed, changes after binding raise the event with the whole list.
func TestExtensionMCPServersChange(t *testing.T) {
	pi := findPiExamples(t, testPiVersion)
	server := buildMCPTestServer(t)
	p := newProject(t)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	p.write("servers.js", `export default function (pi) {
	const names = (list) => list.map((s) => s.name).join(",") || "none";
	pi.registerMcpServer("ext-a", { command: `+strconv.Quote(server)+`, exposure: "deferred" });
	pi.on("mcp_servers_change", (event, ctx) => ctx.ui.notify("change " + names(event.servers), "info"));
	pi.registerCommand("swap", {
		description: "replaces ext-a with ext-b",
		handler: async (_args, ctx) => {
			ctx.ui.notify("before " + names(pi.getMcpServers()), "info");
			pi.registerMcpServer("ext-b", { command: `+strconv.Quote(server)+`, exposure: "deferred" });
			pi.unregisterMcpServer("ext-a");
			ctx.ui.notify("after " + names(pi.getMcpServers()), "info");
		},
	});
}
`)
	s := p.startRPC("--provider", "demo", "-e", filepath.Join(p.dir, "servers.js"))
	s.send(map[string]any{"type": "prompt", "id": "p", "message": "/swap"})
	s.expectAll("the servers before, after and each change", notifyWith("before ext-a"), notifyWith("after ext-b"),
		notifyWith("change ext-a,ext-b"), notifyWith("change ext-b"))
}

// streamWatcher collects the provider stream events of a run and shows them when the run ends.
const streamWatcher = `export default function (pi) {
	let seen = [];
	pi.on("provider_stream_event", (event) => {
		seen.push(event.provider + "/" + event.api + "/" + event.model + ":" + event.data.type);
	});
	pi.on("agent_end", (_event, ctx) => {
		ctx.ui.notify("stream " + seen.join(","), "info");
		seen = [];
	});
}
`

// provider_stream_event through pi 1.6.0's runner: each event of the Anthropic stream, parsed, with
// the request's provider, API and model.
func TestExtensionProviderStreamEvents(t *testing.T) {
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	fam := startAPIFamilies(t)
	if err := os.WriteFile(filepath.Join(p.agentDir, "models.json"), []byte(fam.modelsJSON()), 0o644); err != nil {
		t.Fatal(err)
	}
	p.write("stream.js", streamWatcher)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	s := p.startRPC("--provider", "fam-anthropic", "--model", "m", "-e", filepath.Join(p.dir, "stream.js"))
	s.send(map[string]any{"type": "prompt", "id": "p", "message": "hello"})
	e := "fam-anthropic/anthropic-messages/m:"
	got := s.expect("the stream's events", notifyWith("stream "))
	msg := fmt.Sprint(got["message"])
	if !strings.HasPrefix(msg, "stream "+e+"message_start,"+e+"content_block_start,"+e+"content_block_delta,") || !strings.HasSuffix(msg, e+"message_stop") {
		t.Errorf("the extension saw %s", msg)
	}
}
