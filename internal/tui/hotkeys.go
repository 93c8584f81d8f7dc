package tui

import (
	"strings"

	"github.com/pi-go/pi-go/internal/tui/render"
)

// capitalizeKey writes a key name as pi's /hotkeys does: "ctrl+c" → "Ctrl+C".
func capitalizeKey(k string) string {
	parts := strings.Split(k, "/")
	for i, p := range parts {
		sub := strings.Split(p, "+")
		for j, s := range sub {
			if s != "" {
				sub[j] = strings.ToUpper(s[:1]) + s[1:]
			}
		}
		parts[i] = strings.Join(sub, "+")
	}
	return strings.Join(parts, "/")
}

// hotkeysMarkdown is the /hotkeys table (pi's, with the keys pi-go binds).
func hotkeysMarkdown(k render.Keys) string {
	c := capitalizeKey
	rows := func(title string, pairs [][2]string) string {
		var b strings.Builder
		b.WriteString("**" + title + "**\n| Key | Action |\n|-----|--------|\n")
		for _, p := range pairs {
			b.WriteString("| `" + p[0] + "` | " + p[1] + " |\n")
		}
		return b.String()
	}
	nav := rows("Navigation", [][2]string{
		{"Up` / `Down` / `Left` / `Right", "Move cursor / browse history (Up when empty)"},
		{"Alt+Left` / `Alt+Right", "Move by word"},
		{"Ctrl+A", "Start of line"},
		{"Ctrl+E", "End of line"},
	})
	edit := rows("Editing", [][2]string{
		{"Enter", "Send message"},
		{"Shift+Enter` / `Ctrl+J", "New line (Alt+Enter when idle; `\\` then Enter where Shift+Enter is not available)"},
		{"Ctrl+W` / `Alt+Backspace", "Delete word backwards"},
		{"Alt+D", "Delete word forwards"},
		{"Ctrl+U", "Delete to start of line"},
		{"Ctrl+K", "Delete to end of line"},
		{"Ctrl+Y", "Paste the most-recently-deleted text"},
		{"Alt+Y", "Cycle through the deleted text after pasting"},
		{"Ctrl+-", "Undo"},
	})
	other := rows("Other", [][2]string{
		{"Tab", "Path completion / accept autocomplete"},
		{c(k.Interrupt), "Cancel autocomplete / abort streaming"},
		{c(k.Clear), "Clear editor (first) / exit (second)"},
		{c(k.Exit), "Exit (when editor is empty)"},
		{"Ctrl+Z", "Suspend to background"},
		{c(k.CycleThinking), "Cycle thinking level"},
		{"Ctrl+P", "Cycle models"},
		{c(k.SelectModel), "Open model selector"},
		{c(k.Expand), "Toggle tool output expansion"},
		{c(k.ToggleThinking), "Toggle thinking block visibility"},
		{c(k.ExternalEditor), "Edit message in external editor"},
		{c(k.FollowUp), "Queue follow-up message"},
		{c(k.Dequeue), "Restore queued messages"},
		{"/", "Slash commands"},
		{"!", "Run bash command"},
		{"!!", "Run bash command (excluded from context)"},
	})
	return nav + "\n" + edit + "\n" + other
}
