package render

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

func textResult(text string, details any) *loop.ToolResult {
	return &loop.ToolResult{Content: []provider.Content{provider.TextContent(text)}, Details: details}
}

func numbered(n int, format string) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf(format, i+1)
	}
	return strings.Join(lines, "\n")
}

func args(v map[string]any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// pngData is a 640x480 PNG header, enough for the size to be read.
func pngData() string {
	b := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 2, 0x80, 0, 0, 1, 0xe0, 8, 6, 0, 0, 0}
	return base64.StdEncoding.EncodeToString(b)
}

const sampleAnswer = "Here is the plan:\n\n1. Read `main.go`\n2. Fix the **bug**\n\n" +
	"```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n\n> Note: run the tests afterwards.\n\n" +
	"| file | change |\n|---|---|\n| main.go | fix |\n\nDone."

const sampleDiff = "  8 import \"fmt\"\n  9 \n-10 func greet() string { return \"hello\" }\n+10 func greet() string { return \"hello, world\" }\n 11 \n+12 // added line\n    ...\n 40 func main() {\n-41 \tfmt.Println(greet())\n-42 \treturn\n+41 \tfmt.Println(greet(), 1)"

func TestGoldenMessages(t *testing.T) {
	exit1 := 1
	runGolden(t, []goldenCase{
		{"user", func(r *Renderer, w int) []string {
			return r.UserMessage(provider.NewUserMessage("Please fix the failing test in `pkg/foo` and explain *why* it failed.",
				provider.ImageContent(pngData(), "image/png")), w)
		}},
		{"user_long_word", func(r *Renderer, w int) []string {
			return r.UserText(strings.Repeat("x", 300)+" 日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語日本語", w)
		}},
		{"assistant_markdown", func(r *Renderer, w int) []string {
			return r.AssistantMessage(&provider.AssistantMessage{Content: []provider.Content{provider.TextContent(sampleAnswer)},
				StopReason: provider.StopReasonStop}, AssistantOptions{}, w)
		}},
		{"assistant_thinking", func(r *Renderer, w int) []string {
			return r.AssistantMessage(thinkingMessage(), AssistantOptions{}, w)
		}},
		{"assistant_thinking_collapsed", func(r *Renderer, w int) []string {
			return r.AssistantMessage(thinkingMessage(), AssistantOptions{HideThinking: true}, w)
		}},
		{"assistant_error", func(r *Renderer, w int) []string {
			return r.AssistantMessage(&provider.AssistantMessage{Content: []provider.Content{provider.TextContent("Partial answer")},
				StopReason: provider.StopReasonError, ErrorMessage: "429 rate limit exceeded: please retry after 20s"}, AssistantOptions{}, w)
		}},
		{"assistant_aborted", func(r *Renderer, w int) []string {
			return r.AssistantMessage(&provider.AssistantMessage{StopReason: provider.StopReasonAborted, ErrorMessage: "Request was aborted"}, AssistantOptions{}, w)
		}},
		{"bash_execution_running", func(r *Renderer, w int) []string {
			return r.BashExecution(BashView{Command: "go test ./...", Output: numbered(30, "ok  \tpkg/%d\t0.01s"), Running: true, Spinner: "⠴"}, w)
		}},
		{"bash_execution_done", func(r *Renderer, w int) []string {
			return r.BashExecution(BashViewFromMessage(&provider.BashExecutionMessage{Command: "make lint", Output: numbered(25, "warning %d: \x1b[31mred\x1b[0m text\r"),
				ExitCode: &exit1, Truncated: true, FullOutputPath: "/tmp/pi-bash-0123456789abcdef.log"}), w)
		}},
		{"bash_execution_excluded_cancelled", func(r *Renderer, w int) []string {
			return r.BashExecution(BashView{Command: "sleep 100", Cancelled: true, ExcludeFromContext: true}, w)
		}},
		{"compaction_collapsed", func(r *Renderer, w int) []string {
			return r.CompactionSummary(&provider.CompactionSummaryMessage{Summary: "## Goal\n\nFix the tests.", TokensBefore: 123456}, false, w)
		}},
		{"compaction_expanded", func(r *Renderer, w int) []string {
			return r.CompactionSummary(&provider.CompactionSummaryMessage{Summary: "## Goal\n\nFix the tests.\n\n- done: read files\n- todo: edit", TokensBefore: 123456}, true, w)
		}},
		{"branch_collapsed", func(r *Renderer, w int) []string {
			return r.BranchSummary(&provider.BranchSummaryMessage{Summary: "Tried approach A."}, false, w)
		}},
		{"branch_expanded", func(r *Renderer, w int) []string {
			return r.BranchSummary(&provider.BranchSummaryMessage{Summary: "Tried approach A; it failed because of **X**."}, true, w)
		}},
		{"custom_message", func(r *Renderer, w int) []string {
			return r.CustomMessage(&provider.CustomMessage{CustomType: "reminder", Display: true, Content: []provider.Content{provider.TextContent("Remember to *commit*.")}}, w)
		}},
		{"notices", func(r *Renderer, w int) []string {
			out := r.StatusNotice("Model: gpt-4o-mini", w)
			out = append(out, r.WarningNotice("A bash command is already running. Press Esc to cancel it first.", w)...)
			out = append(out, r.ErrorNotice("Retry failed after 3 attempts: 503 Service Unavailable", w)...)
			out = append(out, r.ErrorText("Auto-compaction failed: context too small", w)...)
			return append(out, r.TurnSeparator("turn 2", w)...)
		}},
		{"queued", func(r *Renderer, w int) []string {
			return r.Queued([]string{"also check the README", "and a very long steering message " + strings.Repeat("that goes on ", 20)},
				[]string{"then run the linter\nsecond line is not shown"}, w)
		}},
	})
}

func thinkingMessage() *provider.AssistantMessage {
	return &provider.AssistantMessage{Content: []provider.Content{
		{Type: provider.ContentThinking, Thinking: "The user wants a fix. I should read the file first,\nthen make the smallest change."},
		provider.TextContent("I'll read the file first."),
		provider.ToolCallContent("call_1", "read", json.RawMessage(`{"path":"main.go"}`)),
	}, StopReason: provider.StopReasonToolUse}
}

func TestGoldenTools(t *testing.T) {
	longOut := numbered(40, "line %d of the output")
	runGolden(t, []goldenCase{
		{"tool_bash_pending", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "bash", Args: json.RawMessage(`{"comm`)}, w)
		}},
		{"tool_bash_running", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "bash", Args: args(map[string]any{"command": "go test ./... -run TestX", "timeout": 60}),
				Status: ToolRunning, Result: textResult(longOut, nil), Elapsed: 1500 * time.Millisecond}, w)
		}},
		{"tool_bash_done", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "bash", Args: args(map[string]any{"command": "ls -la"}), Status: ToolDone,
				Result: textResult("total 0\nfile.go", nil), Elapsed: 200 * time.Millisecond}, w)
		}},
		{"tool_bash_expanded_truncated", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "bash", Args: args(map[string]any{"command": "cat big.log"}), Status: ToolDone, Expanded: true,
				Result: textResult(numbered(8, "log %d")+"\n\n[Showing lines 1993-2000 of 2000. Full output: /tmp/pi-bash-1.log]",
					map[string]any{"fullOutputPath": "/tmp/pi-bash-1.log", "truncation": map[string]any{"truncated": true, "truncatedBy": "lines", "outputLines": 2000, "totalLines": 5000}})}, w)
		}},
		{"tool_bash_error", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "bash", Args: args(map[string]any{"command": "false"}), Status: ToolDone, IsError: true,
				Result: textResult("(no output)\n\nCommand exited with code 1", nil)}, w)
		}},
		{"tool_bash_invalid_arg", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "bash", Args: args(map[string]any{"command": 42})}, w)
		}},
		{"tool_read", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "read", Args: args(map[string]any{"path": "/home/user/project/main.go", "offset": 10, "limit": 20}),
				Status: ToolDone, Result: textResult("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"+numbered(20, "// comment %d"), nil)}, w)
		}},
		{"tool_read_empty", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "read", Args: args(map[string]any{"path": "empty.go"}), Status: ToolDone, Result: textResult("", nil)}, w)
		}},
		{"tool_read_truncated", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "read", Args: args(map[string]any{"path": "notes.txt"}), Status: ToolDone,
				Result: textResult(numbered(3, "note %d"), map[string]any{"truncation": map[string]any{"truncated": true, "truncatedBy": "lines", "outputLines": 2000, "totalLines": 9000, "maxLines": 2000}})}, w)
		}},
		{"tool_read_image", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "read", Args: args(map[string]any{"path": "shot.png"}), Status: ToolDone,
				Result: &loop.ToolResult{Content: []provider.Content{provider.TextContent("Read image file [image/png]"), provider.ImageContent(pngData(), "image/png")}}}, w)
		}},
		{"tool_read_error", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "read", Args: args(map[string]any{"path": "missing.txt"}), Status: ToolDone, IsError: true,
				Result: textResult("ENOENT: no such file or directory, access '/home/user/project/missing.txt'", nil)}, w)
		}},
		{"tool_write", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "write", Args: args(map[string]any{"path": "hello.py", "content": "def hello():\n\tprint('hi')\n\n" + numbered(15, "x%d = 1")}),
				Status: ToolDone, Result: textResult("Successfully wrote 120 bytes to hello.py", nil)}, w)
		}},
		{"tool_write_error", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "write", Args: args(map[string]any{"path": "/etc/passwd", "content": "x"}), Status: ToolDone, IsError: true,
				Result: textResult("EACCES: permission denied, open '/etc/passwd'", nil)}, w)
		}},
		{"tool_edit", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "edit", Args: args(map[string]any{"path": "main.go", "edits": []any{map[string]any{"oldText": "a", "newText": "b"}}}),
				Status: ToolDone, Result: textResult("Successfully replaced text in main.go.", map[string]any{"diff": sampleDiff, "firstChangedLine": 10})}, w)
		}},
		{"tool_edit_error", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "edit", Args: args(map[string]any{"path": "main.go"}), Status: ToolDone, IsError: true,
				Result: textResult("Could not find the exact text in main.go. The old text must match exactly including all whitespace and newlines.", nil)}, w)
		}},
		{"tool_ls", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "ls", Args: args(map[string]any{"limit": 25}), Status: ToolDone,
				Result: textResult(numbered(25, "file%02d.go"), map[string]any{"entryLimitReached": 25})}, w)
		}},
		{"tool_find", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "find", Args: args(map[string]any{"pattern": "*.go", "path": "/home/user/project"}), Status: ToolDone,
				Result: textResult("a.go\nb/c.go", nil)}, w)
		}},
		{"tool_grep", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "grep", Args: args(map[string]any{"pattern": "TODO", "glob": "*.go", "limit": 100}), Status: ToolDone,
				Result: textResult(numbered(20, "main.go:%d: // TODO fix"), map[string]any{"matchLimitReached": 100, "linesTruncated": true,
					"truncation": map[string]any{"truncated": true, "maxBytes": 51200}})}, w)
		}},
		{"tool_generic", func(r *Renderer, w int) []string {
			return r.Tool(ToolView{Name: "web_search", Args: args(map[string]any{"query": "bubble tea", "count": 3}), Status: ToolDone,
				Result: textResult(numbered(12, "result %d"), nil)}, w)
		}},
	})
}

func TestGoldenChrome(t *testing.T) {
	runGolden(t, []goldenCase{
		{"header", func(r *Renderer, w int) []string { return r.Header(HeaderInfo{Version: "0.1.0"}, w) }},
		{"header_demo", func(r *Renderer, w int) []string { return r.Header(HeaderInfo{Version: "0.1.0", Demo: true}, w) }},
		{"footer", func(r *Renderer, w int) []string {
			return r.Footer(FooterInfo{Cwd: "/home/user/src/pi-go", GitBranch: "main", SessionName: "refactor",
				Input: 12345, Output: 2345, CacheRead: 1200000, CacheWrite: 999, Cost: 0.0425, ContextPercent: 12.34,
				ContextWindow: 128000, AutoCompact: true, Model: "gpt-4o-mini", Provider: "openai", ProviderCount: 2}, w)
		}},
		{"footer_reasoning_warning", func(r *Renderer, w int) []string {
			return r.Footer(FooterInfo{Cwd: "/srv/app", ContextPercent: 75, ContextWindow: 200000, Model: "o3-mini",
				Reasoning: true, ThinkingLevel: "high", ExtensionStatuses: map[string]string{"b": "lint ok", "a": "tests\n3 failing"}}, w)
		}},
		{"footer_unknown_context", func(r *Renderer, w int) []string {
			return r.Footer(FooterInfo{Cwd: "/home/user", ContextUnknown: true, ContextWindow: 128000, Model: "m", Reasoning: true}, w)
		}},
		{"status_lines", func(r *Renderer, w int) []string {
			var out []string
			for _, s := range []Status{
				{Activity: Working, Elapsed: 3 * time.Second, Spinner: "⠧"},
				{Activity: Thinking, Elapsed: 75 * time.Second, Spinner: "⠧"},
				{Activity: RunningTool, Tool: "bash", Tools: 1, Elapsed: 12 * time.Second},
				{Activity: RunningTool, Tools: 3, Elapsed: 80 * time.Millisecond, Spinner: "⠙"},
				{Activity: Retrying, Attempt: 2, MaxAttempts: 3, RetryIn: 3500 * time.Millisecond},
				{Activity: Compacting},
				{Activity: Compacting, CompactionReason: "overflow"},
				{Activity: Compacting, CompactionReason: "manual"},
				{Activity: Summarizing},
			} {
				out = append(out, r.StatusLine(s, w)...)
			}
			return out
		}},
	})
}

func TestReadAndWriteAreHighlighted(t *testing.T) {
	r := newGoldenRenderer()
	kw := r.th.FgSeq(syntaxKeywordKey())
	read := r.Tool(ToolView{Name: "read", Args: args(map[string]any{"path": "main.go"}), Status: ToolDone,
		Result: textResult("package main\n\nfunc main() {}", nil)}, 80)
	write := r.Tool(ToolView{Name: "write", Args: args(map[string]any{"path": "main.go", "content": "package main\n"})}, 80)
	for name, lines := range map[string][]string{"read": read, "write": write} {
		if !strings.Contains(strings.Join(lines, "\n"), kw+"package") {
			t.Errorf("%s: keyword not highlighted:\n%q", name, lines)
		}
	}
	// Unknown languages are shown in the tool output colour.
	txt := r.Tool(ToolView{Name: "read", Args: args(map[string]any{"path": "notes.unknownext"}), Status: ToolDone, Result: textResult("package main", nil)}, 80)
	if strings.Contains(strings.Join(txt, "\n"), kw) {
		t.Errorf("plain text highlighted: %q", txt)
	}
}
