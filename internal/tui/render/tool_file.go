package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// filePreviewLines is how many lines read and write show collapsed.
const filePreviewLines = 10

// defaultMaxLines is pi's output line limit, assumed when details do not say.
const defaultMaxLines = 2000

// readTool: "read <path>[:<start>-<end>]", then the file's first lines (highlighted by language) and
// pi's truncation notes.
func (r *Renderer) readTool(v ToolView, args toolArgs, d toolDetails, cw int) []string {
	head := r.title("read") + " " + r.pathArg(args, "") + r.lineRange(args)
	out := wrap(head, cw)
	if v.Result == nil {
		return out
	}
	p, _ := args.path()
	output := textOutput(v.Result)
	if lines := trimTrailingEmpty(strings.Split(output, "\n")); len(lines) > 0 {
		// An empty file shows nothing under the title, as in pi.
		out = append(out, "")
		out = append(out, r.codePreview(lines, r.code().language(p), v.Expanded || v.IsError, cw, false)...)
	}
	if t := d.Truncation; t != nil && t.Truncated {
		var note string
		switch {
		case t.FirstLineExceedsLimit:
			note = fmt.Sprintf("[First line exceeds %s limit]", formatSize(maxBytes(t.MaxBytes)))
		case t.TruncatedBy == "lines":
			maxLines := t.MaxLines
			if maxLines <= 0 {
				maxLines = defaultMaxLines
			}
			note = fmt.Sprintf("[Truncated: showing %d of %d lines (%d line limit)]", t.OutputLines, t.TotalLines, maxLines)
		default:
			note = fmt.Sprintf("[Truncated: %d lines shown (%s limit)]", t.OutputLines, formatSize(maxBytes(t.MaxBytes)))
		}
		out = append(out, wrap(r.th.Fg(theme.Warning, note), cw)...)
	}
	return out
}

// lineRange is pi's ":<start>-<end>" suffix from offset/limit.
func (r *Renderer) lineRange(args toolArgs) string {
	off, lim := args.num("offset"), args.num("limit")
	if off == "" && lim == "" {
		return ""
	}
	start := 1
	if n, err := strconv.Atoi(off); err == nil {
		start = n
	}
	s := ":" + strconv.Itoa(start)
	if n, err := strconv.Atoi(lim); err == nil {
		s += "-" + strconv.Itoa(start+n-1)
	}
	return r.th.Fg(theme.Warning, s)
}

// codePreview shows the first lines of a file (all when expanded), highlighted when the language is
// known, with pi's "... (N more lines[, T total], key to expand)" hint.
func (r *Renderer) codePreview(lines []string, lang string, expanded bool, cw int, total bool) []string {
	show := lines
	if !expanded && len(lines) > filePreviewLines {
		show = lines[:filePreviewLines]
	}
	var styled []string
	if lang != "" {
		styled = r.code().lines(strings.Join(show, "\n"), lang)
	} else {
		styled = make([]string, len(show))
		for i, l := range show {
			styled[i] = r.th.Fg(theme.ToolOutput, l)
		}
	}
	out := make([]string, 0, len(styled)+1)
	for _, l := range styled {
		out = append(out, wrap(l, cw)...)
	}
	if rest := len(lines) - len(show); rest > 0 {
		what := "more lines"
		if total {
			what += ", " + itoa(len(lines)) + " total"
		}
		out = append(out, wrap(r.moreLines(rest, what), cw)...)
	}
	return out
}

// writeTool: "write <path>", the content being written (first lines, highlighted), and the error
// text if the write failed.
func (r *Renderer) writeTool(v ToolView, args toolArgs, cw int) []string {
	out := wrap(r.title("write")+" "+r.pathArg(args, ""), cw)
	content, ok := args.str("content")
	switch {
	case !ok:
		out = append(out, "", r.th.Fg(theme.Error, Truncate("[invalid content arg - expected string]", cw, "...")))
	case content != "":
		p, _ := args.path()
		lines := trimTrailingEmpty(strings.Split(cleanOutput(content), "\n"))
		out = append(out, "")
		out = append(out, r.codePreview(lines, r.code().language(p), v.Expanded, cw, true)...)
	}
	if v.Status == ToolDone && v.IsError {
		if msg := resultText(v); msg != "" {
			out = append(out, "")
			out = append(out, r.styledLines(strings.Split(msg, "\n"), theme.Error, cw)...)
		}
	}
	return out
}

// editTool: "edit <path>[:<first changed line>]", then the coloured diff (the result's, else the
// preview's) or the error text.
func (r *Renderer) editTool(v ToolView, args toolArgs, d toolDetails, cw int) []string {
	head := r.title("edit") + " " + r.pathArg(args, "")
	if d.FirstChangedLine > 0 && !v.IsError {
		head += r.th.Fg(theme.Warning, ":"+strconv.Itoa(d.FirstChangedLine))
	}
	out := wrap(head, cw)
	switch {
	case v.Status == ToolDone && v.IsError:
		if msg := resultText(v); msg != "" {
			out = append(out, "")
			out = append(out, r.styledLines(strings.Split(msg, "\n"), theme.Error, cw)...)
		}
	case d.Diff != "":
		out = append(out, "")
		out = append(out, r.Diff(d.Diff, cw)...)
	case v.PreviewDiff != "":
		out = append(out, "")
		out = append(out, r.Diff(v.PreviewDiff, cw)...)
	}
	return out
}

// resultText is the text of a result (for error messages).
func resultText(v ToolView) string {
	if v.Result == nil {
		return ""
	}
	return strings.TrimSpace(cleanOutput(provider.TextOf(v.Result.Content, "\n")))
}
