package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// pi's own UI examples in pi-go's terminal, with pi 1.6.0 on Node 22: statuses in the footer, widgets
// around the editor, an extension's header and footer, the working message, the title, a shortcut,
// and a custom() game that takes the keyboard.
func TestPiUIExamplesInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	args := append(p.baseArgs(), "--tui-mode", "regular")
	for _, name := range []string{"status-line.ts", "widget-placement.ts", "custom-header.ts", "custom-footer.ts",
		"snake.ts", "titlebar-spinner.ts", "working-message-test.ts", "plan-mode/index.ts", "message-renderer.ts"} {
		args = append(args, "-e", filepath.Join(pi.pkg, "examples", "extensions", name))
	}
	// message-renderer draws "status-update" messages; this one adds such a message to every run
	// (message-renderer's own /status sends it with pi.sendMessage).
	hook := filepath.Join(t.TempDir(), "status-hook.ts")
	if err := os.WriteFile(hook, []byte(`export default function (pi) {
	pi.on("before_agent_start", async () => ({
		message: { customType: "status-update", content: "from the hook", display: true, details: { level: "warn" } },
	}));
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	args = append(args, "-e", hook)
	pane := startTmuxPi(t, p, args...)
	row := func(screen, s string) int {
		for i, l := range strings.Split(screen, "\n") {
			if strings.Contains(l, s) {
				return i
			}
		}
		return -1
	}

	// custom-header's mascot replaces the header; widget-placement's widgets sit around the editor;
	// status-line's status is under the footer.
	screen := pane.waitFor("the header, widgets and status", func(s string) bool {
		return strings.Contains(s, "shitty coding agent") && strings.Contains(s, "██████████████") &&
			strings.Contains(s, "Above editor widget") && strings.Contains(s, "Below editor widget") &&
			strings.Contains(s, "Ready")
	})
	if strings.Contains(screen, "escape interrupt") {
		t.Errorf("pi-go's header is still shown:\n%s", screen)
	}
	if !(row(screen, "Above editor widget") < row(screen, "Below editor widget") &&
		row(screen, "Below editor widget") < row(screen, "test-model") && row(screen, "test-model") < row(screen, "Ready")) {
		t.Errorf("widgets or status misplaced:\n%s", screen)
	}

	// A run: working-message-test's label on the working line, titlebar-spinner's title, the status
	// of the turn.
	gate := make(chan struct{})
	reply := openaitest.TextReply("test-model", "done")
	reply.Gate = gate
	p.server.Enqueue(reply)
	pane.keys("-l", "go")
	pane.keys("Enter")
	pane.waitFor("the working message and turn status", func(s string) bool {
		return strings.Contains(s, "Working... (custom)") && strings.Contains(s, "Turn 1...")
	})
	title := func() string { return pane.tmux("display-message", "-p", "-t", "pi", "#{pane_title}") }
	pane.waitFor("the spinning title", func(string) bool {
		t := title()
		return strings.Contains(t, "π - proj") && strings.ContainsAny(t, "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
	})
	close(gate)
	screen = pane.waitFor("the turn's end", func(s string) bool { return strings.Contains(s, "✓ Turn 1 complete") })
	// message-renderer's renderer drew the hook's message.
	if !strings.Contains(screen, "[WARN] from the hook") || strings.Contains(screen, "[status-update]") {
		t.Errorf("the custom message is not drawn by its renderer:\n%s", screen)
	}
	pane.waitFor("the title at rest", func(string) bool { return strings.TrimSpace(title()) == "π - proj" })

	// plan-mode's Ctrl+Alt+P adds its status, sorted before status-line's by key.
	pane.keys("C-M-p")
	pane.waitFor("plan mode's status", func(s string) bool {
		return strings.Contains(s, "Plan mode enabled") && strings.Contains(s, "⏸ plan ✓ Turn 1 complete")
	})

	// custom-footer's /footer replaces the footer with its own; a second /footer restores pi-go's.
	pane.keys("-l", "/footer")
	pane.keys("Enter")
	screen = pane.waitFor("the custom footer", func(s string) bool {
		return strings.Contains(s, "Custom footer enabled") && strings.Contains(s, "$0.000") && !strings.Contains(s, "(auto)")
	})
	if strings.Contains(screen, "⏸ plan") {
		t.Errorf("the custom footer still shows the statuses:\n%s", screen)
	}
	pane.keys("-l", "/footer")
	pane.keys("Enter")
	pane.waitFor("pi-go's footer", func(s string) bool {
		return strings.Contains(s, "Default footer restored") && strings.Contains(s, "(auto)") && strings.Contains(s, "⏸ plan")
	})

	// snake's custom() takes the editor's place and the keys; Escape pauses it and gives them back.
	pane.keys("-l", "/snake")
	pane.keys("Enter")
	pane.waitFor("the game", func(s string) bool { return strings.Contains(s, "WASD to move") })
	pane.keys("Down")
	pane.keys("Escape")
	pane.waitFor("the editor back", func(s string) bool {
		return !strings.Contains(s, "WASD to move") && strings.Contains(s, "Above editor widget")
	})
	pane.keys("-l", "typed")
	pane.waitFor("the editor taking keys", func(s string) bool { return strings.Contains(s, " typed") })
}
