package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/picker"
)

// pickerReplyMsg carries the answer to a picker's request, made off the UI goroutine, back to the
// picker that asked; it is dropped when that picker has closed in the meantime.
type pickerReplyMsg struct {
	to  picker.Picker
	msg tea.Msg
}

// selectorKey passes a key to the open picker (as the user's tui.select keys make it), after
// telling it the room it has now.
func (m *model) selectorKey(k tea.KeyMsg) tea.Cmd {
	k, ok := m.selectKey(k)
	if !ok {
		return nil
	}
	m.sel, _ = m.sel.Update(picker.Size{Width: m.width, Rows: m.selectorRows()})
	return m.updateSelector(k)
}

// updateSelector passes msg to the open picker and applies what it returns. A picker's command only
// carries its message (a choice, Cancelled, a request), so it is run here, at once: the choice is
// applied before the next key, which reaches whatever the choice opened and not the editor.
func (m *model) updateSelector(msg tea.Msg) tea.Cmd {
	sel, cmd := m.sel.Update(msg)
	m.sel = sel
	return m.runPicker(cmd)
}

// runPicker applies the message of a picker's command.
func (m *model) runPicker(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return m.pickerMsg(cmd())
}

// pickerMsg handles a message of the open picker: a choice or a cancellation closes it; a request
// is carried out and answered.
func (m *model) pickerMsg(msg tea.Msg) tea.Cmd {
	if cmd, ok := m.settingsPickerMsg(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case picker.Cancelled:
		m.sel = nil
	case picker.ModelChosen:
		m.sel = nil
		m.setModel(msg.Model)
	case picker.ScopeChanged:
		m.scopeChanged(msg)
	case picker.ScopeSaved:
		m.scopeSaved(msg)
	case picker.ThinkingChosen:
		m.sel = nil
		m.setThinking(msg.Level)
	case picker.ForkChosen:
		m.sel = nil
		return m.fork(msg.EntryID)
	case picker.EntryChosen:
		m.sel = nil
		return m.navigateTree(msg.ID)
	case picker.RewindChosen:
		m.sel = nil
		return m.rewindFromTree(msg.ID)
	case picker.SetLabel:
		if _, err := m.sess.Store().AppendLabelChange(msg.ID, msg.Label); err != nil {
			m.addError("Could not save the label: " + err.Error())
			return nil
		}
		return m.updateSelector(picker.LabelSaved(msg))
	case summaryChoiceMsg:
		m.sel = nil
		return m.summaryChosen(msg)
	case summaryInstructionsMsg:
		m.sel = nil
		return m.startNavigation(msg.id, msg.options)
	case backToTreeMsg:
		m.sel = nil
		m.openTreeSelector(msg.id)
	case backToSummaryMsg:
		m.sel = nil
		m.askSummary(msg.id)
	case picker.TrustChosen:
		m.sel = nil
		m.saveTrust(msg.Option)
	case pickerAction:
		m.sel = nil
		return msg(m)
	case mcpPickMsg:
		m.sel = nil
		return m.mcpPicked(msg)
	case loginPickMsg:
		m.sel = nil
		return m.loginPicked(msg)
	case importConfirmMsg:
		m.sel = nil
		return m.importConfirmed(msg)
	case extAnswerMsg:
		m.sel = nil
		m.extDialogAnswered(msg)
	default:
		return m.sessionPickerMsg(msg)
	}
	return nil
}

// openModelSelector is Ctrl+L and /model: the available (or scoped) models, searchable.
func (m *model) openModelSelector(search string) {
	m.sel = picker.Models(m.r, m.modelCandidates(), m.sess.Model(), search)
}

// openThinkingSelector is /thinking without an argument.
func (m *model) openThinkingSelector() {
	if mdl := m.sess.Model(); mdl == nil || !mdl.Reasoning {
		m.addStatus("Current model does not support thinking")
		return
	}
	m.sel = picker.ThinkingLevels(m.r, m.sess.AvailableThinkingLevels(), m.sess.ThinkingLevel())
}

// openTreeSelector shows the tree with initial (an entry id) selected, or the current leaf.
func (m *model) openTreeSelector(initial string) {
	store := m.sess.Store()
	roots := store.Tree()
	if len(roots) == 0 {
		m.addStatus("No entries in session")
		return
	}
	tree := picker.NewTree(m.r, roots, store.LeafID(), store.Path(""), initial)
	tree.SetCheckpoints(treeCheckpointMarks(checkpointAnchors(store.Entries(), store.Entry)))
	m.sel = tree
}

// ---- fork ----

// openForkSelector is /fork: pick one of this branch's user messages; a new session continues from
// just before it and its text comes back into the editor.
func (m *model) openForkSelector() {
	msgs := m.sess.ForkMessages()
	if len(msgs) == 0 {
		m.addStatus("No messages to fork from")
		return
	}
	points := make([]picker.ForkPoint, len(msgs))
	for i, fm := range msgs {
		points[i] = picker.ForkPoint{EntryID: fm.EntryID, Text: fm.Text}
	}
	m.sel = picker.Fork(m.r, points)
}

// fork starts a new session from just before the user message entryID.
func (m *model) fork(entryID string) tea.Cmd {
	sess := m.sess
	return m.op(func() tea.Msg {
		text, err := sess.Fork(entryID)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			m.sessionChanged()
			if err != nil {
				m.addError(err.Error())
				return nil
			}
			return m.showForked(m.sess.Messages(), text)
		}}
	})
}

// showForked shows the forked session (/fork, an extension's ctx.fork()) with the forked message's
// text in the editor.
func (m *model) showForked(msgs []provider.Message, text string) tea.Cmd {
	m.sessionReplaced()
	// As pi re-renders the chat: the new session's conversation, under a rule.
	m.addSeparator()
	cmd := m.printHistoryOf(msgs)
	m.ed.SetText(text)
	m.addStatus("Forked to new session")
	return cmd
}

// addSeparator marks in the scrollback where another session's (or branch's) conversation starts.
func (m *model) addSeparator() {
	m.addBlock(func(w int) []string { return m.r.TurnSeparator("", w) })
}
