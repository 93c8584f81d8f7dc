package render

import (
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// bashExecPreviewLines is how many output lines a collapsed `!cmd` block shows (the last ones).
const bashExecPreviewLines = 20

// BashView is a `!cmd` (or `!!cmd`) the user ran: running with live output, or finished.
type BashView struct {
	Command string
	// Output is everything the command printed so far (ANSI and control characters are removed here).
	Output  string
	Running bool
	// Spinner is the spinner's frame while running ("" draws the first).
	Spinner            string
	ExitCode           *int
	Cancelled          bool
	Truncated          bool
	FullOutputPath     string
	ExcludeFromContext bool // `!!`: drawn dim instead of in the bash colour
	Expanded           bool
}

// BashViewFromMessage is the finished view of a bashExecution message from the transcript.
func BashViewFromMessage(m *provider.BashExecutionMessage) BashView {
	return BashView{
		Command: m.Command, Output: m.Output, ExitCode: m.ExitCode, Cancelled: m.Cancelled,
		Truncated: m.Truncated, FullOutputPath: m.FullOutputPath, ExcludeFromContext: m.ExcludeFromContext,
	}
}

// BashExecution renders a `!cmd` block between two rules: "$ <command>", the output (its last 20
// lines unless expanded), then a spinner while running or the outcome (hidden lines, cancelled, exit
// code, where the full output is).
func (r *Renderer) BashExecution(v BashView, width int) []string {
	k := theme.BashMode
	if v.ExcludeFromContext {
		k = theme.Dim
	}
	cw := max(width-2, 1)
	rule := r.th.Fg(k, strings.Repeat("─", max(width, 1)))
	out := []string{"", rule}
	out = append(out, padLeft(wrap(r.th.Style(k, true, false, "$ "+strings.TrimRight(cleanOutput(v.Command), "\n")), cw), width)...)

	// Like pi: CR and CRLF end lines; at most the last 2000 lines count (what could reach the model).
	output := v.Output
	if strings.IndexByte(output, '\r') >= 0 {
		output = strings.ReplaceAll(strings.ReplaceAll(output, "\r\n", "\n"), "\r", "\n")
	}
	output = strings.TrimRight(output, "\n")
	hidden := 0
	if output != "" {
		total := min(strings.Count(output, "\n")+1, defaultMaxLines)
		show := total
		if !v.Expanded {
			show = min(total, bashExecPreviewLines)
		}
		hidden = total - show
		// Only the lines shown are cleaned, split and styled: a long output stays cheap to draw.
		lines := strings.Split(cleanOutput(lastLines(output, show)), "\n")
		visual := r.styledLines(lines, theme.Muted, cw)
		if !v.Expanded && len(visual) > bashExecPreviewLines {
			visual = visual[len(visual)-bashExecPreviewLines:]
		}
		out = append(out, "")
		out = append(out, padLeft(visual, width)...)
	}

	if v.Running {
		msg := r.th.Fg(k, spinnerFrame(v.Spinner)) + " " + r.th.Fg(theme.Muted, "Running... ("+r.keys.Interrupt+" to cancel)")
		out = append(out, "")
		out = append(out, padLeft([]string{Truncate(msg, cw, "...")}, width)...)
	} else {
		var status []string
		if hidden > 0 {
			if v.Expanded {
				status = append(status, "("+r.keyHint(r.keys.Expand, "to collapse")+")")
			} else {
				status = append(status, r.th.Fg(theme.Muted, "... "+itoa(hidden)+" more lines")+" ("+r.keyHint(r.keys.Expand, "to expand")+")")
			}
		}
		switch {
		case v.Cancelled:
			status = append(status, r.th.Fg(theme.Warning, "(cancelled)"))
		case v.ExitCode != nil && *v.ExitCode != 0:
			status = append(status, r.th.Fg(theme.Error, "(exit "+itoa(*v.ExitCode)+")"))
		}
		if v.Truncated && v.FullOutputPath != "" {
			status = append(status, r.th.Fg(theme.Warning, "Output truncated. Full output: "+v.FullOutputPath))
		}
		if len(status) > 0 {
			out = append(out, "")
			for _, s := range status {
				out = append(out, padLeft(wrap(s, cw), width)...)
			}
		}
	}
	return append(out, rule)
}

// lastLines is the part of s after its last n-1 newlines (its last n lines).
func lastLines(s string, n int) string {
	end := len(s)
	for i := 0; i < n; i++ {
		j := strings.LastIndexByte(s[:end], '\n')
		if j < 0 {
			return s
		}
		if i == n-1 {
			return s[j+1:]
		}
		end = j
	}
	return s
}
