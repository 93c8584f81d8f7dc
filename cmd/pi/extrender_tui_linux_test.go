package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// Tool calls drawn by extensions in pi-go's terminal, with pi 1.6.0 on Node 22: built-in-tool-renderer
// re-registers read and bash with renderCall / renderResult of its own; a registerToolRenderer
// resolver draws ls's calls; a tool's partial results reach its renderResult with isPartial; Ctrl+O
// switches to the expanded drawing. entry-renderer draws its custom entries in the transcript.
func TestPiToolRenderersInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	var lines []string
	for i := 1; i <= 20; i++ {
		lines = append(lines, "line-"+itoaTest(i))
	}
	p.write("notes.txt", strings.Join(lines, "\n")+"\n")
	gate := filepath.Join(t.TempDir(), "gate")
	ext := filepath.Join(t.TempDir(), "renderers.ts")
	if err := os.WriteFile(ext, []byte(`import fs from "node:fs";
import { Type } from "typebox";
import { Text } from "@earendil-works/pi-tui";
export default function (pi) {
	pi.registerToolRenderer((toolName, next) => {
		if (toolName !== "ls") return next();
		return { ...next(), renderCall: (args, theme) => new Text("LISTING " + (args.path ?? "."), 0, 0) };
	});
	pi.registerTool({
		name: "slow",
		label: "Slow",
		description: "Works in steps",
		parameters: Type.Object({}),
		async execute(_id, _params, signal, onUpdate) {
			onUpdate?.({ content: [{ type: "text", text: "step 1" }], details: {} });
			await new Promise((resolve) => {
				const t = setInterval(() => { if (fs.existsSync(`+"`"+gate+"`"+`)) { clearInterval(t); resolve(); } }, 20);
				signal?.addEventListener("abort", () => { clearInterval(t); resolve(); });
			});
			return { content: [{ type: "text", text: "all steps" }], details: {} };
		},
		renderCall: (_args, theme, ctx) => new Text("SLOW started=" + ctx.executionStarted, 0, 0),
		renderResult: (result, { isPartial }) => new Text((isPartial ? "PARTIAL " : "FINAL ") + result.content[0].text, 0, 0),
	});
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// As pi 1.6, --tools names extension tools too: one it does not name is not offered.
	args := append(p.baseArgs(), "--tui-mode", "regular", "--tools", "read,bash,ls,slow",
		"-e", filepath.Join(pi.pkg, "examples", "extensions", "built-in-tool-renderer.ts"),
		"-e", filepath.Join(pi.pkg, "examples", "extensions", "entry-renderer.ts"),
		"-e", ext)
	pane := startTmuxPi(t, p, args...)
	pane.waitFor("the editor", func(s string) bool { return strings.Contains(s, "test-model") })

	// read and bash, drawn by built-in-tool-renderer; ls by the resolver (its result by pi's own ls
	// renderer, which the resolver kept).
	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "",
			openaitest.ToolCallSpec{ID: "r", Name: "read", Arguments: `{"path":"notes.txt"}`},
			openaitest.ToolCallSpec{ID: "b", Name: "bash", Arguments: `{"command":"echo out-one; echo out-two"}`},
			openaitest.ToolCallSpec{ID: "l", Name: "ls", Arguments: `{"path":"."}`}),
		openaitest.TextReply("test-model", "all read"),
	)
	pane.keys("-l", "look")
	pane.keys("Enter")
	screen := pane.waitFor("the extension's drawings", func(s string) bool {
		return strings.Contains(s, "read notes.txt") && strings.Contains(s, "21 lines") &&
			strings.Contains(s, "$ echo out-one; echo out-two") && strings.Contains(s, "done (2 lines)") &&
			strings.Contains(s, "LISTING .") && hasLine(s, "notes.txt") && strings.Contains(s, "all read")
	})
	if strings.Contains(screen, "line-3") || hasLine(screen, "out-one") {
		t.Errorf("collapsed drawings show the output:\n%s", screen)
	}
	// Ctrl+O: the expanded drawing (built-in-tool-renderer shows 15 of read's lines).
	pane.keys("C-o")
	screen = pane.waitFor("the expanded drawings", func(s string) bool {
		return strings.Contains(s, "line-15") && strings.Contains(s, "... 6 more lines") && hasLine(s, "out-two")
	})
	if strings.Contains(screen, "line-16") {
		t.Errorf("the expanded read shows more than the renderer's 15 lines:\n%s", screen)
	}
	pane.keys("C-o")
	pane.waitFor("collapsed again", func(s string) bool { return !strings.Contains(s, "line-15") && strings.Contains(s, "21 lines") })

	// A partial result, then the final one.
	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "s", Name: "slow", Arguments: `{}`}),
		openaitest.TextReply("test-model", "slow done"),
	)
	pane.keys("-l", "slowly")
	pane.keys("Enter")
	pane.waitFor("the partial result", func(s string) bool {
		return strings.Contains(s, "SLOW started=true") && strings.Contains(s, "PARTIAL step 1")
	})
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	screen = pane.waitFor("the final result", func(s string) bool {
		return strings.Contains(s, "FINAL all steps") && strings.Contains(s, "slow done")
	})
	if strings.Contains(screen, "PARTIAL") {
		t.Errorf("the partial drawing stayed:\n%s", screen)
	}

	// entry-renderer's /status-card appends a custom entry; its renderer draws it.
	pane.keys("-l", "/status-card deployed")
	pane.keys("Enter")
	pane.waitFor("the status card", func(s string) bool { return strings.Contains(s, "[status] deployed") })
}

// hasLine reports whether a line of screen is text, spaces aside.
func hasLine(screen, text string) bool {
	for _, l := range strings.Split(screen, "\n") {
		if strings.TrimSpace(l) == text {
			return true
		}
	}
	return false
}

func itoaTest(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoaTest(i/10) + string(rune('0'+i%10))
}

// ctx.ui.onTerminalInput sees every key first and may change or swallow it; ctx.ui.getEditorText()
// reads the editor's text synchronously (pi-go mirrors it to the extension), and ctx.ui.setTheme switches pi-go's theme by name and saves it, answering as pi does.
func TestExtensionEditorTextAndThemeInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	ext := filepath.Join(t.TempDir(), "editor-theme.ts")
	if err := os.WriteFile(ext, []byte(`export default function (pi) {
	pi.on("session_start", async (_e, ctx) => {
		// Every key passes here first: "1" becomes "one", "#" is swallowed.
		ctx.ui.onTerminalInput((data) => (data === "1" ? { data: "one" } : data === "#" ? { consume: true } : undefined));
		ctx.ui.setStatus("probe", "probe ready");
	});
	pi.registerShortcut("ctrl+alt+g", {
		description: "Peek at the editor",
		handler: async (ctx) => ctx.ui.notify("editor holds [" + ctx.ui.getEditorText() + "] theme=" + ctx.ui.theme.name, "info"),
	});
	pi.registerCommand("theme-to", {
		description: "Switch theme",
		handler: async (args, ctx) => ctx.ui.notify("setTheme " + args + " " + JSON.stringify(ctx.ui.setTheme(args.trim())), "info"),
	});
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	pane := startTmuxPi(t, p, append(p.baseArgs(), "--tui-mode", "regular", "-e", ext)...)
	pane.waitFor("the extension", func(s string) bool { return strings.Contains(s, "probe ready") })

	pane.keys("-l", "draft#1 words")
	pane.waitFor("the typed text, through the input listener", func(s string) bool { return strings.Contains(s, "draftone words") })
	pane.keys("C-M-g")
	pane.waitFor("the editor's text, read by the extension", func(s string) bool {
		return strings.Contains(s, "editor holds [draftone words] theme=dark")
	})
	pane.keys("C-u")
	pane.waitFor("the editor cleared", func(s string) bool { return !strings.Contains(s, "draftone words\n") })

	pane.keys("-l", "/theme-to nope")
	pane.keys("Enter")
	pane.waitFor("the refusal", func(s string) bool {
		return strings.Contains(s, `setTheme nope {"success":false,"error":"Theme not found: nope"}`)
	})
	pane.keys("-l", "/theme-to light")
	pane.keys("Enter")
	pane.waitFor("the switch", func(s string) bool { return strings.Contains(s, `setTheme light {"success":true}`) })
	pane.keys("C-M-g")
	pane.waitFor("the new theme, seen by the extension", func(s string) bool {
		return strings.Contains(s, "editor holds [] theme=light")
	})
	data, err := os.ReadFile(filepath.Join(p.agentDir, "settings.json"))
	if err != nil || !strings.Contains(string(data), `"theme": "light"`) {
		t.Errorf("the theme is not saved: %s %v", data, err)
	}
}

// pi's modal-editor, border-status-editor and rainbow-editor examples replace pi-go's editor (ctx.ui.setEditorComponent):
// the extension's editor is drawn in its place, gets the keys, and what it submits is the prompt.
func TestPiEditorComponentsInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	pi := findPiExamples(t, testPiVersion)
	start := func(t *testing.T, example string) (*project, *tmuxPane) {
		p := newProject(t)
		p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
		pane := startTmuxPi(t, p, append(p.baseArgs(), "--tui-mode", "regular",
			"-e", filepath.Join(pi.pkg, "examples", "extensions", example))...)
		return p, pane
	}
	t.Run("modal-editor", func(t *testing.T) {
		p, pane := start(t, "modal-editor.ts")
		pane.waitFor("the modal editor", func(s string) bool { return strings.Contains(s, " INSERT") })
		pane.keys("-l", "helo")
		pane.waitFor("the typed text", func(s string) bool { return strings.Contains(s, "helo") })
		pane.keys("Escape")
		pane.waitFor("normal mode", func(s string) bool { return strings.Contains(s, " NORMAL") })
		pane.keys("-l", "qh") // q is ignored in normal mode; h moves left, onto the o
		pane.keys("-l", "i")
		pane.waitFor("insert mode again", func(s string) bool { return strings.Contains(s, " INSERT") })
		pane.keys("-l", "l")
		pane.waitFor("the edited text", func(s string) bool { return hasLine(s, "hello") })
		p.server.Enqueue(openaitest.TextReply("test-model", "hi back"))
		pane.keys("Enter")
		pane.waitFor("the prompt and the answer", func(s string) bool {
			return hasLine(s, "hello") && strings.Contains(s, "hi back") && strings.Contains(s, " INSERT")
		})
		req := p.server.Requests()
		if len(req) == 0 || !strings.Contains(string(req[len(req)-1].Body), `"hello"`) {
			t.Errorf("the model was not sent the edited prompt")
		}
		// Ctrl+D on the empty editor is the app's exit, handed back by the extension's editor.
		pane.keys("C-d")
		pane.awaitExit("on Ctrl+D")
	})
	t.Run("border-status-editor", func(t *testing.T) {
		// Its editor shows the model and the directory in its border; its empty footer replaces pi-go's.
		_, pane := start(t, "border-status-editor.ts")
		screen := pane.waitFor("the status in the editor's border", func(s string) bool {
			for _, l := range strings.Split(s, "\n") {
				if strings.HasPrefix(l, "─") && strings.Contains(l, "/test-model · off") && strings.Contains(l, "~/proj") {
					return true
				}
			}
			return false
		})
		if strings.Contains(screen, "(auto)") {
			t.Errorf("pi-go's footer is still shown:\n%s", screen)
		}
		pane.keys("-l", "typed here")
		pane.waitFor("the editor taking keys", func(s string) bool { return hasLine(s, "typed here") })
	})
	t.Run("rainbow-editor", func(t *testing.T) {
		_, pane := start(t, "rainbow-editor.ts")
		pane.waitFor("the editor", func(s string) bool { return strings.Contains(s, "test-model") })
		colored := regexp.MustCompile(`\x1b\[[0-9;]*mu\x1b\[[0-9;]*ml\x1b\[[0-9;]*mt`)
		// Typed before the extension's editor took over, the text moves into it.
		pane.keys("-l", "ultrathink")
		deadline := time.Now().Add(20 * time.Second)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			screen := pane.tmux("capture-pane", "-e", "-p", "-t", "pi")
			if colored.MatchString(screen) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("ultrathink is not drawn in colours:\n%q", screen)
			}
			<-tick.C
		}
	})
}

// An autocomplete provider added with ctx.ui.addAutocompleteProvider (shaped as pi's
// github-issue-autocomplete example, without its network) joins the editor's completion: its
// suggestions replace pi-go's for the tokens it knows, and pi-go's own completion stands elsewhere.
func TestExtensionAutocompleteInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	ext := filepath.Join(t.TempDir(), "issues.ts")
	if err := os.WriteFile(ext, []byte(`export default function (pi) {
	const issues = [{ n: 12, title: "Fix the parser" }, { n: 7, title: "Faster start" }];
	pi.on("session_start", async (_e, ctx) => {
		ctx.ui.addAutocompleteProvider((current) => ({
			async getSuggestions(lines, cursorLine, cursorCol, options) {
				const m = (lines[cursorLine] ?? "").slice(0, cursorCol).match(/(?:^|[ \t])#(\d*)$/);
				if (!m) return current.getSuggestions(lines, cursorLine, cursorCol, options);
				const items = issues.filter((i) => String(i.n).startsWith(m[1]))
					.map((i) => ({ value: "#" + i.n, label: "#" + i.n, description: i.title }));
				return items.length ? { items, prefix: "#" + m[1] } : current.getSuggestions(lines, cursorLine, cursorCol, options);
			},
			applyCompletion: (...a) => current.applyCompletion(...a),
		}));
		ctx.ui.setStatus("probe", "provider ready");
	});
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	pane := startTmuxPi(t, p, append(p.baseArgs(), "--tui-mode", "regular", "-e", ext)...)
	pane.waitFor("the provider", func(s string) bool { return strings.Contains(s, "provider ready") })

	pane.keys("-l", "see #")
	pane.waitFor("the provider's suggestions", func(s string) bool {
		return strings.Contains(s, "Fix the parser") && strings.Contains(s, "Faster start")
	})
	pane.keys("-l", "1")
	pane.waitFor("the narrowed suggestions", func(s string) bool {
		return strings.Contains(s, "Fix the parser") && !strings.Contains(s, "Faster start")
	})
	pane.keys("Tab")
	pane.waitFor("the completed issue", func(s string) bool {
		return strings.Contains(s, "see #12") && !strings.Contains(s, "Fix the parser")
	})
	// Elsewhere pi-go's own completion: the slash commands.
	pane.keys("C-u")
	pane.keys("-l", "/mod")
	pane.waitFor("pi-go's command suggestions", func(s string) bool { return strings.Contains(s, "model") && strings.Contains(s, "Select model") })
}
