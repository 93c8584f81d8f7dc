package extensions

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeMarkdownExtension registers a markdown transformer for assistant and custom text: "-->"
// becomes "→", "boom" fails the call, and the context comes back after "|" when the text asks for
// it. The command "mdx-summary" moves the transformer to the summaries (a registration after the
// start); "mdx-again" registers again with the transformer on custom messages only.
func fakeMarkdownExtension() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := json.NewEncoder(os.Stdout)
	send := func(v any) { _ = out.Encode(v) }
	in.Scan() // init
	commands := []any{map[string]any{"name": "mdx-summary"}, map[string]any{"name": "mdx-again"}}
	send(map[string]any{"type": "register", "protocol": 2, "name": "md",
		"commands":            commands,
		"markdownTransformer": map[string]any{"messageTypes": []string{"assistant", "custom"}}})
	for in.Scan() {
		var m struct {
			Type     string          `json:"type"`
			ID       json.RawMessage `json:"id"`
			Name     string          `json:"name"`
			Markdown string          `json:"markdown"`
			Context  json.RawMessage `json:"context"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		switch m.Type {
		case "transform_markdown":
			switch {
			case strings.Contains(m.Markdown, "boom"):
				send(map[string]any{"type": "result", "id": m.ID, "error": "boom"})
			case strings.Contains(m.Markdown, "context?"):
				send(map[string]any{"type": "result", "id": m.ID, "result": map[string]any{"markdown": m.Markdown + "|" + string(m.Context)}})
			default:
				send(map[string]any{"type": "result", "id": m.ID, "result": map[string]any{"markdown": strings.ReplaceAll(m.Markdown, "-->", "→")}})
			}
		case "run_command":
			if m.Name == "mdx-again" {
				// A later register with another transformer (the sidecar's after a reload).
				send(map[string]any{"type": "register", "protocol": 2, "name": "md", "commands": commands,
					"markdownTransformer": map[string]any{"messageTypes": []string{"custom"}}})
			} else {
				send(map[string]any{"type": "request", "method": "markdownTransformer", "params": map[string]any{"messageTypes": []string{"summary"}}})
			}
			send(map[string]any{"type": "result", "id": m.ID, "result": nil})
		case "shutdown":
			return
		}
	}
}

func TestMarkdownTransformerExecutable(t *testing.T) {
	changed := make(chan []string, 1)
	h, log := fakeHost(t, "markdown", Config{OnMarkdownTransformers: func(types []string) { changed <- types }})
	ctx := context.Background()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.MarkdownTransformers(); !slices.Equal(got, []string{"assistant", "custom"}) {
		t.Fatalf("surfaces: %v", got)
	}
	got, err := h.TransformMarkdown(ctx, "a --> b", MarkdownContext{MessageType: "assistant", AvailableWidth: 80})
	if err != nil || got != "a → b" {
		t.Fatalf("assistant: %q, %v", got, err)
	}
	// A surface the transformer did not register is not asked about.
	if got, err := h.TransformMarkdown(ctx, "a --> b", MarkdownContext{MessageType: "user"}); err != nil || got != "a --> b" {
		t.Fatalf("user: %q, %v", got, err)
	}
	// A failing transformer keeps the markdown it was given and says why.
	if got, err := h.TransformMarkdown(ctx, "boom --> x", MarkdownContext{MessageType: "custom"}); err == nil || got != "boom --> x" {
		t.Fatalf("failing: %q, %v", got, err)
	}
	got, _ = h.TransformMarkdown(ctx, "context?", MarkdownContext{MessageType: "assistant", IsStreaming: true, AvailableWidth: 42,
		MessageID: "ab12cd34", Timestamp: "2026-01-02T03:04:05.000Z"})
	want := `context?|{"messageType":"assistant","isStreaming":true,"availableWidth":42,"messageId":"ab12cd34","timestamp":"2026-01-02T03:04:05.000Z"}`
	if got != want {
		t.Fatalf("context:\n got %s\nwant %s", got, want)
	}
	// Registered again after the start: the new surfaces replace the old ones.
	if _, err := h.RunCommand(ctx, "mdx-summary", ""); err != nil {
		t.Fatal(err)
	}
	if types := awaitSurfaces(t, changed); !slices.Equal(types, []string{"summary"}) {
		t.Fatalf("after re-registering: %v", types)
	}
	if got, _ := h.TransformMarkdown(ctx, "a --> b", MarkdownContext{MessageType: "assistant"}); got != "a --> b" {
		t.Fatalf("assistant after moving to summaries: %q", got)
	}
	if got, _ := h.TransformMarkdown(ctx, "a --> b", MarkdownContext{MessageType: "summary"}); got != "a → b" {
		t.Fatalf("summary: %q", got)
	}
	// A later register that carries another transformer is one too.
	if _, err := h.RunCommand(ctx, "mdx-again", ""); err != nil {
		t.Fatal(err)
	}
	if types := awaitSurfaces(t, changed); !slices.Equal(types, []string{"custom"}) {
		t.Fatalf("after registering again: %v", types)
	}
	if s := log.text(); s != "" {
		t.Fatalf("errors: %s", s)
	}
}

func TestMarkdownTransformerNoneAsksNothing(t *testing.T) {
	h, _ := fakeHost(t, "ok", Config{})
	if err := h.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := h.MarkdownTransformers(); got != nil {
		t.Fatalf("surfaces without a transformer: %v", got)
	}
	// "ok" would not answer transform_markdown: a call would hang until the deadline.
	if got, err := h.TransformMarkdown(context.Background(), "x --> y", MarkdownContext{MessageType: "assistant"}); err != nil || got != "x --> y" {
		t.Fatalf("%q, %v", got, err)
	}
}

// The sidecar chains pi's own transformers (pi 1.6's runner) in load order: a throwing one keeps
// the markdown so far, one that returns no string is skipped, each runs only on its messageTypes,
// registering again replaces an extension's transformer, and one registered by a handler after the
// start reaches pi-go.
func TestMarkdownTransformerSidecar(t *testing.T) {
	pi := findPi(t, "1.6.0")
	changed := make(chan []string, 4)
	h, log, _ := sidecarHost(t, pi, "tui", map[string]string{
		"1-throws.ts": `export default function (pi) {
	pi.registerMarkdownTransformer((md) => { if (md.includes("boom")) throw new Error("boom"); return md + " [1]"; });
}`,
		"2-arrow.ts": `export default function (pi) {
	pi.registerMarkdownTransformer((md) => md.replaceAll("-->", "X"));
	// Registering again replaces it.
	pi.registerMarkdownTransformer((md, c) => c.isStreaming ? md : md.replaceAll("-->", "→"));
}`,
		"3-custom.ts": `export default function (pi) {
	pi.registerMarkdownTransformer((md, c) => md + " [custom " + JSON.stringify(c) + "]", { messageTypes: ["custom"] });
}`,
		"4-nostring.ts": `export default function (pi) {
	pi.registerMarkdownTransformer(() => 42);
	pi.registerCommand("mdx-summary", { handler: async () => {
		pi.registerMarkdownTransformer((md) => md.toUpperCase(), { messageTypes: ["summary", "assistant"] });
	} });
}`,
	})
	ctx := context.Background()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	h.cfg.OnMarkdownTransformers = func(types []string) { changed <- types }
	if got := h.MarkdownTransformers(); !slices.Equal(got, []string{"assistant", "assistant-thinking", "custom", "user"}) {
		t.Fatalf("surfaces: %v", got)
	}
	tr := func(md string, c MarkdownContext) string {
		t.Helper()
		out, err := h.TransformMarkdown(ctx, md, c)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := tr("a --> b", MarkdownContext{MessageType: "assistant", AvailableWidth: 80}); got != "a → b [1]" {
		t.Fatalf("assistant: %q", got)
	}
	if got := tr("a --> b", MarkdownContext{MessageType: "assistant", IsStreaming: true}); got != "a --> b [1]" {
		t.Fatalf("streaming: %q", got)
	}
	if got := tr("boom -->", MarkdownContext{MessageType: "user"}); got != "boom →" {
		t.Fatalf("after a throwing transformer: %q", got)
	}
	want := `x --> [custom {"messageType":"custom","isStreaming":false,"availableWidth":7,"messageId":"e1","timestamp":"2026-01-02T03:04:05.000Z"}]`
	if got := tr("x -->", MarkdownContext{MessageType: "custom", AvailableWidth: 7, MessageID: "e1", Timestamp: "2026-01-02T03:04:05.000Z"}); got != want {
		t.Fatalf("custom:\n got %s\nwant %s", got, want)
	}
	if got := tr("s -->", MarkdownContext{MessageType: "summary"}); got != "s -->" {
		t.Fatalf("summary before: %q", got)
	}
	if _, err := h.RunCommand(ctx, "mdx-summary", ""); err != nil {
		t.Fatal(err)
	}
	if types := awaitSurfaces(t, changed); !slices.Equal(types, []string{"assistant", "assistant-thinking", "custom", "summary", "user"}) {
		t.Fatalf("after registering in a command: %v", types)
	}
	if got := tr("s -->", MarkdownContext{MessageType: "summary"}); got != "S -->" {
		t.Fatalf("summary after: %q", got)
	}
	if got := tr("a --> b", MarkdownContext{MessageType: "assistant"}); got != "A → B [1]" {
		t.Fatalf("assistant after: %q", got)
	}
	if s := log.text(); s != "" {
		t.Fatalf("errors: %s", s)
	}
}

// BenchmarkTransformMarkdown is one transform of a 2 KB answer, pi-go to the extension and back: a
// protocol process (the test binary) and pi 1.6's runner in the Node sidecar. This is the wait the
// TUI never does: it draws the stand-in and the answer after.
func BenchmarkTransformMarkdown(b *testing.B) {
	text := strings.Repeat("A paragraph --> with an arrow and `code`.\n\n", 48)
	run := func(b *testing.B, h *Host) {
		ctx := context.Background()
		if err := h.Wait(ctx); err != nil || len(h.MarkdownTransformers()) == 0 {
			b.Fatalf("start: %v %v", err, h.MarkdownTransformers())
		}
		c := MarkdownContext{MessageType: "assistant", AvailableWidth: 118}
		for range 50 { // warm up (the sidecar's JIT)
			_, _ = h.TransformMarkdown(ctx, text, c)
		}
		durations := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for range b.N {
			start := time.Now()
			if out, err := h.TransformMarkdown(ctx, text, c); err != nil || strings.Contains(out, "-->") {
				b.Fatalf("%v %.40q", err, out)
			}
			durations = append(durations, time.Since(start))
		}
		b.StopTimer()
		slices.Sort(durations)
		b.ReportMetric(float64(durations[len(durations)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds()), "p99-µs")
	}
	b.Run("process", func(b *testing.B) {
		h := fakeProcessHost(b, "markdown")
		defer h.Close()
		run(b, h)
	})
	b.Run("sidecar-pi-1.6.0", func(b *testing.B) {
		pi := findPi(b, "1.6.0")
		dir := b.TempDir()
		ext := dir + "/arrows.ts"
		if err := os.WriteFile(ext, []byte(`export default function (pi) {
	pi.registerMarkdownTransformer((md) => md.replaceAll("-->", "→"));
}
`), 0o644); err != nil {
			b.Fatal(err)
		}
		script, err := writeScript(dir + "/cache")
		if err != nil {
			b.Fatal(err)
		}
		h := New(Config{Cwd: dir, AgentDir: dir, Mode: "tui",
			Sidecar: &Sidecar{Node: pi.node, Script: script, Package: pi.pkg, Extensions: []string{ext}}})
		h.Start()
		defer h.Close()
		run(b, h)
	})
}

// awaitSurfaces is the next surface list reported to OnMarkdownTransformers; a report that never
// comes fails the test instead of hanging it.
func awaitSurfaces(t *testing.T, changed <-chan []string) []string {
	t.Helper()
	select {
	case types := <-changed:
		return types
	case <-time.After(30 * time.Second):
		t.Fatal("no change of the transformers' surfaces was reported")
		return nil
	}
}
