package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
)

// SessionChangeKind is what an extension did to the session outside the TUI's own commands.
type SessionChangeKind int

const (
	// SessionStarted: ctx.newSession(), as /new.
	SessionStarted SessionChangeKind = iota + 1
	// SessionResumed: ctx.switchSession(path), as /resume.
	SessionResumed
	// SessionForked: ctx.fork(entryId), as /fork.
	SessionForked
	// SessionNavigated: ctx.navigateTree(targetId), as /tree.
	SessionNavigated
	// SessionSettingsChanged: pi.setModel, pi.setThinkingLevel or pi.setActiveTools changed what the
	// footer shows.
	SessionSettingsChanged
)

// SessionChange tells the TUI about a change an extension made to the session, so that it is shown
// exactly as the matching built-in command shows it.
type SessionChange struct {
	Kind SessionChangeKind
	// Messages are the session's messages right after the change (nil for SessionSettingsChanged):
	// what the extension does next (a sendMessage) arrives as events after them and must not be
	// drawn twice.
	Messages []provider.Message
	// EditorText: the forked message's text (SessionForked) or the navigation's (SessionNavigated).
	EditorText string
}

// extSessionMsg carries a SessionChange through the inbox, in order with the session's events.
type extSessionMsg SessionChange

// SessionChanged reports a change an extension made to the session. It returns at once; the TUI shows
// the change after the session events that came before it.
func (u *ExtensionUI) SessionChanged(c SessionChange) {
	if u == nil {
		return
	}
	u.relay.send(extSessionMsg(c))
}

// extSessionChanged shows an extension's session change through the built-in commands' own steps.
func (m *model) extSessionChanged(c extSessionMsg) tea.Cmd {
	switch c.Kind {
	case SessionSettingsChanged:
		m.footerDirty = true
		return nil
	case SessionNavigated:
		// The same session, another branch: its run and queues stay, as after /tree.
		return m.showNavigated(c.Messages, c.EditorText)
	}
	// The old session's run state goes as with /new; a command still in flight keeps its indicator
	// until it returns (promptDoneMsg).
	m.run = runState{prompting: m.run.prompting}
	m.sessionChanged()
	switch c.Kind {
	case SessionStarted:
		m.showNewSession()
		return nil
	case SessionResumed:
		return m.showResumed(c.Messages)
	case SessionForked:
		return m.showForked(c.Messages, c.EditorText)
	}
	return nil
}
