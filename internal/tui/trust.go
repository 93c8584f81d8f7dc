package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/tui/picker"
)

// cmdTrust is /trust (pi 1.6): choose a project trust decision for future runs; this run keeps the
// decision it started with.
func (m *model) cmdTrust(string) tea.Cmd {
	cwd := m.sess.Store().Cwd()
	saved, err := m.opts.Trust.Get(cwd)
	if err != nil {
		m.addError(err.Error())
		return nil
	}
	m.sel = picker.Trust(m.r, cwd, config.TrustOptions(cwd, false), saved, m.opts.ProjectTrusted)
	return nil
}

func (m *model) saveTrust(o config.TrustOption) {
	if err := m.opts.Trust.SetMany(o.Updates); err != nil {
		m.addError("Could not save the trust decision: " + err.Error())
		return
	}
	decision := "untrusted"
	if o.Trusted {
		decision = "trusted"
	}
	m.addStatus("Saved trust decision: " + decision + ". Restart pi for this to take effect.")
}

// untrustedProjectWarning is shown when the project's resources were not loaded (pi's wording).
const untrustedProjectWarning = "This project is not trusted. Project .pi resources and packages are ignored. Use /trust to save a trust decision, then restart pi."

// UntrustedProjectWarning is that warning, for the startup warnings.
func UntrustedProjectWarning() string { return untrustedProjectWarning }
