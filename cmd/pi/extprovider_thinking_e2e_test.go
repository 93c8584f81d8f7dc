package main

import (
	"strings"
	"testing"
)

// thinkingExtension registers a reasoning model whose streamSimple answers with the reasoning level
// it was asked for, so a run shows which level reached the provider.
const thinkingExtension = `
import { createAssistantMessageEventStream } from "@earendil-works/pi-ai";

const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

export default function (pi) {
	pi.registerProvider("mind", {
		baseUrl: "http://127.0.0.1:9",
		apiKey: "mind-key",
		api: "mind-api",
		models: [{ id: "mind-1", name: "Mind", reasoning: true, input: ["text"], cost: zero, contextWindow: 8000, maxTokens: 512 }],
		streamSimple: (model, context, options) => {
			const stream = createAssistantMessageEventStream();
			const text = "reasoning=" + (options.reasoning ?? "none");
			const message = {
				role: "assistant", content: [{ type: "text", text }], api: model.api, provider: model.provider, model: model.id,
				usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { ...zero, total: 0 } },
				stopReason: "stop", timestamp: Date.now(),
			};
			queueMicrotask(() => {
				stream.push({ type: "start", partial: message });
				stream.push({ type: "done", reason: "stop", message });
			});
			return stream;
		},
	});
}
`

// A continued session whose model only an extension provides takes --thinking from the command
// line, as it does for a built-in model.
func TestExtensionProviderThinkingOnContinue(t *testing.T) {
	p, _ := providerProject(t)
	p.write("mind.ts", thinkingExtension)

	r := p.run("", "-e", "mind.ts", "--model", "mind/mind-1", "--thinking", "high", "-p", "first")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "reasoning=high" {
		t.Fatalf("first: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = p.run("", "-e", "mind.ts", "-c", "--thinking", "low", "-p", "again")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "reasoning=low" {
		t.Fatalf("continued with --thinking low: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	// As pi 1.6, the override is not recorded when the session has a level already (pi's
	// setThinkingLevel appends only a change from the level the agent was created with).
	r = p.run("", "-e", "mind.ts", "-c", "-p", "third")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "reasoning=high" {
		t.Fatalf("continued: code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
