package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// pi's debug-provider.ts in pi-go's terminal, with pi 1.6.0 on Node 22: its entry renderer's
// keyHint("app.tools.expand", …) names the key of the user's keybindings.json (here rebound to
// ctrl+y, so pi's default ctrl+o would not do), and that key expands the entry as pi-go binds it too.
func TestExtensionKeyHintsInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	pi := findPiExamples(t, testPiVersion)
	p := mockProject(t)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	if err := os.WriteFile(filepath.Join(p.agentDir, "keybindings.json"), []byte(`{"app.tools.expand": "ctrl+y"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	pane := startTmuxPi(t, p, "--model", "mock/mock-model", "--tui-mode", "regular",
		"-e", filepath.Join(pi.pkg, "examples", "extensions", "debug-provider.ts"))
	run := func(text string) {
		pane.keys("-l", text)
		pane.keys("Enter")
	}
	pane.waitFor("the editor", func(s string) bool { return strings.Contains(s, "mock-model") })
	run("/debug-provider on")
	pane.waitFor("the command's notice", func(s string) bool { return strings.Contains(s, "Provider event capture enabled") })
	p.server.Enqueue(openaitest.TextReply("mock-model", "debugged answer"))
	run("hello")
	screen := pane.waitFor("the debug entry", func(s string) bool {
		return strings.Contains(s, "[provider debug] mock/mock-model (openai-completions)") && strings.Contains(s, "debugged answer")
	})
	if !strings.Contains(screen, "(ctrl+y to view events)") {
		t.Fatalf("the entry's key hint does not name the user's key:\n%s", screen)
	}
	pane.keys("C-y")
	// The expanded entry: the captured stream chunks.
	pane.waitFor("the expanded entry", func(s string) bool {
		return strings.Contains(s, `"object": "chat.completion.chunk"`)
	})
}
