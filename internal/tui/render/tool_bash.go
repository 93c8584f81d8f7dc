package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// bashPreviewLines is how many visual lines of bash output a collapsed block shows (the last ones).
const bashPreviewLines = 5

// bashTool: "$ <command>" (+ timeout), then the output's last lines (all when expanded), the
// truncation note and the run time.
func (r *Renderer) bashTool(v ToolView, args toolArgs, d toolDetails, cw int) []string {
	cmd, ok := args.str("command")
	var head string
	switch {
	case !ok:
		head = r.title("$ ") + r.invalidArg()
	case cmd == "":
		head = r.title("$ ") + r.th.Fg(theme.ToolOutput, "...")
	default:
		head = r.title("$ " + strings.TrimRight(cleanOutput(cmd), "\n"))
	}
	if t := args.num("timeout"); t != "" && t != "0" {
		head += r.th.Fg(theme.Muted, " (timeout "+t+"s)")
	}
	out := wrap(head, cw)

	if output := strings.TrimSpace(textOutput(v.Result)); output != "" {
		visual := r.styledLines(strings.Split(output, "\n"), theme.ToolOutput, cw)
		out = append(out, "")
		if v.Expanded || len(visual) <= bashPreviewLines {
			out = append(out, visual...)
		} else {
			skipped := len(visual) - bashPreviewLines
			out = append(out, Truncate(r.moreLines(skipped, "earlier lines"), cw, "..."))
			out = append(out, visual[skipped:]...)
		}
	}

	var warnings []string
	if d.FullOutputPath != "" {
		warnings = append(warnings, "Full output: "+d.FullOutputPath)
	}
	if t := d.Truncation; t != nil && t.Truncated {
		if t.TruncatedBy == "lines" {
			warnings = append(warnings, fmt.Sprintf("Truncated: showing %d of %d lines", t.OutputLines, t.TotalLines))
		} else {
			warnings = append(warnings, fmt.Sprintf("Truncated: %d lines shown (%s limit)", t.OutputLines, formatSize(maxBytes(t.MaxBytes))))
		}
	}
	if len(warnings) > 0 {
		out = append(out, "")
		out = append(out, wrap(r.th.Fg(theme.Warning, "["+strings.Join(warnings, ". ")+"]"), cw)...)
	}

	if v.Elapsed > 0 {
		label := "Took"
		if v.Status != ToolDone {
			label = "Elapsed"
		}
		out = append(out, "", r.th.Fg(theme.Muted, label+" "+formatSeconds(v.Elapsed)))
	}
	return out
}

// formatSeconds is pi's duration display: seconds with one decimal ("1.2s").
func formatSeconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// defaultMaxBytes is pi's output byte limit (50 KB), assumed when details do not say.
const defaultMaxBytes = 50 * 1024

func maxBytes(n int) int {
	if n <= 0 {
		return defaultMaxBytes
	}
	return n
}

// formatSize is pi's size display: "512B", "50.0KB", "1.5MB".
func formatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
	}
}
