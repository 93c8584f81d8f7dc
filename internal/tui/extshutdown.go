package tui

import tea "github.com/charmbracelet/bubbletea"

// Shutdown is an extension's ctx.shutdown(): pi-go quits as with /quit, at once when idle, else
// when the current run has settled (pi's interactive mode checks at agent_settled).
func (u *ExtensionUI) Shutdown() { u.relay.send(extShutdownMsg{}) }

type extShutdownMsg struct{}

func (extShutdownMsg) apply(m *model) tea.Cmd {
	m.shutdownAsked = true
	m.quitIfShutdownAsked()
	return nil
}

// quitIfShutdownAsked quits when an extension asked to and nothing runs any more.
func (m *model) quitIfShutdownAsked() bool {
	if m.shutdownAsked && !m.busy() {
		m.quit()
		return true
	}
	return false
}
