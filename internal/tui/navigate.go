package tui

import (
	"context"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Choices of pi's "Summarize branch?" prompt.
const (
	noSummary        = "No summary"
	summarize        = "Summarize"
	summarizeCustom  = "Summarize with custom prompt"
	summaryTitle     = "Summarize branch?"
	instructionTitle = "Custom summarization instructions"
)

// navigation is a tree navigation in progress (a branch summary being written).
type navigation struct {
	started time.Time
	cancel  context.CancelFunc
}

// navigateTree is a choice in the tree selector: pi asks whether to summarise the branch being left
// (unless branchSummary.skipPrompt), then moves.
func (m *model) navigateTree(id string) tea.Cmd {
	if id == m.sess.Store().LeafID() {
		m.addStatus("Already at this point")
		return nil
	}
	if m.busy() {
		m.addWarning("The agent is working. Press Esc to stop it before moving in the tree.")
		return nil
	}
	if m.settings().BranchSummary.SkipPrompt {
		return m.startNavigation(id, harness.NavigateOptions{})
	}
	m.askSummary(id)
	return nil
}

// askSummary shows pi's "Summarize branch?" choice; Escape goes back to the tree.
func (m *model) askSummary(id string) {
	var items []pickItem
	for _, c := range []string{noSummary, summarize, summarizeCustom} {
		items = append(items, pickItem{label: c, value: c})
	}
	p := newListPicker(summaryTitle, items, func(m *model, it pickItem) tea.Cmd {
		switch it.value.(string) {
		case noSummary:
			return m.startNavigation(id, harness.NavigateOptions{})
		case summarize:
			return m.startNavigation(id, harness.NavigateOptions{Summarize: true})
		}
		m.sel = newTextInput(instructionTitle, func(m *model, text string) tea.Cmd {
			return m.startNavigation(id, harness.NavigateOptions{Summarize: true, CustomInstructions: text})
		}, func(m *model) { m.askSummary(id) })
		return nil
	})
	p.onCancel = func(m *model) tea.Cmd {
		m.openTreeSelector(id)
		return nil
	}
	p.hint = "↑↓ navigate · enter select · esc back to the tree"
	m.sel = p
}

// startNavigation moves to id off the UI goroutine; a summary can be cancelled with Escape.
func (m *model) startNavigation(id string, o harness.NavigateOptions) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	if o.Summarize {
		m.nav = &navigation{started: time.Now(), cancel: cancel}
	}
	sess := m.sess
	return m.op(func() tea.Msg {
		defer cancel()
		res, err := sess.NavigateTree(ctx, id, o)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			m.nav = nil
			switch {
			case err != nil:
				m.addError(err.Error())
			case res.Aborted:
				m.addStatus("Branch summarization cancelled")
				m.openTreeSelector(id)
			case res.Cancelled:
				m.addStatus("Navigation cancelled")
			default:
				m.addSeparator()
				cmd := m.printHistory()
				if res.EditorText != "" && strings.TrimSpace(m.ed.Text()) == "" {
					m.ed.SetText(res.EditorText)
				}
				m.addStatus("Navigated to selected point")
				return tea.Batch(cmd, m.flushCompactionQueue(false))
			}
			return nil
		}}
	})
}

// textInput is a one-field dialog in place of the editor (custom summary instructions).
type textInput struct {
	title    string
	ed       *editor.Editor
	onSubmit func(m *model, text string) tea.Cmd
	onCancel func(m *model)
}

func newTextInput(title string, onSubmit func(*model, string) tea.Cmd, onCancel func(*model)) *textInput {
	return &textInput{title: title, ed: editor.New(), onSubmit: onSubmit, onCancel: onCancel}
}

func (t *textInput) resize(int, int) {}

func (t *textInput) key(m *model, k tea.KeyMsg) tea.Cmd {
	if k.Paste {
		t.ed.Paste(string(k.Runes))
		return nil
	}
	switch editor.KeyName(k) {
	case "esc", "ctrl+c":
		m.sel = nil
		t.onCancel(m)
		return nil
	case "enter":
		m.sel = nil
		return t.onSubmit(m, strings.TrimSpace(t.ed.ExpandedText()))
	case "ctrl+j", editor.ShiftEnter, "alt+enter":
		t.ed.Newline()
		return nil
	}
	t.ed.Update(k)
	return nil
}

func (t *textInput) view(m *model, width, rows int) []string {
	th := m.r.Theme()
	rule := th.Fg(theme.Border, strings.Repeat("─", max(width, 1)))
	out := []string{rule, truncate(" "+th.Style(theme.Accent, true, false, t.title), width)}
	for _, l := range t.ed.View(max(width-1, 2), max(rows-4, 1), true) {
		out = append(out, " "+l)
	}
	out = append(out, truncate(" "+th.Fg(theme.Muted, "enter submit · ctrl+j new line · esc back"), width))
	return append(out, rule)
}
