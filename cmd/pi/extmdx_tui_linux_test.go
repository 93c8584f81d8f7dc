package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// mdxPythonExtension is an executable extension (the protocol spoken directly) whose markdown
// transformer writes "(c)" as "©" in the user's messages.
const mdxPythonExtension = `#!/usr/bin/env python3
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "init":
        send({"type": "register", "protocol": 2, "name": "copyright", "markdownTransformer": {"messageTypes": ["user"]}})
    elif m["type"] == "transform_markdown":
        send({"type": "result", "id": m["id"], "result": {"markdown": m["markdown"].replace("(c)", "\u00a9")}})
    elif m["type"] == "shutdown":
        break
`

// pi 1.6's registerMarkdownTransformer in pi-go's terminal, with pi's own runner: a chain whose
// first transformer throws, an arrow transformer that treats streaming text differently from the
// final text, and an executable extension's transformer for the user's messages. The display
// changes; the session file keeps the original; a resumed session shows the restored messages
// transformed.
func TestMarkdownTransformersInTheTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	pi := findPiExamples(t, testPiVersion)
	p := newProject(t)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	dir := t.TempDir()
	write := func(name, src string, mode os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	throws := write("throws.ts", `export default function (pi) {
	pi.registerMarkdownTransformer(() => { throw new Error("transformer down"); });
}
`, 0o644)
	arrows := write("arrows.ts", `export default function (pi) {
	pi.registerMarkdownTransformer((md, { isStreaming, messageId }) =>
		isStreaming ? md.replaceAll("-->", "~>") : md.replaceAll("-->", "→") + (messageId ? " (restored)" : ""));
}
`, 0o644)
	copyright := write("copyright", mdxPythonExtension, 0o755)
	args := append(p.baseArgs(), "--tui-mode", "regular", "-e", throws, "-e", arrows, "-e", copyright)

	// The answer streams in two steps: the test holds the second until it saw the first.
	c := openaitest.NewChunks("test-model")
	gate := make(chan struct{}, 8)
	for range 2 {
		gate <- struct{}{} // role, then the first text; the rest waits
	}
	p.server.Enqueue(openaitest.Response{Gate: gate, Events: []string{c.Role(), c.Text("alpha --> beta"),
		c.Text("\n\ngamma --> delta"), c.Finish("stop"), c.Usage(10, 2, 0), openaitest.Done()}})
	pane := startTmuxPi(t, p, args...)
	pane.waitFor("the editor", func(s string) bool { return strings.Contains(s, "test-model") })
	pane.keys("-l", "made by (c) us")
	pane.keys("Enter")
	screen := pane.waitFor("the streaming transform", func(s string) bool {
		return strings.Contains(s, "made by © us") && strings.Contains(s, "alpha ~> beta")
	})
	if strings.Contains(screen, "gamma") {
		t.Fatalf("the gate let the rest through:\n%s", screen)
	}
	for range 4 {
		gate <- struct{}{}
	}
	screen = pane.waitFor("the final transform", func(s string) bool {
		return strings.Contains(s, "alpha → beta") && strings.Contains(s, "gamma → delta")
	})
	if strings.Contains(screen, "~>") || strings.Contains(screen, "-->") || strings.Contains(screen, "(c)") {
		t.Fatalf("untransformed or streaming text left on the screen:\n%s", screen)
	}

	// Display only: the session keeps what was said.
	var data []byte
	tick := time.NewTicker(20 * time.Millisecond) // the file has no event to wait for: polled as the pane is
	defer tick.Stop()
	for deadline := time.Now().Add(20 * time.Second); ; <-tick.C {
		files, _ := filepath.Glob(filepath.Join(p.agentDir, "sessions", "*", "*.jsonl"))
		if len(files) == 1 {
			data, _ = os.ReadFile(files[0])
			if strings.Contains(string(data), "gamma --> delta") {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session file does not have the answer: %v\n%s", files, data)
		}
	}
	if s := string(data); !strings.Contains(s, "made by (c) us") || strings.Contains(s, "→") || strings.Contains(s, "©") || strings.Contains(s, "~>") {
		t.Fatalf("the session file has the display's text:\n%s", s)
	}

	// Resumed (after this pi-go exits: one writer per session file): the restored messages go
	// through the transformers, with their session entries.
	pane.keys("C-d")
	pane.awaitExit("on Ctrl+D")
	resumed := startTmuxPi(t, p, append(args, "-c")...)
	screen = resumed.waitFor("the restored transcript transformed", func(s string) bool {
		return strings.Contains(s, "made by © us") && strings.Contains(s, "alpha → beta") && strings.Contains(s, "gamma → delta (restored)")
	})
	if strings.Contains(screen, "-->") || strings.Contains(screen, "(c)") {
		t.Fatalf("untransformed text left after resuming:\n%s", screen)
	}
}
