package tui

import (
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/keymap"
	"github.com/pi-go/pi-go/internal/tui/render"
)

// editorActions are the editing keybindings, in pi's order (the first match wins).
var editorActions = []struct {
	id string
	do func(*editor.Editor)
}{
	{keymap.EditorCursorLeft, (*editor.Editor).CursorLeft},
	{keymap.EditorCursorRight, (*editor.Editor).CursorRight},
	{keymap.EditorCursorWordLeft, (*editor.Editor).CursorWordLeft},
	{keymap.EditorCursorWordRight, (*editor.Editor).CursorWordRight},
	{keymap.EditorCursorLineStart, (*editor.Editor).CursorLineStart},
	{keymap.EditorCursorLineEnd, (*editor.Editor).CursorLineEnd},
	{keymap.EditorDeleteCharBackward, (*editor.Editor).DeleteCharBackward},
	{keymap.EditorDeleteCharForward, (*editor.Editor).DeleteCharForward},
	{keymap.EditorDeleteWordBackward, (*editor.Editor).DeleteWordBackward},
	{keymap.EditorDeleteWordForward, (*editor.Editor).DeleteWordForward},
	{keymap.EditorDeleteToLineStart, (*editor.Editor).DeleteToLineStart},
	{keymap.EditorDeleteToLineEnd, (*editor.Editor).DeleteToLineEnd},
	{keymap.EditorYank, (*editor.Editor).Yank},
	{keymap.EditorYankPop, (*editor.Editor).YankPop},
	{keymap.EditorUndo, (*editor.Editor).Undo},
}

// editorKey gives a key no application action took to the editor: its bound editing action, or
// the text it types. Keys bound to nothing (a disabled action's) do nothing.
func (m *model) editorKey(k tea.KeyMsg) {
	for _, a := range editorActions {
		if m.keys.Matches(k, a.id) {
			a.do(m.ed)
			return
		}
	}
	if !keymap.Synthetic(k) {
		m.ed.Type(k)
	}
}

// loadKeys reads the agent directory's keybindings.json (pi's old ids are migrated in the file,
// as pi does at startup); problems and the migration become notices.
func (m *model) loadKeys() []string {
	if m.opts.AgentDir == "" {
		m.keys = keymap.Default()
		return nil
	}
	path := filepath.Join(m.opts.AgentDir, "keybindings.json")
	var notices []string
	renamed, err := keymap.Migrate(path)
	if err != nil {
		notices = append(notices, err.Error())
	}
	if len(renamed) > 0 {
		notices = append(notices, "keybindings "+path+": migrated old action ids: "+strings.Join(renamed, ", "))
	}
	km, problems, migrated := keymap.Load(path)
	if len(migrated) > 0 && len(renamed) == 0 {
		notices = append(notices, "keybindings "+path+": old action ids read as: "+strings.Join(migrated, ", "))
	}
	for _, p := range problems {
		notices = append(notices, p.Error())
	}
	m.keys = km
	return notices
}

// renderKeys are the keys the hints show ("ctrl+o to expand"), from the keymap: all of an
// action's keys, joined with "/", as pi 1.6 writes them.
func (m *model) renderKeys() render.Keys {
	k := func(id string) string { return strings.Join(m.keys.Keys(id), "/") }
	return render.Keys{
		Expand: k(keymap.AppToolsExpand), ToggleThinking: k(keymap.AppThinkingToggle),
		Interrupt: k(keymap.AppInterrupt), Dequeue: k(keymap.AppDequeue), Clear: k(keymap.AppClear),
		Exit: k(keymap.AppExit), FollowUp: k(keymap.AppFollowUp), CycleThinking: k(keymap.AppThinkingCycle),
		SelectModel: k(keymap.AppModelSelect), ExternalEditor: k(keymap.AppEditorExternal),
	}
}

// reloadKeysAndTheme is /reload's part: keybindings.json and the theme setting read again.
func (m *model) reloadKeysAndTheme() tea.Cmd {
	for _, n := range m.loadKeys() {
		m.addWarning(n)
	}
	th, warnings := m.pickTheme()
	for _, w := range warnings {
		m.addWarning(w)
	}
	m.setTheme(th)
	return m.watchTheme()
}
