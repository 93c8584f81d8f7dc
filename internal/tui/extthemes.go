package tui

import (
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// extThemePathsMsg: the theme paths extensions contributed changed (resources_discover).
type extThemePathsMsg struct{ paths []string }

// SetThemePaths makes the theme files or directories extensions contributed part of the theme
// catalog; the theme setting is applied again, so a setting that names one of them takes effect.
func (u *ExtensionUI) SetThemePaths(paths []string) {
	u.relay.send(extThemePathsMsg{paths: slices.Clone(paths)})
}

func (msg extThemePathsMsg) apply(m *model) tea.Cmd {
	if slices.Equal(msg.paths, m.themes.extension) {
		return nil
	}
	m.themes.extension = msg.paths
	th, warnings := m.pickTheme()
	for _, w := range warnings {
		// The other files' problems were shown at start-up.
		if slices.ContainsFunc(msg.paths, func(p string) bool { return strings.Contains(w, p) }) {
			m.addWarning(w)
		}
	}
	m.setTheme(th)
	return m.watchTheme()
}
