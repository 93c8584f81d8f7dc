package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// growth is text appended to an answer, one byte per delta: paragraphs of about 300 bytes, so the
// unfinished tail stays as short as it is in a real answer.
func growth(n int) string {
	var b strings.Builder
	para := "The streaming tail of a long answer keeps growing one delta at a time while the model " +
		"explains what it found, mentions `identifiers` and **emphasis**, and wraps across a few " +
		"lines at eighty columns before the paragraph ends and a new one begins with a blank line.\n\n"
	for b.Len() < n {
		b.WriteString(para)
	}
	return b.String()
}

// BenchmarkStreamDelta measures what one delta costs an answer of 500 or 5,000 lines that is being
// streamed: the message snapshot grows by one byte, the assistant stream takes it, hands newly
// finished blocks to the scrollback (Flush) and renders the live part (Live). The cost must not
// depend on the answer's length.
func BenchmarkStreamDelta(b *testing.B) {
	for _, lines := range []int{500, 5000} {
		b.Run("lines="+itoa(lines), func(b *testing.B) {
			r := newGoldenRenderer()
			base := longAnswer(lines)
			full := base + growth(b.N+1)
			s := r.NewAssistantStream(AssistantOptions{})
			msg := func(n int) *provider.AssistantMessage {
				return &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(full[:n])}}
			}
			s.Update(msg(len(base)))
			s.Flush(120)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.Update(msg(len(base) + i + 1))
				s.Flush(120)
				_ = s.Live(120)
			}
		})
	}
}

// BenchmarkStreamDeltaCode is BenchmarkStreamDelta while the answer streams a long code block: the
// open block is shown uncoloured and cut into chunks, so the cost stays flat too.
func BenchmarkStreamDeltaCode(b *testing.B) {
	for _, lines := range []int{500, 5000} {
		b.Run("lines="+itoa(lines), func(b *testing.B) {
			r := newGoldenRenderer()
			base := longAnswer(lines) + "```go\n"
			var code strings.Builder
			for code.Len() < b.N+1 {
				code.WriteString("\tresult := compute(input, options) // one more line of code\n")
			}
			full := base + code.String()
			s := r.NewAssistantStream(AssistantOptions{})
			msg := func(n int) *provider.AssistantMessage {
				return &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(full[:n])}}
			}
			s.Update(msg(len(base)))
			s.Flush(120)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.Update(msg(len(base) + i + 1))
				s.Flush(120)
				_ = s.Live(120)
			}
		})
	}
}

// BenchmarkStreamDeltaNoFlush is the same without printing finished blocks to the scrollback: every
// frame shows the whole message, finished blocks come from the cache, so the cost grows with the
// number of blocks (kept for comparison: the TUI flushes).
func BenchmarkStreamDeltaNoFlush(b *testing.B) {
	for _, lines := range []int{500, 5000} {
		b.Run("lines="+itoa(lines), func(b *testing.B) {
			md := newTestMarkdown()
			base := longAnswer(lines)
			full := base + growth(b.N+1)
			s := md.NewStream()
			s.Set(base)
			_ = s.Lines(120)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.Set(full[:len(base)+i+1])
				_ = s.Lines(120)
			}
		})
	}
}

// BenchmarkMarkdownBlock measures rendering one block (parse and layout) and taking it from the
// cache; and highlighting a 40-line chunk of Go, the most a streamed code block renders at once.
func BenchmarkMarkdownBlock(b *testing.B) {
	th := theme.Dark(termenv.ANSI256)
	block := "This paragraph explains a step in some detail, with `code`, **bold** words and a\n" +
		"second source line so that wrapping has something to do at eighty columns."
	b.Run("new_markdown", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			NewMarkdown(th, theme.MarkdownText)
		}
	})
	b.Run("block_uncached", func(b *testing.B) {
		md := NewMarkdown(th, theme.MarkdownText)
		md.Block("warm", 118)
		b.ReportAllocs()
		for b.Loop() {
			md.mu.Lock()
			_ = md.render(block, 0, 118)
			md.mu.Unlock()
		}
	})
	b.Run("block_cached", func(b *testing.B) {
		md := NewMarkdown(th, theme.MarkdownText)
		md.Block(block, 118)
		b.ReportAllocs()
		for b.Loop() {
			_ = md.Block(block, 118)
		}
	})
	b.Run("highlight_go_40_lines", func(b *testing.B) {
		var code strings.Builder
		for i := range 40 {
			fmt.Fprintf(&code, "\tif err := step%d(ctx, \"name\", 0x%x); err != nil { // check\n\t\treturn fmt.Errorf(\"step: %%w\", err)\n\t}\n", i, i)
		}
		src := code.String()
		highlightCode(th, src, "go")
		b.ReportAllocs()
		for b.Loop() {
			_ = highlightCode(th, src, "go")
		}
	})
}

// BenchmarkLiveFrame measures one frame of the live region at 120 columns: the status line, two
// queued messages, the editor (its borders around three lines of text) and the footer; and the same
// with a running bash tool showing partial output.
func BenchmarkLiveFrame(b *testing.B) {
	r := newGoldenRenderer()
	footer := FooterInfo{Cwd: "/home/user/src/pi-go", GitBranch: "main", SessionName: "refactor", Input: 123456,
		Output: 23456, CacheRead: 1200000, Cost: 0.4321, ContextPercent: 42.5, ContextWindow: 128000, AutoCompact: true,
		Model: "gpt-4o-mini", Provider: "openai", ProviderCount: 2, Reasoning: true, ThinkingLevel: "medium"}
	editor := []string{"fix the failing test in pkg/foo", "and explain why it failed", ""}
	frame := func(extra []string) []string {
		out := append([]string(nil), extra...)
		out = append(out, r.StatusLine(Status{Activity: Thinking, Elapsed: 12345 * time.Millisecond}, 120)...)
		out = append(out, r.Queued([]string{"also check the README"}, []string{"then run the linter"}, 120)...)
		out = append(out, r.EditorBorder("medium", false, 120))
		out = append(out, editor...)
		out = append(out, r.EditorBorder("medium", false, 120))
		return append(out, r.Footer(footer, 120)...)
	}
	b.Run("status+queued+editor+footer", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = strings.Join(frame(nil), "\n")
		}
	})
	b.Run("with_running_bash", func(b *testing.B) {
		args := json.RawMessage(`{"command":"go test ./... -run TestSomething","timeout":120}`)
		out := numbered(200, "=== RUN   TestSomething/case_%d\n--- PASS: TestSomething (0.00s)")
		// Like the bash tool's details once the output passed 50 KB: the truncation carries the content.
		res := textResult(out, map[string]any{"fullOutputPath": "/tmp/pi-bash-0123456789abcdef.log",
			"truncation": map[string]any{"content": strings.Repeat(out, 4), "truncated": true, "truncatedBy": "bytes",
				"totalLines": 5000, "outputLines": 400, "maxBytes": 51200}})
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			tool := r.Tool(ToolView{Name: "bash", Args: args, Status: ToolRunning, Result: res, Elapsed: 3 * time.Second}, 120)
			_ = strings.Join(frame(tool), "\n")
		}
	})
}

// BenchmarkNew: building the Renderer, which the TUI does before its first frame.
func BenchmarkNew(b *testing.B) {
	th := theme.Dark(termenv.TrueColor)
	b.ReportAllocs()
	for b.Loop() {
		New(Options{Theme: th})
	}
}
