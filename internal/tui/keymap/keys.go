package keymap

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
)

// modifiers of a key, in the order key names write them (Bubble Tea's: alt first).
type modifiers struct{ alt, ctrl, shift, super bool }

var specialKeys = map[string]string{ // pi's name → the base name in Bubble Tea's key strings
	"escape": "esc", "esc": "esc", "enter": "enter", "return": "enter", "tab": "tab", "space": "space",
	"backspace": "backspace", "delete": "delete", "insert": "insert", "clear": "clear", "home": "home",
	"end": "end", "pageUp": "pgup", "pageDown": "pgdown", "up": "up", "down": "down", "left": "left", "right": "right",
}

const symbolKeys = "`-=[]\\;',./!@#$%^&*()_+|~{}:<>?"

// parseKey reads a key as keybindings.json writes it ("ctrl+shift+x", "super+k", "pageUp", "ctrl++").
func parseKey(s string) (modifiers, string, error) {
	var m modifiers
	rest := s
	for {
		mod, after, found := strings.Cut(rest, "+")
		if !found || after == "" {
			break // the last part is the key itself (which may be "+")
		}
		var dup bool
		switch mod {
		case "ctrl":
			dup, m.ctrl = m.ctrl, true
		case "shift":
			dup, m.shift = m.shift, true
		case "alt":
			dup, m.alt = m.alt, true
		case "super":
			dup, m.super = m.super, true
		default:
			return m, "", fmt.Errorf("%q: unknown modifier %q (use ctrl, shift, alt, super)", s, mod)
		}
		if dup {
			return m, "", fmt.Errorf("%q: modifier %q given twice", s, mod)
		}
		rest = after
	}
	switch {
	case len(rest) == 1 && (rest[0] >= 'a' && rest[0] <= 'z' || rest[0] >= '0' && rest[0] <= '9' || strings.Contains(symbolKeys, rest)):
		return m, rest, nil
	case specialKeys[rest] != "":
		return m, specialKeys[rest], nil
	case len(rest) >= 2 && len(rest) <= 3 && rest[0] == 'f':
		if n, err := strconv.Atoi(rest[1:]); err == nil && n >= 1 && n <= 12 && rest[1] != '0' {
			return m, rest, nil
		}
	}
	return m, "", fmt.Errorf("%q: unknown key %q", s, rest)
}

// Name is the key string Bubble Tea gives the key s ("escape" → "esc", "pageUp" → "pgup",
// "shift+l" → "L", "ctrl+-" → "ctrl+_"), which the bindings compare; keys Bubble Tea v1 has no name
// for (super, ctrl+shift+letter, ...) get the name ExtendedKey gives their CSI sequences.
func Name(s string) (string, error) {
	m, base, err := parseKey(s)
	if err != nil {
		return "", err
	}
	return name(m, base), nil
}

func name(m modifiers, base string) string {
	if !m.super {
		if n, ok := legacyName(m, base); ok {
			return n
		}
	}
	var b strings.Builder
	for _, p := range []struct {
		on   bool
		name string
	}{{m.alt, "alt+"}, {m.ctrl, "ctrl+"}, {m.shift, "shift+"}, {m.super, "super+"}} {
		if p.on {
			b.WriteString(p.name)
		}
	}
	b.WriteString(base)
	return b.String()
}

// legacyName is the name Bubble Tea v1 decodes the key to from what terminals send by default.
func legacyName(m modifiers, base string) (string, bool) {
	alt := ""
	if m.alt {
		alt = "alt+"
	}
	letter := len(base) == 1 && base[0] >= 'a' && base[0] <= 'z'
	switch {
	case !m.ctrl && !m.shift:
		if base == "space" {
			return alt + " ", true
		}
		return alt + base, true
	case m.ctrl && !m.shift && (letter || strings.Contains(`]\^_@`, base) && len(base) == 1):
		return alt + "ctrl+" + base, true
	case m.ctrl && !m.shift && base == "-":
		return alt + "ctrl+_", true // the terminal sends 0x1f for ctrl+- as for ctrl+_
	case m.ctrl && !m.shift && base == "space":
		return alt + "ctrl+@", true
	case m.shift && !m.ctrl && letter:
		return alt + strings.ToUpper(base), true
	case m.shift && !m.ctrl && (base == "tab" || base == "enter"):
		return "shift+" + base, !m.alt
	}
	switch base {
	case "up", "down", "left", "right", "home", "end":
		switch {
		case m.ctrl && m.shift:
			return alt + "ctrl+shift+" + base, true
		case m.ctrl:
			return alt + "ctrl+" + base, true
		default:
			return alt + "shift+" + base, true
		}
	case "pgup", "pgdown":
		if m.ctrl && !m.shift {
			return alt + "ctrl+" + base, true
		}
	}
	return "", false
}

// csiKeys are the unmodified keys of CSI sequences: the kitty keyboard protocol's codepoints (CSI
// code;mods u, and xterm's CSI 27;mods;code ~) and the cursor and editing keys (CSI 1;mods X,
// CSI n;mods ~).
var (
	csiLetterKeys = map[byte]string{'A': "up", 'B': "down", 'C': "right", 'D': "left", 'H': "home", 'F': "end",
		'P': "f1", 'Q': "f2", 'R': "f3", 'S': "f4"}
	csiTildeKeys = map[int]string{13: "enter", 2: "insert", 3: "delete", 5: "pgup", 6: "pgdown", 7: "home", 8: "end",
		15: "f5", 17: "f6", 18: "f7", 19: "f8", 20: "f9", 21: "f10", 23: "f11", 24: "f12"}
	codepointKeys = map[int]string{9: "tab", 13: "enter", 27: "esc", 32: "space", 127: "backspace"}
)

// decodeCSI reads a key with modifiers from a CSI sequence; ok is false for anything else.
func decodeCSI(seq string) (modifiers, string, bool) {
	body, ok := strings.CutPrefix(seq, "\x1b[")
	if !ok || len(body) < 2 {
		return modifiers{}, "", false
	}
	final := body[len(body)-1]
	params := strings.Split(body[:len(body)-1], ";")
	num := func(s string) int {
		s, _, _ = strings.Cut(s, ":") // kitty's alternate keys and event types
		n, err := strconv.Atoi(s)
		if err != nil {
			return -1
		}
		return n
	}
	mods := func(s string) (modifiers, bool) {
		n := num(s) - 1
		if n < 0 {
			return modifiers{}, false
		}
		return modifiers{shift: n&1 != 0, alt: n&2 != 0, ctrl: n&4 != 0, super: n&8 != 0}, true
	}
	code := func(n int) (string, bool) {
		if k, ok := codepointKeys[n]; ok {
			return k, true
		}
		if n >= 'A' && n <= 'Z' {
			n += 'a' - 'A'
		}
		if n >= 'a' && n <= 'z' || n >= '0' && n <= '9' || n > 32 && n < 127 && strings.ContainsRune(symbolKeys, rune(n)) {
			return string(rune(n)), true
		}
		return "", false
	}
	switch {
	case final == 'u' && len(params) >= 1:
		m, okm := modifiers{}, true
		if len(params) >= 2 {
			m, okm = mods(params[1])
		}
		k, okk := code(num(params[0]))
		return m, k, okm && okk
	case final == '~' && len(params) == 3 && params[0] == "27":
		m, okm := mods(params[1])
		k, okk := code(num(params[2]))
		return m, k, okm && okk
	case final == '~' && len(params) == 2:
		m, okm := mods(params[1])
		k, okk := csiTildeKeys[num(params[0])]
		return m, k, okm && okk
	case csiLetterKeys[final] != "" && len(params) == 2 && params[0] == "1":
		m, okm := mods(params[1])
		return m, csiLetterKeys[final], okm
	}
	return modifiers{}, "", false
}

// ExtendedKey turns a key Bubble Tea v1 does not decode (it reports the CSI sequence as unknown,
// an unexported []byte type read by reflection) into a key message named as the bindings name it:
// super+k, ctrl+shift+p, shift+enter from the kitty keyboard protocol or xterm's modifyOtherKeys.
// Bubble Tea's message shares its input buffer, whose first bytes a following read may already
// have overwritten, so only the sequence's tail after "\x1b[" is trusted.
func ExtendedKey(msg tea.Msg) (tea.KeyMsg, bool) {
	v := reflect.ValueOf(msg)
	if !v.IsValid() || v.Kind() != reflect.Slice || v.Type().Elem().Kind() != reflect.Uint8 ||
		!strings.Contains(v.Type().Name(), "CSI") {
		return tea.KeyMsg{}, false
	}
	seq := string(v.Bytes())
	if len(seq) < 3 {
		return tea.KeyMsg{}, false
	}
	m, base, ok := decodeCSI("\x1b[" + seq[2:])
	if !ok {
		return tea.KeyMsg{}, false
	}
	n := name(m, base)
	if !m.super {
		if legacy, ok := legacyName(m, base); ok && legacy != "shift+enter" {
			return keyMsgFor(legacy), true
		}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(n)}, true
}

// keyMsgFor is the message Bubble Tea would have sent for a key it names.
func keyMsgFor(name string) tea.KeyMsg {
	alt := false
	if rest, ok := strings.CutPrefix(name, "alt+"); ok && rest != "" {
		alt, name = true, rest
	}
	for t, n := range teaKeyNames() {
		if n == name {
			return tea.KeyMsg{Type: t, Alt: alt}
		}
	}
	if name == " " {
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}, Alt: alt}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name), Alt: alt}
}

// teaKeyNames lists Bubble Tea's key types with their names (built once, never modified).
var teaKeyNames = sync.OnceValue(func() map[tea.KeyType]string {
	out := map[tea.KeyType]string{}
	for t := tea.KeyType(-200); t <= 127; t++ {
		if t == tea.KeyRunes {
			continue
		}
		if s := t.String(); s != "" && !strings.HasPrefix(s, "KeyType(") {
			out[t] = s
		}
	}
	return out
})

// Synthetic reports whether k is a key ExtendedKey made up (a name, not text to type).
func Synthetic(k tea.KeyMsg) bool {
	if k.Type != tea.KeyRunes || k.Paste || len(k.Runes) < 2 {
		return false
	}
	s := string(k.Runes)
	for _, p := range []string{"alt+", "ctrl+", "shift+", "super+"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
