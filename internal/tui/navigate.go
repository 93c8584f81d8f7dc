package tui

import (
	"context"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/picker"
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

// Messages of the "Summarize branch?" prompt and its instructions dialog, for the entry id.
type (
	// summaryChoiceMsg: one of the prompt's choices.
	summaryChoiceMsg struct{ id, choice string }
	// summaryInstructionsMsg: the custom instructions were entered.
	summaryInstructionsMsg struct {
		id      string
		options harness.NavigateOptions
	}
	// backToTreeMsg: Escape in the prompt goes back to the tree.
	backToTreeMsg struct{ id string }
	// backToSummaryMsg: Escape in the instructions dialog goes back to the prompt.
	backToSummaryMsg struct{ id string }
)

// askSummary shows pi's "Summarize branch?" choice; Escape goes back to the tree.
func (m *model) askSummary(id string) {
	var items []picker.Item
	for _, c := range []string{noSummary, summarize, summarizeCustom} {
		items = append(items, picker.Item{Label: c, Value: c})
	}
	p := picker.NewList(m.r, summaryTitle, items, func(it picker.Item) tea.Msg {
		return summaryChoiceMsg{id: id, choice: it.Value.(string)}
	})
	p.SetCancel(backToTreeMsg{id: id})
	p.SetHint("↑↓ navigate · enter select · esc back to the tree")
	m.sel = p
}

// summaryChosen moves with or without a summary, or asks for the summary's instructions.
func (m *model) summaryChosen(msg summaryChoiceMsg) tea.Cmd {
	id := msg.id
	switch msg.choice {
	case noSummary:
		return m.startNavigation(id, harness.NavigateOptions{})
	case summarize:
		return m.startNavigation(id, harness.NavigateOptions{Summarize: true})
	}
	m.sel = picker.NewTextInput(m.r, instructionTitle, func(text string) tea.Msg {
		return summaryInstructionsMsg{id: id, options: harness.NavigateOptions{Summarize: true, CustomInstructions: text}}
	}, backToSummaryMsg{id: id})
	return nil
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
				return m.showNavigated(m.sess.Messages(), res.EditorText)
			}
			return nil
		}}
	})
}

// showNavigated prints the branch navigated to (/tree, an extension's ctx.navigateTree()) under a
// rule; editorText goes into an empty editor.
func (m *model) showNavigated(msgs []provider.Message, editorText string) tea.Cmd {
	m.addSeparator()
	cmd := m.printHistoryOf(msgs)
	if editorText != "" && strings.TrimSpace(m.ed.Text()) == "" {
		m.ed.SetText(editorText)
	}
	m.addStatus("Navigated to selected point")
	return tea.Batch(cmd, m.flushCompactionQueue(false))
}
