package keymap

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"escape": "esc", "esc": "esc", "return": "enter", "pageUp": "pgup", "ctrl+pageDown": "ctrl+pgdown",
		"ctrl+c": "ctrl+c", "alt+enter": "alt+enter", "shift+tab": "shift+tab", "shift+l": "L", "alt+shift+t": "alt+T",
		"ctrl+-": "ctrl+_", "ctrl+]": "ctrl+]", "ctrl+alt+]": "alt+ctrl+]", "alt+ctrl+x": "alt+ctrl+x",
		"ctrl+shift+up": "ctrl+shift+up", "ctrl+home": "ctrl+home", "space": " ", "ctrl+space": "ctrl+@",
		"shift+enter": "shift+enter", "super+k": "super+k", "ctrl+super+k": "ctrl+super+k",
		"super+shift+alt+ctrl+x": "alt+ctrl+shift+super+x", "shift+ctrl+p": "ctrl+shift+p", "ctrl+1": "ctrl+1",
		"f12": "f12", "+": "+", "ctrl++": "ctrl++", "a": "a", "?": "?",
	} {
		got, err := Name(in)
		if err != nil || got != want {
			t.Errorf("Name(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ctrl+", "hyper+x", "ctrl+ctrl+x", "ctrl+A", "f13", "f0", "pageup", "ctrl+xx", "ctrl+é"} {
		if got, err := Name(bad); err == nil {
			t.Errorf("Name(%q) = %q, want an error", bad, got)
		}
	}
}

// csiMsg is what Bubble Tea v1 sends for a CSI sequence it does not know (an unexported type named
// unknownCSISequenceMsg; a local type of the same kind stands in).
type unknownCSISequenceMsg []byte

func TestExtendedKey(t *testing.T) {
	for seq, want := range map[string]string{
		"\x1b[107;9u":     "super+k",
		"\x1b[107;13u":    "ctrl+super+k",
		"\x1b[112;6u":     "ctrl+shift+p",
		"\x1b[13;2u":      "shift+enter",
		"\x1b[27;2;13~":   "shift+enter",
		"\x1b[13;2~":      "shift+enter",
		"x[13;2u":         "shift+enter", // the sequence's first byte overwritten by the next read
		"\x1b[13;5u":      "ctrl+enter",
		"\x1b[99;5u":      "ctrl+c",
		"\x1b[1;9A":       "super+up",
		"\x1b[5;9~":       "super+pgup",
		"\x1b[49;5u":      "ctrl+1",
		"\x1b[108;2u":     "L",
		"\x1b[97;3u":      "alt+a",
		"\x1b[13;3u":      "alt+enter",
		"\x1b[107;9:1u":   "super+k", // kitty's press event type
		"\x1b[107:75;10u": "shift+super+k",
	} {
		k, ok := ExtendedKey(unknownCSISequenceMsg(seq))
		if !ok || k.String() != want {
			t.Errorf("ExtendedKey(%q) = %q, %v; want %q", seq, k.String(), ok, want)
		}
		if n, _ := Name(strings.ReplaceAll(want, "pgup", "pageUp")); want != "L" && n != k.String() {
			t.Errorf("%q: binding name %q differs from the decoded %q", seq, n, k.String())
		}
	}
	if k, _ := ExtendedKey(unknownCSISequenceMsg("\x1b[99;5u")); k.Type != tea.KeyCtrlC || Synthetic(k) {
		t.Errorf("ctrl+c from CSI u is Bubble Tea's own key: %#v", k)
	}
	if k, _ := ExtendedKey(unknownCSISequenceMsg("\x1b[107;9u")); !Synthetic(k) {
		t.Error("super+k is a synthetic key, not text")
	}
	for _, seq := range []string{"\x1b[?1;2c", "\x1b[200~", "\x1b[1;1Z", "x"} {
		if k, ok := ExtendedKey(unknownCSISequenceMsg(seq)); ok {
			t.Errorf("ExtendedKey(%q) = %q", seq, k)
		}
	}
	if _, ok := ExtendedKey(tea.KeyMsg{}); ok {
		t.Error("a key message is not a CSI sequence")
	}
	if Synthetic(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("hello")}) || Synthetic(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ctrl+x"), Paste: true}) {
		t.Error("typed or pasted text is not synthetic")
	}
}

func write(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "keybindings.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func press(s string) tea.KeyMsg {
	n, err := Name(s)
	if err != nil {
		panic(err)
	}
	return keyMsgFor(n)
}

func TestLoad(t *testing.T) {
	p := write(t, `{
  "$schema": "https://pi.dev/schemas/keybindings.schema.json",
  "app.tools.expand": ["ctrl+e", "super+e"],
  "app.thinking.toggle": [],
  "app.session.tree": "ctrl+shift+t",
  "tui.editor.cursorLineEnd": "end",
  "app.model.select": "ctrl+hyper+l",
  "app.nope": "ctrl+q",
  "app.exit": 3
}`)
	km, problems, migrated := Load(p)
	if len(migrated) != 0 {
		t.Errorf("migrated %v", migrated)
	}
	all := ""
	for _, e := range problems {
		all += e.Error() + "\n"
	}
	for _, want := range []string{p + ": app.model.select: \"ctrl+hyper+l\": unknown modifier \"hyper\"",
		p + ": app.nope: unknown action", p + ": app.exit: must be a key"} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
	if len(problems) != 3 {
		t.Errorf("%d problems:\n%s", len(problems), all)
	}
	check := func(k, id string, want bool) {
		t.Helper()
		if got := km.Matches(press(k), id); got != want {
			t.Errorf("%s matches %s = %v, want %v", k, id, got, want)
		}
	}
	check("ctrl+e", AppToolsExpand, true)
	check("ctrl+o", AppToolsExpand, false) // replaced, not added
	if k, _ := ExtendedKey(unknownCSISequenceMsg("\x1b[101;9u")); !km.Matches(k, AppToolsExpand) {
		t.Error("super+e does not expand")
	}
	check("ctrl+t", AppThinkingToggle, false) // disabled
	check("ctrl+l", AppModelSelect, true)     // its only key is invalid: the default stays
	check("ctrl+d", AppExit, true)            // an invalid value keeps the default
	check("ctrl+e", EditorCursorLineEnd, false)
	check("end", EditorCursorLineEnd, true)
	check("ctrl+c", AppClear, true) // untouched defaults
	if !km.Matches(tea.KeyMsg{Type: tea.KeyCtrlH}, EditorDeleteCharBackward) || !km.Matches(tea.KeyMsg{Type: tea.KeyCtrlH, Alt: true}, EditorDeleteWordBackward) {
		t.Error("0x08 is Backspace, as in pi")
	}
	if got := km.Keys(AppToolsExpand); !slices.Equal(got, []string{"ctrl+e", "super+e"}) {
		t.Errorf("Keys = %v", got)
	}
	if got := km.Binding(AppToolsExpand).Help(); got.Key != "ctrl+e/super+e" || got.Desc != "Toggle tool output" {
		t.Errorf("Help = %+v", got)
	}
	if km.Key(AppThinkingToggle) != "" || km.Binding(AppThinkingToggle).Enabled() && len(km.Binding(AppThinkingToggle).Keys()) > 0 {
		t.Error("a disabled action has keys")
	}

	if _, problems, _ := Load(filepath.Join(t.TempDir(), "none.json")); problems != nil {
		t.Errorf("a missing file: %v", problems)
	}
	if km, problems, _ := Load(write(t, `[1]`)); len(problems) != 1 || !strings.Contains(problems[0].Error(), "keybindings.json: not a JSON object") || !km.Matches(press("ctrl+o"), AppToolsExpand) {
		t.Errorf("an array: %v", problems)
	}
}

func TestMigrate(t *testing.T) {
	p := write(t, `{"expandTools": "ctrl+e", "app.thinking.toggle": [], "toggleThinking": "ctrl+q", "interrupt": ["escape", "ctrl+g"], "zz.custom": 1}`)
	km, _, migrated := Load(p)
	if !km.Matches(press("ctrl+e"), AppToolsExpand) || km.Matches(press("ctrl+q"), AppThinkingToggle) {
		t.Error("old ids not read as new ones (the new id wins over the old)")
	}
	if !slices.Equal(migrated, []string{"expandTools → app.tools.expand", "interrupt → app.interrupt", "toggleThinking → app.thinking.toggle"}) {
		t.Errorf("migrated = %v", migrated)
	}
	renamed, err := Migrate(p)
	if err != nil || len(renamed) != 3 {
		t.Fatalf("Migrate = %v, %v", renamed, err)
	}
	got, _ := os.ReadFile(p)
	want := `{
  "app.interrupt": [
    "escape",
    "ctrl+g"
  ],
  "app.tools.expand": "ctrl+e",
  "app.thinking.toggle": [],
  "zz.custom": 1
}
`
	if string(got) != want {
		t.Errorf("migrated file:\n%s\nwant (pi's layout):\n%s", got, want)
	}
	if renamed, err := Migrate(p); renamed != nil || err != nil {
		t.Errorf("a second migration: %v, %v", renamed, err)
	}
}
