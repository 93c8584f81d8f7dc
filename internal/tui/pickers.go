package tui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
)

// ---- models ----

// openModelSelector is Ctrl+L and /model: the available (or scoped) models, searchable.
func (m *model) openModelSelector(search string) {
	cur := m.sess.Model()
	var items []pickItem
	for _, mdl := range m.modelCandidates() {
		items = append(items, pickItem{label: mdl.ID, detail: "[" + mdl.Provider + "]",
			search: mdl.Provider + "/" + mdl.ID + " " + mdl.Name, value: mdl, mark: provider.SameModel(mdl, cur)})
	}
	p := newListPicker("Select model", items, func(m *model, it pickItem) tea.Cmd {
		m.setModel(it.value.(*provider.Model))
		return nil
	})
	p.empty = "No models available. Set an API key or add a provider to ~/.pi/agent/models.json."
	p.hint = "↑↓ navigate · enter select · esc cancel"
	if search != "" {
		p.query = []rune(search)
		p.filter()
	}
	m.sel = p
}

// openThinkingSelector is /thinking without an argument.
func (m *model) openThinkingSelector() {
	if mdl := m.sess.Model(); mdl == nil || !mdl.Reasoning {
		m.addStatus("Current model does not support thinking")
		return
	}
	cur := m.sess.ThinkingLevel()
	var items []pickItem
	for _, l := range m.sess.AvailableThinkingLevels() {
		items = append(items, pickItem{label: string(l), value: l, mark: l == cur})
	}
	p := newListPicker("Thinking level", items, func(m *model, it pickItem) tea.Cmd {
		m.setThinking(it.value.(provider.ThinkingLevel))
		return nil
	})
	p.hint = "↑↓ navigate · enter select · esc cancel"
	m.sel = p
}

// ---- sessions ----

func (m *model) sessionsDir() string {
	if m.opts.SessionsDir != "" {
		return m.opts.SessionsDir
	}
	return m.sess.Store().SessionDir()
}

// resumeSession switches to another session file and prints its conversation.
func (m *model) resumeSession(path string, initial bool) tea.Cmd {
	sess := m.sess
	return m.op(func() tea.Msg {
		err := sess.SwitchSession(path)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			m.sessionChanged()
			if err != nil {
				m.addError("Failed to resume session: " + err.Error())
				if initial {
					m.quit()
				}
				return nil
			}
			if !initial {
				m.addSeparator()
			}
			cmd := m.printHistory()
			m.addStatus("Resumed session")
			m.setTitle()
			if initial {
				return tea.Batch(cmd, m.sendNextInitial())
			}
			return cmd
		}}
	})
}

// addSeparator marks in the scrollback where another session's (or branch's) conversation starts.
func (m *model) addSeparator() {
	m.addLines(m.r.TurnSeparator("", m.width))
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

// ---- fork ----

// openForkSelector is /fork: pick one of this branch's user messages; a new session continues from
// just before it and its text comes back into the editor.
func (m *model) openForkSelector() {
	msgs := m.sess.ForkMessages()
	if len(msgs) == 0 {
		m.addStatus("No messages to fork from")
		return
	}
	var items []pickItem
	for _, fm := range msgs {
		items = append(items, pickItem{label: oneLine(fm.Text), search: fm.Text, value: fm})
	}
	p := newListPicker("Fork from message", items, func(m *model, it pickItem) tea.Cmd {
		entry := it.value.(harness.ForkMessage)
		sess := m.sess
		return m.op(func() tea.Msg {
			text, err := sess.Fork(entry.EntryID)
			return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
				m.sessionChanged()
				if err != nil {
					m.addError(err.Error())
					return nil
				}
				// As pi re-renders the chat: the new session's conversation, under a rule.
				m.addSeparator()
				cmd := m.printHistory()
				m.ed.SetText(text)
				m.addStatus("Forked to new session")
				return cmd
			}}
		})
	})
	p.cursor = len(items) - 1
	p.hint = "↑↓ navigate · enter fork · esc cancel"
	m.sel = p
}

// oneLine squeezes whitespace and line breaks into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// shortenHome shows a path under the home directory with "~".
func shortenHome(p string) string {
	if home := homeDir(); home != "" && strings.HasPrefix(p, home) {
		return "~" + strings.TrimPrefix(p, home)
	}
	return p
}
