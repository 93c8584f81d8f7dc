package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// switchExtension registers commands that change the session the way a user's built-in commands do:
// /fresh is /new (and sends a message into the new session), /back is /resume of the first session,
// /again is /fork from its first prompt, /keep a fork at the leaf (a clone), /top is /tree to that prompt, /reasoner is a model switch with a thinking level, /broken fails.
const switchExtension = `export default function (pi) {
	let first;
	const firstPrompt = (ctx) => ctx.sessionManager.getEntries().find((e) => e.type === "message" && e.message.role === "user");
	pi.registerCommand("fresh", { description: "new session", handler: async (_args, ctx) => {
		first = ctx.sessionManager.getSessionFile();
		await ctx.newSession({ withSession: async () => {
			pi.sendMessage({ customType: "switch-note", content: "note in the fresh session", display: true });
		} });
	} });
	pi.registerCommand("back", { description: "first session", handler: async (_args, ctx) => {
		await ctx.switchSession(first);
	} });
	pi.registerCommand("again", { description: "fork", handler: async (_args, ctx) => {
		await ctx.fork(firstPrompt(ctx).id);
	} });
	pi.registerCommand("keep", { description: "clone", handler: async (_args, ctx) => {
		await ctx.fork(ctx.sessionManager.getLeafId(), { position: "at" });
	} });
	pi.registerCommand("top", { description: "tree", handler: async (_args, ctx) => {
		await ctx.navigateTree(firstPrompt(ctx).id);
	} });
	pi.registerCommand("broken", { description: "fails", handler: async () => {
		throw new Error("broken on purpose");
	} });
	pi.registerCommand("reasoner", { description: "model", handler: async (_args, ctx) => {
		if (!(await pi.setModel(ctx.modelRegistry.find("mock", "mock-reasoner")))) throw new Error("setModel refused");
		pi.setThinkingLevel("high");
	} });
}
`

// An extension command that replaces the session or changes the model is shown exactly as the
// built-in command: the new session's rule and notice, the resumed or forked transcript, the
// forked text in the editor, the footer's model and thinking level; with pi 1.6.0's runner on Node 22.
func TestExtensionCommandsSwitchSessionsInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	pi := findPiExamples(t, testPiVersion)
	p := mockProject(t)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	ext := filepath.Join(t.TempDir(), "switch.ts")
	if err := os.WriteFile(ext, []byte(switchExtension), 0o644); err != nil {
		t.Fatal(err)
	}
	pane := startTmuxPi(t, p, "--model", "mock/mock-model", "--tui-mode", "regular", "-e", ext)
	lines := func(s string) []string { return strings.Split(s, "\n") }
	// last is the row of the last line containing s (-1: none).
	last := func(screen, s string) int {
		row := -1
		for i, l := range lines(screen) {
			if strings.Contains(l, s) {
				row = i
			}
		}
		return row
	}
	run := func(cmd string) {
		pane.keys("-l", cmd)
		pane.keys("Enter")
	}
	pane.waitFor("the editor", func(s string) bool { return strings.Contains(s, "mock-model") })

	p.server.Enqueue(openaitest.TextReply("mock-model", "first answer"))
	run("hello one")
	pane.waitFor("the first answer", func(s string) bool { return strings.Contains(s, "first answer") })

	// /broken: its failure is one warning (pi's emitError), checked at the end, long after it came.
	run("/broken")
	pane.waitFor("the command's failure", func(s string) bool { return strings.Contains(s, "broken on purpose") })

	// /fresh: the rule and notice of /new, then the message sent into the new session, once.
	run("/fresh")
	screen := pane.waitFor("the new session", func(s string) bool {
		return strings.Contains(s, "✓ New session started") && strings.Contains(s, "note in the fresh session")
	})
	if n := strings.Count(screen, "note in the fresh session"); n != 1 {
		t.Errorf("the message sent after the switch is drawn %d times:\n%s", n, screen)
	}
	if last(screen, "New session started") > last(screen, "note in the fresh session") {
		t.Errorf("the message sent into the new session is above the switch:\n%s", screen)
	}
	if row := last(screen, "mock-model"); row < 0 || strings.Contains(lines(screen)[row], "↑") {
		t.Errorf("the footer still shows the old session's usage:\n%s", screen)
	}

	// /reasoner: the footer shows the model and thinking level at once.
	run("/reasoner")
	pane.waitFor("the footer's new model", func(s string) bool {
		row := last(s, "mock-reasoner")
		return row >= 0 && strings.Contains(lines(s)[row], "high")
	})

	// /back: the first session's conversation under a rule, "Resumed session", its model back.
	run("/back")
	screen = pane.waitFor("the resumed session", func(s string) bool {
		return strings.Contains(s, "Resumed session") && last(s, "first answer") > last(s, "note in the fresh session")
	})
	if last(screen, "hello one") < last(screen, "note in the fresh session") {
		t.Errorf("the resumed prompt is not drawn again:\n%s", screen)
	}
	pane.waitFor("the resumed session's model in the footer", func(s string) bool {
		return last(s, "mock-model") > last(s, "Resumed session")
	})

	// /again: the fork's notice and the forked prompt in the editor, ready to edit.
	run("/again")
	screen = pane.waitFor("the fork", func(s string) bool {
		return strings.Contains(s, "Forked to new session") && last(s, "hello one") > last(s, "Forked to new session")
	})
	p.server.Enqueue(openaitest.TextReply("mock-model", "forked answer"))
	pane.keys("Enter")
	pane.waitFor("the forked prompt sent", func(s string) bool { return strings.Contains(s, "forked answer") })
	msgs := requestMessages(t, p.server, 2)
	if n := len(msgs); n != 2 || contentText(msgs[1]["content"]) != "hello one" {
		t.Errorf("the forked session's request: %v", msgs)
	}

	// /keep: a fork at the leaf keeps the whole branch, drawn again above the fork's notice.
	history := func() string { return pane.tmux("capture-pane", "-p", "-S", "-", "-t", "pi") }
	run("/keep")
	pane.waitFor("the fork at the leaf", func(string) bool {
		h := history()
		return strings.Count(h, "Forked to new session") == 2 && strings.Count(h, "forked answer") == 2
	})

	// /top: the branch navigated to (before the first prompt: empty) under a rule, the prompt's text
	// in the editor.
	run("/top")
	screen = pane.waitFor("the navigation", func(s string) bool {
		return strings.Contains(s, "Navigated to selected point") && last(s, "hello one") > last(s, "Navigated to selected point")
	})
	if last(screen, "forked answer") > last(screen, "Navigated to selected point") {
		t.Errorf("the navigation left the old branch below its notice:\n%s", screen)
	}

	if n := strings.Count(history(), "broken on purpose"); n != 1 {
		t.Errorf("the failed command is reported %d times:\n%s", n, history())
	}
}
