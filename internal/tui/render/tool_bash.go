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

	if output := strings.TrimSpace(rawTextOutput(v.Result)); output != "" {
		out = append(out, "")
		if v.Expanded {
			out = append(out, r.styledLines(strings.Split(strings.TrimSpace(cleanOutput(output)), "\n"), theme.ToolOutput, cw)...)
		} else {
			out = append(out, r.lastVisualLines(output, bashPreviewLines, cw)...)
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

// lastVisualLines shows the last n visual lines (after wrapping at width) of a raw output, preceded by
// pi's "... (N earlier lines, key to expand)" when some are hidden. Only the lines shown are cleaned,
// styled and wrapped; the hidden ones are just counted, so a long running output stays cheap to draw.
func (r *Renderer) lastVisualLines(output string, n, width int) []string {
	var tail []string
	end := len(output)
	for end >= 0 && len(tail) < n {
		start := strings.LastIndexByte(output[:end], '\n') + 1
		line := cleanOutput(output[start:end])
		tail = append(r.styledLines([]string{line}, theme.ToolOutput, width), tail...)
		end = start - 1
	}
	hidden := 0
	if len(tail) > n {
		hidden = len(tail) - n
		tail = tail[hidden:]
	}
	for rest := output[:max(end, 0)]; end >= 0; {
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			hidden += visualLines(rest, width)
			break
		}
		hidden += visualLines(rest[:i], width)
		rest = rest[i+1:]
	}
	if hidden == 0 {
		return tail
	}
	return append([]string{Truncate(r.moreLines(hidden, "earlier lines"), width, "...")}, tail...)
}

// visualLines is how many lines a raw output line takes once cleaned and wrapped at width.
func visualLines(raw string, width int) int {
	if len(raw) <= width {
		plain := true
		for i := 0; i < len(raw); i++ {
			if c := raw[i]; c < 0x20 || c >= 0x7f {
				plain = false
				break
			}
		}
		if plain {
			return 1
		}
	}
	return len(wrap(cleanOutput(raw), width))
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
