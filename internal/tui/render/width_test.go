package render

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Hostile content: long unbroken paths, wide characters, emoji, tabs, control characters, ANSI.
var (
	hostilePath = "/home/user/" + strings.Repeat("a-really-long-directory-name/", 8) + "file_with_a_long_name.go"
	hostileText = "tab\there\tand\tthere 日本語のテキスト😀😀😀 " + strings.Repeat("W", 150) + " \x1b[31mred\x1b[0m \x07bell\r\n" +
		"second line\twith\ttabs and ｆｕｌｌｗｉｄｔｈ"
	hostileModel = "org/" + strings.Repeat("very-long-model-name-", 6) + "日本語"
)

func hostileBlocks(r *Renderer, w int) map[string][]string {
	exit := 2
	res := textResult(hostileText+"\n"+hostileText, map[string]any{"diff": "-1 " + hostileText + "\n+1 " + hostileText + "x\n 2 \tctx", "firstChangedLine": 1})
	blocks := map[string][]string{
		"user":      r.UserText(hostileText, w),
		"assistant": r.AssistantMessage(&provider.AssistantMessage{Content: []provider.Content{{Type: provider.ContentThinking, Thinking: hostileText}, provider.TextContent("# " + hostileText + "\n\n```go\n" + hostileText + "\n```\n\n- " + hostileText)}, StopReason: provider.StopReasonError, ErrorMessage: hostileText}, AssistantOptions{}, w),
		"bashexec":  r.BashExecution(BashView{Command: hostileText, Output: hostileText, ExitCode: &exit, Truncated: true, FullOutputPath: hostilePath}, w),
		"bashrun":   r.BashExecution(BashView{Command: hostileText, Output: hostileText, Running: true}, w),
		"compact":   r.CompactionSummary(&provider.CompactionSummaryMessage{Summary: hostileText, TokensBefore: 1e9}, true, w),
		"branch":    r.BranchSummary(&provider.BranchSummaryMessage{Summary: hostileText}, false, w),
		"notices":   append(r.ErrorNotice(hostileText, w), r.TurnSeparator(hostileText, w)...),
		"queued":    r.Queued([]string{hostileText}, []string{hostileText}, w),
		"header":    r.Header(HeaderInfo{Version: hostileText, Demo: true, DemoHint: hostileText}, w),
		"status":    r.StatusLine(Status{Activity: RunningTool, Tool: hostileText, Elapsed: time.Hour}, w),
		"footer": r.Footer(FooterInfo{Cwd: hostilePath, GitBranch: hostileText, SessionName: hostileText, Input: 1, Output: 2,
			ContextPercent: 50, ContextWindow: 1, Model: hostileModel, Provider: hostileText, ProviderCount: 2, Reasoning: true, ThinkingLevel: "high"}, w),
		"editor": {r.EditorBorder("high", false, w)},
		"diff":   r.Diff("-1 "+hostileText+"\n+1 "+hostileText+"!", w),
	}
	for _, name := range []string{"bash", "read", "write", "edit", "ls", "find", "grep", "custom_tool"} {
		a, _ := json.Marshal(map[string]any{"command": hostileText, "path": hostilePath, "content": hostileText + "\n" + hostileText,
			"pattern": hostileText, "glob": hostileText, "limit": 5, "offset": 3, "timeout": 9})
		for _, expanded := range []bool{false, true} {
			blocks["tool_"+name] = append(blocks["tool_"+name], r.Tool(ToolView{Name: name, Args: a, Status: ToolDone, Result: res, Expanded: expanded, Elapsed: time.Second}, w)...)
		}
		blocks["tool_"+name+"_error"] = r.Tool(ToolView{Name: name, Args: a, Status: ToolDone, IsError: true, Result: res}, w)
	}
	return blocks
}

func TestNoLineWiderThanTheTerminal(t *testing.T) {
	r := newGoldenRenderer()
	widths := []int{}
	for w := 1; w <= 12; w++ {
		widths = append(widths, w)
	}
	widths = append(widths, 17, 24, 47, 80, 97, 131)
	for _, w := range widths {
		for name, lines := range hostileBlocks(r, w) {
			for i, l := range lines {
				if got := Width(l); got > w {
					t.Fatalf("%s at width %d: line %d is %d cells: %q", name, w, i, got, l)
				}
			}
			assertClosed(t, lines)
		}
	}
}

// Tool boxes and user messages fill the whole width with their background.
func TestBoxesFillTheWidth(t *testing.T) {
	r := newGoldenRenderer()
	for _, w := range []int{20, 80, 120} {
		lines := r.Tool(ToolView{Name: "bash", Args: json.RawMessage(`{"command":"echo 日本語"}`), Status: ToolDone, Result: textResult("日本語\tx", nil)}, w)
		for i, l := range lines[1:] {
			if Width(l) != w {
				t.Fatalf("width %d: tool line %d is %d cells: %q", w, i+1, Width(l), l)
			}
		}
	}
}

func TestWrapKeepsStylesPerLine(t *testing.T) {
	r := newGoldenRenderer()
	s := r.th.Fg(errorKey(), strings.Repeat("word ", 30))
	lines := wrap(s, 20)
	if len(lines) < 5 {
		t.Fatalf("not wrapped: %q", lines)
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, r.th.FgSeq(errorKey())) {
			t.Fatalf("line %d lost its colour: %q", i, l)
		}
		if Width(l) > 20 {
			t.Fatalf("line %d too wide: %q", i, l)
		}
	}
	assertClosed(t, lines)
}

func TestCleanOutput(t *testing.T) {
	got := cleanOutput("a\tb\r\n\x1b[1mbold\x1b[0m\x07\x00 ok\u0085 ü \xff")
	if want := "a   b\nbold ok ü "; got != want {
		t.Fatalf("cleanOutput = %q, want %q", got, want)
	}
}

func TestTrimRight(t *testing.T) {
	for in, want := range map[string]string{
		"abc   ":                               "abc",
		"\x1b[31mabc\x1b[0m\x1b[31m \x1b[0m  ": "\x1b[31mabc\x1b[0m",
		"   ":                                  "",
		"\x1b[1m  \x1b[0m":                     "",
		"a \x1b[1mb\x1b[0m":                    "a \x1b[1mb" + "\x1b[0m",
	} {
		if got := trimRight(in); got != want {
			t.Errorf("trimRight(%q) = %q, want %q", in, got, want)
		}
	}
}

// Details may arrive as a Go struct from a live tool or as a map from a session file.
func TestDetailsFromStructAndMap(t *testing.T) {
	type trunc struct {
		Truncated   bool    `json:"truncated"`
		TruncatedBy *string `json:"truncatedBy"`
		OutputLines int     `json:"outputLines"`
		TotalLines  int     `json:"totalLines"`
	}
	by := "lines"
	live := struct {
		Truncation     *trunc `json:"truncation"`
		FullOutputPath string `json:"fullOutputPath"`
	}{&trunc{true, &by, 10, 50}, "/tmp/out.log"}
	stored := map[string]any{"truncation": map[string]any{"truncated": true, "truncatedBy": "lines", "outputLines": 10, "totalLines": 50}, "fullOutputPath": "/tmp/out.log"}
	r := newGoldenRenderer()
	var outs []string
	for _, d := range []any{live, stored, json.RawMessage(`{"truncation":{"truncated":true,"truncatedBy":"lines","outputLines":10,"totalLines":50},"fullOutputPath":"/tmp/out.log"}`)} {
		outs = append(outs, plain(r.Tool(ToolView{Name: "bash", Args: json.RawMessage(`{"command":"x"}`), Status: ToolDone, Result: &loop.ToolResult{Content: []provider.Content{provider.TextContent("out")}, Details: d}}, 80)))
	}
	if outs[0] != outs[1] || outs[1] != outs[2] || !strings.Contains(outs[0], "[Full output: /tmp/out.log. Truncated: showing 10 of 50 lines]") {
		t.Fatalf("details rendered differently:\n%s\n%s\n%s", outs[0], outs[1], outs[2])
	}
}

func TestImageSizes(t *testing.T) {
	if w, h, ok := imageSize(pngData(), "image/png"); !ok || w != 640 || h != 480 {
		t.Fatalf("png: %d %d %v", w, h, ok)
	}
	gif := []byte("GIF89a\x20\x03\x58\x02")
	if w, h, ok := imageSize(b64(gif), "image/gif"); !ok || w != 800 || h != 600 {
		t.Fatalf("gif: %d %d %v", w, h, ok)
	}
	jpeg := []byte{0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 17, 8, 0x01, 0x2c, 0x01, 0x90, 3, 0, 0, 0, 0, 0, 0}
	if w, h, ok := imageSize(b64(jpeg), "image/jpeg"); !ok || w != 400 || h != 300 {
		t.Fatalf("jpeg: %d %d %v", w, h, ok)
	}
	webp := append([]byte("RIFF\x00\x00\x00\x00WEBPVP8X"), make([]byte, 14)...)
	webp[24], webp[27] = 99, 49 // 100x50
	if w, h, ok := imageSize(b64(webp), "image/webp"); !ok || w != 100 || h != 50 {
		t.Fatalf("webp: %d %d %v", w, h, ok)
	}
	if got := imagePlaceholder(provider.ImageContent("bm90IGFuIGltYWdl", "image/png")); got != "[Image: [image/png]]" {
		t.Fatalf("unreadable image: %q", got)
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// The collapsed bash preview counts hidden visual lines without wrapping them; the count must be
// what wrapping everything gives.
func TestBashPreviewCountsVisualLines(t *testing.T) {
	r := newGoldenRenderer()
	output := strings.Join([]string{"short", hostileText, strings.Repeat("x", 200), "tab\tline", "", "日本語 " + strings.Repeat("語", 90), "a", "b", "c"}, "\n")
	for _, w := range []int{10, 37, 80} {
		all := r.styledLines(strings.Split(cleanOutput(output), "\n"), 0, w)
		got := r.lastVisualLines(output, 5, w)
		want := "... (" + itoa(len(all)-5) + " earlier lines, ctrl+o to expand)"
		if p := plain(got[:1]); !strings.HasPrefix(want, strings.TrimSuffix(strings.TrimSuffix(p, "\n"), "...")) {
			t.Fatalf("width %d: hint %q, want %q", w, p, want)
		}
		if strings.Join(stripAll(got[1:]), "\n") != strings.Join(stripAll(all[len(all)-5:]), "\n") {
			t.Fatalf("width %d: tail lines differ:\n%q\n%q", w, stripAll(got[1:]), stripAll(all[len(all)-5:]))
		}
	}
}

func TestOtherThemesAndProfilesFit(t *testing.T) {
	for _, th := range []*theme.Theme{theme.Light(termenv.TrueColor), theme.Dark(termenv.ANSI), theme.Dark(termenv.Ascii)} {
		r := New(Options{Theme: th, Home: "/home/user"})
		for _, w := range []int{1, 7, 40, 100} {
			for name, lines := range hostileBlocks(r, w) {
				assertFits(t, lines, w)
				assertClosed(t, lines)
				if th.Profile() == termenv.Ascii {
					for _, l := range lines {
						if strings.Contains(l, "\x1b[38;") || strings.Contains(l, "\x1b[48;") {
							t.Fatalf("%s: colour in an Ascii profile line: %q", name, l)
						}
					}
				}
			}
		}
	}
}
