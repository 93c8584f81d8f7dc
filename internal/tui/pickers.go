package tui

import (
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/theme"
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

// sessionPicker is /resume and pi -r: this project's sessions or all of them (Tab), most recent first.
type sessionPicker struct {
	*listPicker
	all     bool
	initial bool // opened by pi -r: cancelling quits
}

// sessionsLoadedMsg delivers a session listing.
type sessionsLoadedMsg struct {
	all   bool
	infos []session.Info
	err   error
}

func (m *model) openSessionPicker(initial bool) tea.Cmd {
	sp := &sessionPicker{initial: initial}
	sp.listPicker = newListPicker("Resume Session (Current Folder)", nil, func(m *model, it pickItem) tea.Cmd {
		return m.resumeSession(it.value.(string), sp.initial)
	})
	sp.hint = "tab all/current · ↑↓ navigate · enter resume · esc cancel"
	sp.onCancel = func(m *model) tea.Cmd {
		if sp.initial {
			m.noSessionSelected = true
			m.quit()
		}
		return nil
	}
	sp.onKey = func(m *model, _ *listPicker, name string) (tea.Cmd, bool) {
		if name != "tab" {
			return nil, false
		}
		sp.all = !sp.all
		return sp.load(m), true
	}
	m.sel = sp
	return sp.load(m)
}

// load lists the sessions of the current scope off the UI goroutine.
func (sp *sessionPicker) load(m *model) tea.Cmd {
	sp.title = "Resume Session (Current Folder)"
	if sp.all {
		sp.title = "Resume Session (All)"
	}
	sp.empty = "Loading sessions..."
	sp.setItems(nil)
	all, dir, root := sp.all, m.sessionsDir(), m.opts.SessionsRoot
	if root == "" {
		root = filepath.Dir(dir)
	}
	return m.op(func() tea.Msg {
		var infos []session.Info
		var err error
		if all {
			infos, err = session.ListAll(root)
		} else {
			infos, err = session.List(dir)
		}
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			if m.sel != sp || sp.all != all {
				return nil
			}
			if err != nil {
				sp.empty = "Error: " + err.Error()
				return nil
			}
			sp.fill(m, infos)
			return nil
		}}
	})
}

func (sp *sessionPicker) fill(m *model, infos []session.Info) {
	current := m.sess.Store().SessionFile()
	now := time.Now()
	var items []pickItem
	for _, in := range infos {
		if in.Path == current {
			continue
		}
		text := in.Name
		if text == "" {
			text = in.FirstMessage
		}
		text = strings.Join(strings.FieldsFunc(text, func(r rune) bool { return r < 0x20 || r == 0x7f || r == ' ' }), " ")
		if in.Name != "" {
			text = m.r.Theme().Fg(theme.Warning, text)
		}
		right := itoa(in.MessageCount) + " " + formatAge(now.Sub(in.Modified))
		if sp.all && in.Cwd != "" {
			right = shortenHome(in.Cwd) + " " + right
		}
		items = append(items, pickItem{label: text, right: right, search: in.Name + " " + in.FirstMessage + " " + in.Cwd, value: in.Path})
	}
	if len(items) == 0 {
		sp.empty = "No sessions found"
		if !sp.all {
			sp.empty = "No sessions in current folder. Press Tab to view all."
		}
	}
	sp.setItems(items)
}

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
				m.ed.setText(text)
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
