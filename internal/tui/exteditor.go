package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/keymap"
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

// An extension's editor (ctx.ui.setEditorComponent) lives in the extension host, which renders it
// as a component of kind "editor": drawn in the place of pi-go's editor, it gets every key (as the
// bytes a terminal sends). pi-go's editor keeps a copy of its text (editorChange), so Escape's
// restore, Ctrl+C's clear and the prompt pipeline work on it; a change pi-go makes goes back with the
// mirror (ui_editor). Its submit runs pi-go's submit; the app keys it hands back run pi-go's actions.

// extEditorMsg is the extension editor's text changing, its submit, or an app action it handed back.
type extEditorMsg struct {
	kind   string // "change", "submit" or "action"
	text   string
	action string
}

// EditorChange is the extension editor's text after a change.
func (u *ExtensionUI) EditorChange(text string) {
	u.relay.send(extEditorMsg{kind: "change", text: text})
}

// EditorSubmit submits text from the extension's editor as the user's prompt.
func (u *ExtensionUI) EditorSubmit(text string) {
	u.relay.send(extEditorMsg{kind: "submit", text: text})
}

// EditorAction runs the app action (pi's keybinding id) the extension's editor handed back; text is
// the editor's text at that moment.
func (u *ExtensionUI) EditorAction(action, text string) {
	u.relay.send(extEditorMsg{kind: "action", action: action, text: text})
}

func (msg extEditorMsg) apply(m *model) tea.Cmd {
	if !m.ext.hasEditor {
		return nil
	}
	m.ed.SetText(msg.text)
	// The host has this text already: no echo.
	m.ext.editorText, m.ext.editorTextSent = m.ed.ExpandedText(), true
	switch msg.kind {
	case "submit":
		return m.submit(false)
	case "action":
		return m.extEditorAction(msg.action)
	}
	return nil
}

// extEditorAction runs one of the app actions pi wires into a CustomEditor.
func (m *model) extEditorAction(action string) tea.Cmd {
	switch action {
	case "app.interrupt":
		return m.escape()
	case "app.exit":
		if m.ed.Empty() {
			m.quit()
		}
	case "app.clear":
		return m.ctrlC()
	case "app.suspend":
		return m.suspend()
	case "app.thinking.cycle":
		m.cycleThinking()
	case "app.model.cycleForward", "app.model.cycleBackward":
		m.cycleModel()
	case "app.model.select":
		m.openModelSelector("")
	case "app.tools.expand":
		m.toggleExpand()
	case "app.thinking.toggle":
		m.toggleThinking()
	case "app.editor.external":
		return m.externalEditor()
	case "app.message.followUp":
		if m.busy() {
			return m.submit(true)
		}
	case "app.message.dequeue":
		m.dequeue()
	case "app.session.new":
		return m.cmdNew("")
	case "app.session.tree":
		m.openTreeSelector("")
	case "app.session.fork":
		m.openForkSelector()
	case "app.session.resume":
		return m.openSessionPicker(false)
	}
	return nil
}

// extEditorKey hands k to the extension's editor, when one is shown.
func (m *model) extEditorKey(k tea.KeyMsg) bool {
	if !m.ext.hasEditor {
		return false
	}
	if in := m.opts.ExtensionUI.hooks.Input; in != nil {
		for _, data := range terminalInputs(k) {
			in("editor", data)
		}
	}
	return true
}

// terminalInputs are the inputs a component's handleInput gets for k: typed characters one at a
// time, as pi-tui splits what the terminal sends (several runes come in one key when typed fast),
// anything else as terminalBytes.
func terminalInputs(k tea.KeyMsg) []string {
	if k.Type == tea.KeyRunes && !k.Paste && !k.Alt && len(k.Runes) > 1 && !keymap.Synthetic(k) {
		out := make([]string, len(k.Runes))
		for i, r := range k.Runes {
			out[i] = string(r)
		}
		return out
	}
	if data := terminalBytes(k); data != "" {
		return []string{data}
	}
	return nil
}

// extEditorLines is the extension's editor, when one is shown.
func (m *model) extEditorLines(w int) ([]string, bool) {
	if !m.ext.hasEditor {
		return nil, false
	}
	return m.extLines(m.ext.editor, w), true
}
