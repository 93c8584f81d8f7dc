package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// providerExtension registers two providers as pi's docs/custom-provider.md shows them: "acme", an
// OpenAI-compatible endpoint (the scripted server) that pi-go's own openai package serves, and
// "echo", a provider with its own streamSimple that runs in the sidecar. /drop-acme unregisters acme.
const providerExtension = `
import { createAssistantMessageEventStream, getCurrentSystemPrompt } from "@earendil-works/pi-ai";

const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

function echoStream(model, context, options) {
	const stream = createAssistantMessageEventStream();
	const message = {
		role: "assistant", content: [], api: model.api, provider: model.provider, model: model.id,
		usage: { input: 3, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 8, cost: { ...zero, total: 0 } },
		stopReason: "stop", timestamp: Date.now(),
	};
	const user = context.messages.filter((m) => m.role === "user").at(-1);
	const said = typeof user.content === "string" ? user.content : user.content.map((c) => c.text ?? "").join("");
	(async () => {
		stream.push({ type: "start", partial: message });
		message.content.push({ type: "text", text: "" });
		stream.push({ type: "text_start", contentIndex: 0, partial: message });
		const emit = (delta) => {
			message.content[0].text += delta;
			stream.push({ type: "text_delta", contentIndex: 0, delta, partial: message });
		};
		if (said.includes("fail")) {
			message.stopReason = "error";
			message.errorMessage = "echo backend exploded";
			stream.push({ type: "error", reason: "error", error: message });
			return;
		}
		if (said.includes("slow")) {
			emit("partial");
			await new Promise((resolve) => options.signal.addEventListener("abort", resolve, { once: true }));
			message.stopReason = "aborted";
			message.errorMessage = "aborted by signal";
			stream.push({ type: "error", reason: "aborted", error: message });
			return;
		}
		const system = getCurrentSystemPrompt(context.messages).length > 0 ? "with system prompt" : "no system prompt";
		emit("echo(" + model.id + "): ");
		emit(said + " [" + system + ", key " + options.apiKey + "]");
		stream.push({ type: "text_end", contentIndex: 0, content: message.content[0].text, partial: message });
		stream.push({ type: "done", reason: "stop", message });
	})();
	return stream;
}

export default function (pi) {
	pi.registerProvider("acme", {
		name: "Acme",
		baseUrl: process.env.ACME_URL,
		apiKey: "$ACME_KEY",
		api: "openai-completions",
		headers: { "X-Acme": "yes" },
		models: [{ id: "acme-chat", name: "Acme Chat", reasoning: false, input: ["text"], cost: zero, contextWindow: 64000, maxTokens: 4096 }],
	});
	pi.registerProvider("echo", {
		baseUrl: "http://127.0.0.1:9",
		apiKey: "echo-key",
		api: "echo-api",
		models: [{ id: "echo-1", name: "Echo", reasoning: false, input: ["text"], cost: zero, contextWindow: 8000, maxTokens: 512 }],
		streamSimple: echoStream,
	});
	pi.registerCommand("drop-acme", {
		description: "unregister acme",
		handler: async (_args, ctx) => {
			pi.unregisterProvider("acme");
			ctx.ui.notify("acme dropped", "info");
		},
	});
}
`

// providerProject is a project with the provider extension and pi 1.6.0's runner on Node 22.
func providerProject(t *testing.T) (*project, string) {
	t.Helper()
	pi, why := findPi16()
	if why != "" {
		if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	p := newProject(t)
	p.write("providers.ts", providerExtension)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg, "ACME_URL="+p.server.URL, "ACME_KEY=acme-secret")
	return p, "providers.ts"
}

func TestExtensionProviderInPrintMode(t *testing.T) {
	p, ext := providerProject(t)

	// --model names a model only the extension provides: start-up waits for its registration, and
	// pi-go's openai package sends the request with the provider's key and headers.
	p.server.Enqueue(openaitest.TextReply("acme-chat", "Hello from Acme."))
	r := p.run("", "-e", ext, "--no-session", "--model", "acme/acme-chat", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "Hello from Acme.") {
		t.Fatalf("acme: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	reqs := p.server.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer acme-secret" {
		t.Errorf("Authorization %q", got)
	}
	if got := reqs[0].Header.Get("X-Acme"); got != "yes" {
		t.Errorf("X-Acme %q", got)
	}
	var body struct {
		Model string `json:"model"`
	}
	if err := reqs[0].Decode(&body); err != nil || body.Model != "acme-chat" {
		t.Errorf("model %q (%v)", body.Model, err)
	}

	// The settings' default model is one only the extension provides: streamed by its streamSimple.
	if err := os.WriteFile(p.agentDir+"/settings.json", []byte(`{"defaultProvider":"echo","defaultModel":"echo-1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = p.run("", "-e", ext, "--no-session", "-p", "ping")
	if want := "echo(echo-1): ping [with system prompt, key echo-key]"; r.code != 0 || strings.TrimSpace(r.stdout) != want {
		t.Fatalf("echo: want %q, code %d\nstdout: %s\nstderr: %s", want, r.code, r.stdout, r.stderr)
	}

	// A continued session restores its model, which only the extension provides.
	if err := os.Remove(p.agentDir + "/settings.json"); err != nil {
		t.Fatal(err)
	}
	r = p.run("", "-e", ext, "--model", "echo/echo-1", "-p", "first")
	if r.code != 0 {
		t.Fatalf("first: code %d\nstderr: %s", r.code, r.stderr)
	}
	r = p.run("", "-e", ext, "-c", "-p", "again")
	if want := "echo(echo-1): again [with system prompt, key echo-key]"; r.code != 0 || strings.TrimSpace(r.stdout) != want {
		t.Fatalf("continued: want %q, code %d\nstdout: %s\nstderr: %s", want, r.code, r.stdout, r.stderr)
	}

	// Its failure is a provider error, as any provider's.
	r = p.run("", "-e", ext, "--no-session", "--model", "echo/echo-1", "-p", "fail now")
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "echo backend exploded") {
		t.Fatalf("fail: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}

	// A model no extension registers: a clear error, not a hang.
	r = p.run("", "-e", ext, "--no-session", "--model", "nosuch/model-x", "-p", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "no loaded extension registered it") {
		t.Fatalf("unknown model: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}

	// A provider that only re-routes a built-in one (pi's proxy example): the model chosen at
	// start-up, before the extension loaded, takes the new base URL before the first request.
	p.write("proxy.ts", `export default function (pi) { pi.registerProvider("groq", { baseUrl: process.env.ACME_URL }); }`)
	p.server.Enqueue(openaitest.TextReply("openai/gpt-oss-120b", "Through the proxy."))
	p.env = append(p.env, "GROQ_API_KEY=groq-key")
	r = p.run("", "-e", "proxy.ts", "--no-session", "--model", "groq/openai/gpt-oss-120b", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "Through the proxy.") {
		t.Fatalf("proxy: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if reqs := p.server.Requests(); reqs[len(reqs)-1].Header.Get("Authorization") != "Bearer groq-key" {
		t.Errorf("proxy request: %v", reqs[len(reqs)-1].Header)
	}

	// --list-models lists them.
	r = p.run("", "-e", ext, "--list-models")
	for _, want := range []string{"acme", "acme-chat", "echo-1"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--list-models lacks %s:\n%s\n%s", want, r.stdout, r.stderr)
		}
	}
}

func TestExtensionProviderInRPCMode(t *testing.T) {
	p, ext := providerProject(t)
	s := p.startRPC("-e", ext, "--no-session", "--model", "acme/acme-chat")

	if got := s.availableModels("m1"); !strings.Contains(got, "acme/acme-chat") || !strings.Contains(got, "echo/echo-1") {
		t.Fatalf("available models: %s", got)
	}

	p.server.Enqueue(openaitest.TextReply("acme-chat", "Acme answers."))
	s.send(map[string]any{"type": "prompt", "id": "p1", "message": "hi"})
	end := s.expect("acme's answer", isType("agent_end"))
	if !strings.Contains(fmt.Sprint(end), "Acme answers.") {
		t.Fatalf("agent_end: %v", end)
	}
	s.expect("the run to settle", isType("agent_settled"))

	// The streamSimple provider, streamed through the sidecar.
	s.send(map[string]any{"type": "set_model", "id": "sm", "provider": "echo", "modelId": "echo-1"})
	if r := s.expect("set_model", func(m map[string]any) bool { return m["id"] == "sm" }); r["success"] != true {
		t.Fatalf("set_model: %v", r)
	}
	s.send(map[string]any{"type": "prompt", "id": "p2", "message": "hello"})
	end = s.expect("echo's answer", isType("agent_end"))
	if want := "echo(echo-1): hello [with system prompt, key echo-key]"; !strings.Contains(fmt.Sprint(end), want) {
		t.Fatalf("agent_end lacks %q: %v", want, end)
	}
	s.expect("the run to settle", isType("agent_settled"))

	// Abort reaches the extension's AbortSignal; the answer ends aborted.
	s.send(map[string]any{"type": "prompt", "id": "p3", "message": "be slow"})
	s.expect("the first delta", func(m map[string]any) bool {
		ev, _ := m["assistantMessageEvent"].(map[string]any)
		return m["type"] == "message_update" && ev["type"] == "text_delta" && ev["delta"] == "partial"
	})
	s.send(map[string]any{"type": "abort", "id": "ab"})
	end = s.expect("the aborted answer", isType("agent_end"))
	if !strings.Contains(fmt.Sprint(end), "stopReason:aborted") {
		t.Fatalf("agent_end after abort: %v", end)
	}
	s.expect("the run to settle", isType("agent_settled"))

	// unregisterProvider takes acme out of the list at once: the command's notify comes after it,
	// and pi-go applies a provider change before it reads the extension's next line.
	s.send(map[string]any{"type": "prompt", "id": "p4", "message": "/drop-acme"})
	if n := s.expect("the command's notify", uiRequest("notify")); n["message"] != "acme dropped" {
		t.Fatalf("notify: %v", n)
	}
	if got := s.availableModels("m2"); strings.Contains(got, "acme/") || !strings.Contains(got, "echo/echo-1") {
		t.Fatalf("after unregisterProvider: %s", got)
	}
}
