package render

import (
	"strings"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// StatusNotice is a dim status line in the chat ("Model: gpt-4o", "Auto-compaction cancelled").
// pi replaces a status line that directly follows another one; that is the caller's bookkeeping.
func (r *Renderer) StatusNotice(msg string, width int) []string {
	return r.notice(theme.Dim, msg, width)
}

// WarningNotice is "Warning: <msg>" in the warning colour.
func (r *Renderer) WarningNotice(msg string, width int) []string {
	return r.notice(theme.Warning, "Warning: "+msg, width)
}

// ErrorNotice is "Error: <msg>" in the error colour.
func (r *Renderer) ErrorNotice(msg string, width int) []string {
	return r.notice(theme.Error, "Error: "+msg, width)
}

// ErrorText is an error in the error colour without the "Error: " prefix (pi shows some errors,
// like a failed auto-compaction, as they are).
func (r *Renderer) ErrorText(msg string, width int) []string {
	return r.notice(theme.Error, msg, width)
}

func (r *Renderer) notice(k theme.Key, msg string, width int) []string {
	lines := wrap(strings.TrimRight(cleanOutput(msg), "\n"), max(width-2, 1))
	return append([]string{""}, padLeft(styleLines(r.th, k, lines), width)...)
}

// TurnSeparator is a dim rule across the width marking where a turn begins; label (e.g. "turn 3")
// is set into it when not empty.
func (r *Renderer) TurnSeparator(label string, width int) []string {
	width = max(width, 1)
	label = oneLine(label)
	var line string
	if label == "" || Width(label)+6 > width {
		line = strings.Repeat("─", width)
	} else {
		line = "── " + label + " " + strings.Repeat("─", width-Width(label)-4)
	}
	return []string{"", r.th.Fg(theme.BorderMuted, line)}
}

// HiddenAbove is the dim line at the top of the live region when the unfinished blocks are taller
// than it: n lines above it are not shown yet (they are printed once their block is complete).
func (r *Renderer) HiddenAbove(n, width int) string {
	return Truncate(" "+r.th.Fg(theme.Muted, "⋮ "+itoa(n)+" more lines above"), width, "")
}

// Queued renders the pending area: one dim, truncated line per queued message ("Steering: ...",
// "Follow-up: ..."), then the hint how to pull them back into the editor. Nothing when both are
// empty.
func (r *Renderer) Queued(steering, followUp []string, width int) []string {
	if len(steering) == 0 && len(followUp) == 0 {
		return nil
	}
	cw := max(width-2, 1)
	out := []string{""}
	line := func(s string) {
		out = append(out, padLeft([]string{r.th.Fg(theme.Dim, Truncate(s, cw, "..."))}, width)...)
	}
	for _, m := range steering {
		line("Steering: " + firstLine(m))
	}
	for _, m := range followUp {
		line("Follow-up: " + firstLine(m))
	}
	line("↳ " + r.keys.Dequeue + " to edit all queued messages")
	return out
}

// firstLine is the first line of s, cleaned (pi's truncated one-line display).
func firstLine(s string) string {
	s = cleanOutput(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
