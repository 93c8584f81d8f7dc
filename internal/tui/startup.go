package tui

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// StartupSelect asks one question before the interactive session starts (pi's startup selector, used
// for the project trust prompt): the title, then the options, one chosen with Up/Down (or k/j) and
// Enter. It returns the chosen index, or -1 when the user cancels (Escape, Ctrl+C) or ctx ends. The
// question is drawn inline and erased when answered, so the session starts on a clean screen.
func StartupSelect(ctx context.Context, in io.Reader, out io.Writer, themeSetting, title string, options []string) (int, error) {
	m := newStartupSelect(themeSetting, title, options)
	if err := runStartup(ctx, in, out, m); err != nil {
		return -1, err
	}
	return m.chosen, nil
}

// runStartup runs a start-up question on in and out (nil: stdin and stdout) until it quits or ctx
// ends; ctx ending is not an error (the question counts as cancelled).
func runStartup(ctx context.Context, in io.Reader, out io.Writer, m tea.Model) error {
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	_, err := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out), tea.WithContext(ctx)).Run()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

type startupSelect struct {
	th      *theme.Theme
	title   string
	options []string
	cursor  int
	chosen  int
	done    bool
}

func newStartupSelect(themeSetting, title string, options []string) *startupSelect {
	return &startupSelect{th: builtinTheme(themeSetting), title: title, options: options, chosen: -1}
}

func (m *startupSelect) Init() tea.Cmd { return nil }

func (m *startupSelect) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return m, nil
	}
	if k.Type == tea.KeyRunes && !k.Alt {
		// k and j move too; typed fast they can arrive as one message.
		for _, r := range k.Runes {
			switch r {
			case 'k':
				m.cursor = max(m.cursor-1, 0)
			case 'j':
				m.cursor = min(m.cursor+1, len(m.options)-1)
			}
		}
		return m, nil
	}
	switch editor.KeyName(k) {
	case "up", "ctrl+p":
		m.cursor = max(m.cursor-1, 0)
	case "down", "ctrl+n":
		m.cursor = min(m.cursor+1, len(m.options)-1)
	case "enter":
		m.chosen, m.done = m.cursor, true
		return m, tea.Quit
	case "esc", "ctrl+c":
		m.done = true
		return m, tea.Quit
	}
	return m, nil
}

func (m *startupSelect) View() string {
	if m.done {
		return ""
	}
	var b strings.Builder
	writeStartupTitle(&b, m.th, m.title)
	b.WriteByte('\n')
	for i, o := range m.options {
		if i == m.cursor {
			b.WriteString(m.th.Fg(theme.Accent, "→ "+o))
		} else {
			b.WriteString("  " + o)
		}
		b.WriteByte('\n')
	}
	b.WriteString("\n" + m.th.Fg(theme.Muted, "↑↓ navigate · enter select · esc cancel"))
	return b.String()
}

// StartupInput asks for one line of text before the interactive session starts (pi's startup input,
// which an extension's project_trust handler gets as ctx.ui.input): the title, then a field showing
// placeholder while empty. It returns the text and true on Enter, or false when the user cancels
// (Escape, Ctrl+C) or ctx ends. Like StartupSelect, it is erased when answered.
func StartupInput(ctx context.Context, in io.Reader, out io.Writer, themeSetting, title, placeholder string) (string, bool, error) {
	m := newStartupInput(themeSetting, title, placeholder)
	if err := runStartup(ctx, in, out, m); err != nil {
		return "", false, err
	}
	return m.field.Value(), m.entered, nil
}

type startupInput struct {
	th      *theme.Theme
	title   string
	field   textinput.Model
	entered bool
	done    bool
}

func newStartupInput(themeSetting, title, placeholder string) *startupInput {
	f := textinput.New()
	f.Placeholder = placeholder
	f.Prompt = "> "
	f.Focus()
	return &startupInput{th: builtinTheme(themeSetting), title: title, field: f}
}

func (m *startupInput) Init() tea.Cmd { return nil }

func (m *startupInput) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch editor.KeyName(k) {
		case "enter":
			m.entered, m.done = true, true
			return m, tea.Quit
		case "esc", "ctrl+c":
			m.done = true
			return m, tea.Quit
		}
	}
	var cmd tea.Cmd
	m.field, cmd = m.field.Update(msg)
	return m, cmd
}

func (m *startupInput) View() string {
	if m.done {
		return ""
	}
	var b strings.Builder
	writeStartupTitle(&b, m.th, m.title)
	b.WriteString("\n" + m.field.View() + "\n")
	b.WriteString("\n" + m.th.Fg(theme.Muted, "enter submit · esc cancel"))
	return b.String()
}

// writeStartupTitle writes a start-up question's title, its first line accented.
func writeStartupTitle(b *strings.Builder, th *theme.Theme, title string) {
	for i, line := range strings.Split(title, "\n") {
		if i == 0 {
			b.WriteString(th.Style(theme.Accent, true, false, line))
		} else {
			b.WriteString(line)
		}
		b.WriteByte('\n')
	}
}
