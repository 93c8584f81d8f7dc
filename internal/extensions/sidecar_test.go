package extensions

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/loop"
)

// piInstall is a Node and a pi package to run the sidecar with.
type piInstall struct {
	node, pkg string
}

// findPi finds pi 1.6.0 on Node 22 ("1.6.0") or pi 0.73.1 on the machine's Node ("0.73.1"): in the
// cache `make deps` fills (PI_GO_TEST_CACHE, default ~/.cache/pi-go-test), then /opt/pi. Missing, the
// test is skipped, or fails when PI_GO_REQUIRE_NODE=1.
func findPi(t testing.TB, version string) piInstall {
	t.Helper()
	cache := os.Getenv("PI_GO_TEST_CACHE")
	if cache == "" {
		if home, err := os.UserHomeDir(); err == nil {
			cache = filepath.Join(home, ".cache", "pi-go-test")
		}
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	node22 := "node_modules/node-" + runtime.GOOS + "-" + arch + "/bin/node"
	var candidates []piInstall
	switch version {
	case "1.6.0":
		const pkg = "node_modules/@earendil-works/pi-coding-agent"
		candidates = []piInstall{
			{filepath.Join(cache, "node-22.23.5", node22), filepath.Join(cache, "pi-1.6.0", pkg)},
			{filepath.Join("/opt/pi/node22", node22), filepath.Join("/opt/pi/pi16", pkg)},
		}
	case "0.73.1":
		const pkg = "node_modules/@mariozechner/pi-coding-agent"
		node, _ := exec.LookPath("node")
		candidates = []piInstall{
			{node, filepath.Join(cache, "pi-0.73.1", pkg)},
			{node, filepath.Join("/opt/pi/pi073", pkg)},
		}
	}
	var tried []string
	for _, c := range candidates {
		if _, err := os.Stat(c.node); err == nil && c.node != "" {
			if _, err := os.Stat(filepath.Join(c.pkg, "dist", "index.js")); err == nil {
				return c
			}
		}
		tried = append(tried, c.node+" with "+c.pkg)
	}
	msg := "pi " + version + " and its Node not found (run `make deps`); tried " + strings.Join(tried, "; ")
	if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return piInstall{}
}

// sidecarHost starts the sidecar on the given extension sources (file name → TypeScript).
func sidecarHost(t *testing.T, pi piInstall, mode string, sources map[string]string) (*Host, *errorLog, string) {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for name, src := range sources {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	slices.Sort(paths) // load order by file name: chains are tested in a known order
	script, err := writeScript(filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	log := &errorLog{}
	h := New(Config{Cwd: dir, AgentDir: filepath.Join(dir, "agent"), Mode: mode, HasUI: mode == "rpc",
		Sidecar: &Sidecar{Node: pi.node, Script: script, Package: pi.pkg, Extensions: paths}, OnError: log.add,
		Flags: map[string]any{"plan": true}})
	h.Start()
	t.Cleanup(h.Close)
	return h, log, dir
}

const gateExtension = `
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
export default function (pi: ExtensionAPI) {
	pi.registerFlag("plan", { description: "plan mode", type: "boolean", default: false });
	pi.on("tool_call", async (event, ctx) => {
		if (event.toolName === "bash" && String(event.input.command).includes("rm -rf")) {
			const ok = await ctx.ui.confirm("Dangerous command", String(event.input.command));
			if (!ok) return { block: true, reason: "Blocked by user" };
		}
		if (event.toolName === "write") event.input.path = "redirected.txt";
	});
	pi.on("input", async (event) => event.text.startsWith("?") ? { action: "transform", text: "Question: " + event.text.slice(1) } : { action: "continue" });
	pi.registerTool({
		name: "greet", label: "Greet", description: "Greets someone",
		parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
		async execute(id, params, signal, onUpdate, ctx) {
			onUpdate?.({ content: [{ type: "text", text: "thinking about " + params.name }] });
			return { content: [{ type: "text", text: "Hello " + params.name + (pi.getFlag("plan") ? " (plan)" : "") }], details: { n: 1 } };
		},
	});
	pi.registerCommand("hi", { description: "Say hi", handler: async (args, ctx) => { ctx.ui.notify("hi " + args, "info"); } });
}
`

func testSidecar(t *testing.T, version string) {
	pi := findPi(t, version)
	h, log, _ := sidecarHost(t, pi, "rpc", map[string]string{"gate.ts": gateExtension})
	var mu sync.Mutex
	var asked []string
	notified := make(chan struct{})
	h.SetHandler(func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		mu.Lock()
		asked = append(asked, method+" "+string(params))
		mu.Unlock()
		if strings.Contains(string(params), `"message":"hi there"`) {
			close(notified)
		}
		if strings.Contains(string(params), `"confirm"`) {
			return json.RawMessage(`{"confirmed":false}`), nil
		}
		return nil, nil
	})
	ctx := context.Background()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if log.text() != "" {
		t.Fatalf("load errors: %s", log.text())
	}
	out := h.ToolCall(ctx, "bash", "c1", json.RawMessage(`{"command":"rm -rf /tmp/x"}`))
	if !out.Block || out.Reason != "Blocked by user" {
		t.Fatalf("gate: %+v", out)
	}
	out = h.ToolCall(ctx, "write", "c2", json.RawMessage(`{"path":"a.txt","content":"x"}`))
	if out.Block || !strings.Contains(string(out.Input), `"path":"redirected.txt"`) {
		t.Fatalf("write: %+v %s", out, out.Input)
	}
	if in := h.Input(ctx, "?why", nil, "rpc", ""); in.Action != "transform" || in.Text != "Question: why" {
		t.Fatalf("input: %+v", in)
	}
	tools := h.Tools(ctx)
	if len(tools) != 1 || tools[0].Definition().Name != "greet" {
		t.Fatalf("tools: %+v", tools)
	}
	var updates []string
	res, err := tools[0].Execute(ctx, loop.ToolCall{ID: "t1", Name: "greet", Args: json.RawMessage(`{"name":"Ada"}`)},
		func(r loop.ToolResult) { updates = append(updates, r.Content[0].Text) })
	if err != nil || res.Content[0].Text != "Hello Ada (plan)" || len(updates) != 1 || updates[0] != "thinking about Ada" {
		t.Fatalf("greet: %+v %v %v", res, err, updates)
	}
	if found, err := h.RunCommand(ctx, "hi", "there"); !found || err != nil {
		t.Fatalf("command: %v %v", found, err)
	}
	<-notified // fire-and-forget: answered on its own goroutine
	mu.Lock()
	defer mu.Unlock()
	joined := strings.Join(asked, "\n")
	if !strings.Contains(joined, `"method":"confirm","title":"Dangerous command"`) || !strings.Contains(joined, `"message":"hi there","notifyType":"info"`) {
		t.Fatalf("requests: %s", joined)
	}
}

func TestSidecarPi16(t *testing.T)  { testSidecar(t, "1.6.0") }
func TestSidecarPi073(t *testing.T) { testSidecar(t, "0.73.1") }

// Escape reaches a registered tool as its AbortSignal: the run's context ends, pi-go sends cancel, the
// sidecar aborts the signal the tool's execute() holds.
func TestSidecarToolAbortsThroughItsSignal(t *testing.T) {
	pi := findPi(t, "1.6.0")
	src := `export default function (pi) {
	pi.registerTool({
		name: "wait", label: "Wait", description: "Waits until aborted",
		parameters: { type: "object", properties: {} },
		async execute(_id, _params, signal, onUpdate) {
			onUpdate?.({ content: [{ type: "text", text: "waiting" }] });
			await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
			pi.appendEntry("tool-aborted", { by: "signal" });
			return { content: [{ type: "text", text: "aborted" }] };
		},
	});
}
`
	h, log, _ := sidecarHost(t, pi, "print", map[string]string{"wait.js": src})
	aborted := make(chan string, 1)
	h.SetHandler(func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		if method == "appendEntry" {
			aborted <- string(params)
		}
		return nil, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	tools := h.Tools(ctx)
	if len(tools) != 1 {
		t.Fatalf("tools: %v (%s)", tools, log.text())
	}
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := tools[0].Execute(ctx, loop.ToolCall{ID: "w1", Name: "wait", Args: json.RawMessage(`{}`)},
			func(loop.ToolResult) { close(started) })
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled tool: %v", err)
	}
	if got := <-aborted; got != `{"customType":"tool-aborted","data":{"by":"signal"}}` {
		t.Fatalf("after the abort the tool said %s", got)
	}
}

// An event the host waits for (turn_end, a boundary) runs in the sidecar after the notifications sent
// before it (message_end), as pi runs a session's events in order: debug-provider keeps the answer's
// events at message_end and appends them as an entry at turn_end. The turn_end call was served at
// once while the notifications went through their own chain, so the entry was missing now and then.
func TestSidecarAnsweredEventFollowsTheNotificationsBeforeIt(t *testing.T) {
	pi := findPi(t, "1.6.0")
	src := `export default function (pi) {
	let kept;
	pi.on("message_end", async (event) => {
		await new Promise((resolve) => setTimeout(resolve, 100));
		kept = event.message.role;
	});
	pi.on("turn_end", () => {
		pi.appendEntry("order", { kept: kept ?? "nothing" });
	});
}
`
	h, log, _ := sidecarHost(t, pi, "print", map[string]string{"order.js": src})
	entries := make(chan string, 1)
	h.SetHandler(func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		if method == "appendEntry" {
			entries <- string(params)
		}
		return nil, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	h.Notify("message_end", map[string]any{"type": "message_end", "message": map[string]any{"role": "assistant"}})
	h.Boundary(ctx, "turn_end", map[string]any{"turnIndex": 0, "outcome": "completed"})
	select {
	case got := <-entries:
		if !strings.Contains(got, `"kept":"assistant"`) {
			t.Fatalf("turn_end ran before message_end's handler: %s (%s)", got, log.text())
		}
	case <-ctx.Done():
		t.Fatalf("no entry (%s)", log.text())
	}
}
