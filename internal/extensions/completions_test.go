package extensions

import (
	"context"
	"testing"
)

const completingExtension = `export default function (pi) {
	pi.registerCommand("deploy", {
		description: "Deploy somewhere",
		getArgumentCompletions: async (prefix) =>
			["production", "preview", "staging"].filter((e) => e.startsWith(prefix)).map((e) => ({ value: e, label: e, description: "to " + e })),
		handler: async () => {},
	});
	pi.registerCommand("plain", { description: "No completions", handler: async () => {} });
}
`

// A command's getArgumentCompletions answers complete_command through pi's runner; a command
// without it is not asked.
func testSidecarCompletions(t *testing.T, version string) {
	pi := findPi(t, version)
	h, log, _ := sidecarHost(t, pi, "rpc", map[string]string{"deploy.ts": completingExtension})
	ctx := context.Background()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if log.text() != "" {
		t.Fatalf("load errors: %s", log.text())
	}
	completes := map[string]bool{}
	for _, c := range h.Commands() {
		completes[c.Name] = c.Completes
	}
	if !completes["deploy"] || completes["plain"] {
		t.Fatalf("completes = %v", completes)
	}
	items, err := h.CompleteCommand(ctx, "deploy", "pr")
	if err != nil || len(items) != 2 || items[0] != (ArgumentCompletion{Value: "production", Label: "production", Description: "to production"}) || items[1].Value != "preview" {
		t.Fatalf("completions: %+v %v", items, err)
	}
	if items, err := h.CompleteCommand(ctx, "plain", ""); items != nil || err != nil {
		t.Fatalf("plain: %+v %v", items, err)
	}
}

func TestSidecarCompletionsPi16(t *testing.T)  { testSidecarCompletions(t, "1.6.0") }
func TestSidecarCompletionsPi073(t *testing.T) { testSidecarCompletions(t, "0.73.1") }
