package picker

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/pi-go/pi-go/internal/tui/keymap"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// filterField is a picker's search line: a bubbles text input on one line. Its cursor does not
// blink (a blinking one needs a timer for as long as the picker is open), and it has no clipboard
// or suggestion keys (pi's pickers have neither; the picker moves with Up and Down).
type filterField struct{ in textinput.Model }

func newFilterField() filterField {
	in := textinput.New()
	in.Prompt = ""
	in.Cursor.SetMode(cursor.CursorStatic)
	in.KeyMap.Paste.SetEnabled(false)
	in.KeyMap.AcceptSuggestion.SetEnabled(false)
	in.KeyMap.NextSuggestion.SetEnabled(false)
	in.KeyMap.PrevSuggestion.SetEnabled(false)
	in.Focus()
	return filterField{in: in}
}

// Value is the query as typed.
func (f *filterField) Value() string { return f.in.Value() }

// Set replaces the query, the cursor at its end.
func (f *filterField) Set(q string) {
	f.in.SetValue(q)
	f.in.CursorEnd()
}

// Key edits the query with k (typing, Backspace, Ctrl+U, Ctrl+W, the cursor keys...) and reports
// whether the query changed. Keys with Alt and the names of keys the terminal reported in full
// (keymap.ExtendedKey's) type nothing; a space is typed as a space; a paste is one line.
func (f *filterField) Key(k tea.KeyMsg) bool {
	if k.Type == tea.KeySpace {
		k = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{' '}}
	}
	if k.Type == tea.KeyRunes && (k.Alt || keymap.Synthetic(k)) {
		return false
	}
	before := f.in.Value()
	f.in, _ = f.in.Update(k) // its only commands are the blink and the clipboard, both off
	return f.in.Value() != before
}

// View draws the query in the style of text, with the cursor in reverse video, in the colours of th.
func (f *filterField) View(th *theme.Theme, text lipgloss.Style) string {
	f.in.TextStyle = text
	f.in.Cursor.Style = th.PlainStyle()
	f.in.Cursor.TextStyle = text
	return f.in.View()
}
