package picker

import (
	"strings"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// TextInput is a one-field dialog in place of the editor (custom summary instructions): Enter
// submits the trimmed text (the message of submit), Ctrl+J (or Shift+Enter, Alt+Enter) starts a
// new line, Escape goes back (the cancel message).
type TextInput struct {
	r      *render.Renderer
	title  string
	ed     *editor.Editor
	submit func(text string) tea.Msg
	cancel tea.Msg
	// placeholder is shown, dimmed, while the field is empty.
	placeholder string
	// secret masks the text (a login's password or token): one "•" per character, on one line.
	secret bool
}

// NewTextInput returns an empty dialog.
func NewTextInput(r *render.Renderer, title string, submit func(text string) tea.Msg, cancel tea.Msg) *TextInput {
	return &TextInput{r: r, title: title, ed: editor.New(), submit: submit, cancel: cancel}
}

// SetText replaces the text (an editor dialog's prefill).
func (t *TextInput) SetText(s string) { t.ed.SetText(s) }

// SetPlaceholder sets the dimmed hint an empty field shows.
func (t *TextInput) SetPlaceholder(s string) { t.placeholder = s }

// SetSecret masks what is typed: it never reaches the screen (nor a terminal's scrollback).
func (t *TextInput) SetSecret(on bool) { t.secret = on }

// Update applies a key.
func (t *TextInput) Update(msg tea.Msg) (Picker, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return t, nil
	}
	if k.Paste {
		t.ed.Paste(string(k.Runes))
		return t, nil
	}
	switch editor.KeyName(k) {
	case "esc", "ctrl+c":
		return t, emit(t.cancel)
	case "enter":
		return t, emit(t.submit(strings.TrimSpace(t.ed.ExpandedText())))
	case "ctrl+j", editor.ShiftEnter, "alt+enter":
		if t.secret {
			return t, nil // a secret is one line
		}
		t.ed.Newline()
		return t, nil
	}
	t.ed.Update(k)
	return t, nil
}

// View draws the title, the text and the key hints between two rules.
func (t *TextInput) View(width, rows int) []string {
	th := t.r.Theme()
	rule := th.Fg(theme.Border, strings.Repeat("─", max(width, 1)))
	out := []string{rule, truncate(" "+th.Style(theme.Accent, true, false, t.title), width)}
	hint := "enter submit · ctrl+j new line · esc back"
	switch {
	case t.ed.Empty() && t.placeholder != "":
		out = append(out, truncate(" "+th.Style(theme.Muted, false, true, t.placeholder), width))
	case t.secret:
		// The count only: where the cursor is inside a masked secret tells the user little.
		n := utf8.RuneCountInString(t.ed.ExpandedText())
		out = append(out, truncate(" "+strings.Repeat("•", n)+"▏", width))
	default:
		for _, l := range t.ed.View(max(width-1, 2), max(rows-4, 1), true) {
			out = append(out, " "+l)
		}
	}
	if t.secret {
		hint = "enter submit · esc back"
	}
	out = append(out, truncate(" "+th.Fg(theme.Muted, hint), width))
	return append(out, rule)
}
