package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/keymap"
	"github.com/pi-go/pi-go/internal/tui/picker"
)

// The pickers read pi's default selection keys (up, down, pageUp, pageDown, enter, escape and
// Ctrl+C). The user's tui.select.* bindings are applied here, once for every picker: a key bound to
// a selection action reaches the picker as that action's default key, and a default key the user
// moved away from its action reaches it not at all.

// selectActions are pi 1.6's tui.select actions, each with the key the pickers read for it.
var selectActions = []struct {
	id  string
	key tea.KeyMsg
}{
	{"tui.select.up", tea.KeyMsg{Type: tea.KeyUp}},
	{"tui.select.down", tea.KeyMsg{Type: tea.KeyDown}},
	{"tui.select.pageUp", tea.KeyMsg{Type: tea.KeyPgUp}},
	{"tui.select.pageDown", tea.KeyMsg{Type: tea.KeyPgDown}},
	{"tui.select.confirm", tea.KeyMsg{Type: tea.KeyEnter}},
	{"tui.select.cancel", tea.KeyMsg{Type: tea.KeyEsc}},
}

// defaultKeys is pi's keymap without the user's changes: the keys the pickers are written for.
var defaultKeys = keymap.Default()

// selectKey is the key the open picker gets for k; ok is false when k is a default selection key
// the user's keymap no longer binds to any selection action. The one-field text dialog is left as
// it is: its Enter is pi's tui.input.submit, not a selection.
func (m *model) selectKey(k tea.KeyMsg) (tea.KeyMsg, bool) {
	if k.Paste {
		return k, true
	}
	if _, text := m.sel.(*picker.TextInput); text {
		return k, true
	}
	for _, a := range selectActions {
		if !m.keys.Matches(k, a.id) {
			continue
		}
		if defaultKeys.Matches(k, a.id) {
			return k, true // one of the action's own keys: the picker reads it as it is
		}
		return a.key, true
	}
	for _, a := range selectActions {
		if defaultKeys.Matches(k, a.id) {
			return k, false
		}
	}
	return k, true
}
