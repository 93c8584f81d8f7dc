package tui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// The editor and theme as extensions reach them: ctx.ui.getEditorText() reads a mirror of the
// editor's text the TUI keeps up to date at each frame, and ctx.ui.setTheme(name) switches pi-go's
// theme and saves it, as pi's does.

// extSetThemeMsg is an extension's ctx.ui.setTheme(name).
type extSetThemeMsg struct{ name string }

// SetTheme switches to the theme named and saves it in the settings.
func (u *ExtensionUI) SetTheme(name string) { u.relay.send(extSetThemeMsg{name}) }

func (msg extSetThemeMsg) apply(m *model) tea.Cmd {
	if m.themes.catalog == nil {
		return nil
	}
	th, err := m.themes.catalog.Select(msg.name, m.themes.appearance, m.themes.profile)
	if err != nil {
		m.addWarning("setTheme: " + err.Error())
		return nil
	}
	if m.opts.Settings != nil && m.settings().Theme != msg.name {
		if err := m.opts.Settings.Set("theme", msg.name); err != nil {
			m.addWarning(err.Error())
		}
	}
	m.setTheme(th)
	m.toggled()
	return m.watchTheme()
}

// syncExtEditorText tells the host the editor's text when it changed since the last frame.
func (m *model) syncExtEditorText() {
	tell := m.opts.ExtensionUI.hooks.EditorText
	if tell == nil {
		return
	}
	text := m.ed.ExpandedText()
	if m.ext.editorTextSent && text == m.ext.editorText {
		return
	}
	m.ext.editorText, m.ext.editorTextSent = text, true
	tell(text)
}
