package picker

import (
	"os"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-go/pi-go/internal/tui/render"
)

// Picker is a component shown in place of the editor: it takes every key until one of its messages
// closes it.
type Picker interface {
	// Update applies a message: a key, a Size, or the answer to one of its requests. The command it
	// returns never blocks: it only carries the picker's message (a choice, Cancelled, a request).
	Update(msg tea.Msg) (Picker, tea.Cmd)
	// View draws the picker width cells wide, in about rows rows.
	View(width, rows int) []string
}

// Size tells a picker the room it has; its page keys move by what it shows. The owner sends it
// before each key, since the room changes with the lines shown above the picker.
type Size struct{ Width, Rows int }

// Cancelled is the message of a picker closed without a choice (Escape, Ctrl+C).
type Cancelled struct{}

// emit is the command carrying a picker's message.
func emit(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

func itoa(n int) string { return strconv.Itoa(n) }

// truncate cuts a styled line to width cells.
func truncate(s string, width int) string {
	if render.Width(s) <= width {
		return s
	}
	return ansi.Truncate(s, max(width, 0), "")
}

// oneLine squeezes whitespace and line breaks into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// shortenHome shows a path under the home directory with "~".
func shortenHome(p string) string {
	if home, _ := os.UserHomeDir(); home != "" && strings.HasPrefix(p, home) {
		return "~" + strings.TrimPrefix(p, home)
	}
	return p
}
