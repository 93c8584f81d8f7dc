package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/keymap"
)

// keymapDefinitions are the ids of pi's keybinding actions.
func keymapDefinitions() []string {
	ids := make([]string, len(keymap.Definitions))
	for i, d := range keymap.Definitions {
		ids[i] = d.ID
	}
	return ids
}

// keyName is the name a key message has for a key in pi's notation ("ctrl+shift+p"), compared
// without case as pi compares shortcuts.
func keyName(s string) (string, error) { return keymap.Name(strings.ToLower(s)) }

// keyMsgName is the name of a key message, as keyName names keys.
func keyMsgName(k tea.KeyMsg) string { return editor.KeyName(k) }

// legacyKeys are the bytes terminals send for the named keys by default, which pi-tui's key parser
// reads.
var legacyKeys = map[tea.KeyType]string{
	tea.KeyEnter: "\r", tea.KeyEsc: "\x1b", tea.KeyTab: "\t", tea.KeyShiftTab: "\x1b[Z",
	tea.KeyBackspace: "\x7f", tea.KeyDelete: "\x1b[3~", tea.KeySpace: " ",
	tea.KeyUp: "\x1b[A", tea.KeyDown: "\x1b[B", tea.KeyRight: "\x1b[C", tea.KeyLeft: "\x1b[D",
	tea.KeyHome: "\x1b[H", tea.KeyEnd: "\x1b[F", tea.KeyPgUp: "\x1b[5~", tea.KeyPgDown: "\x1b[6~",
	tea.KeyInsert:  "\x1b[2~",
	tea.KeyShiftUp: "\x1b[1;2A", tea.KeyShiftDown: "\x1b[1;2B", tea.KeyShiftRight: "\x1b[1;2C", tea.KeyShiftLeft: "\x1b[1;2D",
	tea.KeyCtrlUp: "\x1b[1;5A", tea.KeyCtrlDown: "\x1b[1;5B", tea.KeyCtrlRight: "\x1b[1;5C", tea.KeyCtrlLeft: "\x1b[1;5D",
	tea.KeyF1: "\x1bOP", tea.KeyF2: "\x1bOQ", tea.KeyF3: "\x1bOR", tea.KeyF4: "\x1bOS",
}

// kittyModifiers are the modifier bits of the kitty keyboard protocol (value − 1).
var kittyModifiers = map[string]int{"shift": 1, "alt": 2, "ctrl": 4, "super": 8}

// terminalBytes is what a terminal sends for k, for an extension component's handleInput: typed
// text as UTF-8 (Alt as an ESC prefix), control keys as their byte, named keys as the legacy
// sequences, and keys only the kitty protocol can tell apart ("ctrl+shift+p") as its CSI u form.
func terminalBytes(k tea.KeyMsg) string {
	if k.Paste {
		return "\x1b[200~" + string(k.Runes) + "\x1b[201~"
	}
	prefix := ""
	if k.Alt {
		prefix = "\x1b"
	}
	if keymap.Synthetic(k) {
		return kittySequence(string(k.Runes))
	}
	switch {
	case k.Type == tea.KeyRunes:
		return prefix + string(k.Runes)
	case legacyKeys[k.Type] != "":
		return prefix + legacyKeys[k.Type]
	case k.Type >= tea.KeyCtrlAt && k.Type <= tea.KeyCtrlUnderscore:
		return prefix + string(rune(k.Type))
	}
	return ""
}

// kittySequence is the kitty protocol's CSI u sequence for a named key ("ctrl+shift+p").
func kittySequence(name string) string {
	parts := strings.Split(name, "+")
	base := parts[len(parts)-1]
	mods := 0
	for _, p := range parts[:len(parts)-1] {
		mods |= kittyModifiers[p]
	}
	code := map[string]int{"enter": 13, "tab": 9, "escape": 27, "esc": 27, "backspace": 127, "space": 32}[base]
	if code == 0 {
		r := []rune(base)
		if len(r) != 1 {
			return ""
		}
		code = int(r[0])
	}
	return fmt.Sprintf("\x1b[%d;%du", code, mods+1)
}
