package picker

import (
	"strings"
	"time"

	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// View draws the picker: the title with scope, name filter and order; the key hints (or the delete
// question, or a status); the search line; the sessions; the position.
func (sp *Sessions) View(width, rows int) []string {
	th := sp.r.Theme()
	rule := th.Fg(theme.Accent, strings.Repeat("─", max(width, 1)))
	if sp.renaming != "" {
		out := []string{rule, truncate(" "+th.Bold("Rename Session"), width)}
		for _, l := range sp.renameEdit.View(max(width-1, 2), 3, true) {
			out = append(out, " "+l)
		}
		out = append(out, truncate(" "+th.Fg(theme.Muted, "enter to save · esc to cancel"), width))
		return append(out, rule)
	}
	out := []string{rule, sp.titleLine(width)}
	sep := th.Fg(theme.Muted, " · ")
	switch {
	case sp.confirmDelete != "":
		out = append(out, truncate(" "+th.Fg(theme.Error, "Delete session? enter confirm · esc cancel"), width))
	case sp.status != "":
		color := theme.Accent
		if sp.statusErr {
			color = theme.Error
		}
		out = append(out, truncate(" "+th.Fg(color, sp.status), width))
	case sp.loadErr != "":
		out = append(out, truncate(" "+th.Fg(theme.Error, sp.loadErr), width))
	default:
		path := "off"
		if sp.showPath {
			path = "on"
		}
		hints := []string{sp.r.KeyHint("tab", "scope"), sp.r.KeyHint("ctrl+s", "sort"), sp.r.KeyHint("ctrl+n", "named"),
			sp.r.KeyHint("ctrl+r", "rename"), sp.r.KeyHint("ctrl+d", "delete"), sp.r.KeyHint("ctrl+p", "path ("+path+")"),
			th.Fg(theme.Muted, `re:<pattern> regex · "phrase" exact`)}
		out = append(out, truncate(" "+strings.Join(hints, sep), width))
	}
	out = append(out, truncate(" "+th.Fg(theme.Muted, "Search: ")+sp.query.View(th, th.PlainStyle()), width))
	visible := max(rows-6, 2)
	if len(sp.rows) == 0 {
		out = append(out, truncate(" "+th.Fg(theme.Muted, sp.emptyText()), width))
		return append(out, rule)
	}
	start := max(0, min(sp.cursor-visible/2, len(sp.rows)-visible))
	end := min(start+visible, len(sp.rows))
	now := time.Now()
	for i := start; i < end; i++ {
		out = append(out, sp.rowLine(sp.rows[i], i == sp.cursor, width, now))
	}
	if start > 0 || end < len(sp.rows) {
		out = append(out, truncate(th.Fg(theme.Muted, "  ("+itoa(sp.cursor+1)+"/"+itoa(len(sp.rows))+")"), width))
	}
	return append(out, rule)
}

func (sp *Sessions) titleLine(width int) string {
	th := sp.r.Theme()
	title := "Resume Session (Current Folder)"
	if sp.all {
		title = "Resume Session (All)"
	}
	var scope string
	switch {
	case sp.loading[sp.scope()]:
		scope = th.Fg(theme.Muted, "○ Current Folder | ") + th.Fg(theme.Accent, "Loading...")
	case sp.all:
		scope = th.Fg(theme.Muted, "○ Current Folder | ") + th.Fg(theme.Accent, "◉ All")
	default:
		scope = th.Fg(theme.Accent, "◉ Current Folder") + th.Fg(theme.Muted, " | ○ All")
	}
	named := "All"
	if sp.namedOnly {
		named = "Named"
	}
	right := scope + "  " + th.Fg(theme.Muted, "Name: ") + th.Fg(theme.Accent, named) + "  " +
		th.Fg(theme.Muted, "Sort: ") + th.Fg(theme.Accent, sp.sort.label())
	right = truncate(right, max(width-1, 0))
	left := truncate(" "+th.Bold(title), max(width-render.Width(right)-1, 0))
	gap := max(width-render.Width(left)-render.Width(right), 0)
	return left + strings.Repeat(" ", gap) + right
}

func (sp *Sessions) emptyText() string {
	switch {
	case sp.loading[sp.scope()]:
		return "Loading sessions..."
	case sp.namedOnly && sp.all:
		return "No named sessions found. Press ctrl+n to show all."
	case sp.namedOnly:
		return "No named sessions in current folder. Press ctrl+n to show all, or Tab to view all."
	case sp.query.Value() != "":
		return "No matching sessions"
	case sp.all:
		return "No sessions found"
	}
	return "No sessions in current folder. Press Tab to view all."
}

// rowLine is one session: the thread's branch lines, the name (or first message), and on the right
// the path (Ctrl+P), the folder (All), the message count and the age.
func (sp *Sessions) rowLine(r sessionRow, selected bool, width int, now time.Time) string {
	th := sp.r.Theme()
	in := r.info
	var prefix strings.Builder
	if r.depth > 0 {
		for _, c := range r.continues {
			if c {
				prefix.WriteString("│  ")
			} else {
				prefix.WriteString("   ")
			}
		}
		if r.last {
			prefix.WriteString("└─ ")
		} else {
			prefix.WriteString("├─ ")
		}
	}
	text := in.Name
	if strings.TrimSpace(text) == "" {
		text = in.FirstMessage
	}
	text = strings.Join(strings.FieldsFunc(text, func(r rune) bool { return r < 0x20 || r == 0x7f || r == ' ' }), " ")
	right := itoa(in.MessageCount) + " " + formatAge(now.Sub(in.Modified))
	if sp.all && in.Cwd != "" {
		right = shortenHome(in.Cwd) + " " + right
	}
	if sp.showPath {
		right = shortenHome(in.Path) + " " + right
	}
	deleting := in.Path == sp.confirmDelete
	cursor := "  "
	if selected {
		cursor = th.Fg(theme.Accent, "› ")
	}
	avail := max(width-2-render.Width(prefix.String())-render.Width(right)-2, 10)
	text = truncateEllipsis(text, avail)
	switch {
	case deleting:
		text = th.Fg(theme.Error, text)
	case in.Path == sp.current:
		text = th.Fg(theme.Accent, text)
	case strings.TrimSpace(in.Name) != "":
		text = th.Fg(theme.Warning, text)
	}
	if selected {
		text = th.Bold(text)
	}
	left := cursor + th.Fg(theme.Dim, prefix.String()) + text
	rightColor := theme.Dim
	if deleting {
		rightColor = theme.Error
	}
	gap := max(width-render.Width(left)-render.Width(right), 1)
	line := truncate(left+strings.Repeat(" ", gap)+th.Fg(rightColor, right), width)
	if selected {
		line = render.FillBg(line, width, th.BgSeq(theme.SelectedBg))
	}
	return line
}

// truncateEllipsis cuts plain text to width cells, ending it with "…" when cut.
func truncateEllipsis(s string, width int) string {
	if render.Width(s) <= width {
		return s
	}
	return render.Truncate(s, width, "…")
}

// formatAge is pi's session age: now, 5m, 3h, 2d, 1w, 4mo, 2y.
func formatAge(d time.Duration) string {
	mins := int(d / time.Minute)
	hours := int(d / time.Hour)
	days := int(d / (24 * time.Hour))
	switch {
	case mins < 1:
		return "now"
	case mins < 60:
		return itoa(mins) + "m"
	case hours < 24:
		return itoa(hours) + "h"
	case days < 7:
		return itoa(days) + "d"
	case days < 30:
		return itoa(days/7) + "w"
	case days < 365:
		return itoa(days/30) + "mo"
	}
	return itoa(days/365) + "y"
}
