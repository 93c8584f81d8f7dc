package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// A listener's replacement bytes are read back into the keys they stand for, and a key's bytes read
// back are the key.
func TestKeysOfBytes(t *testing.T) {
	for _, tc := range []struct {
		data string
		want []string
	}{
		{"one", []string{"o", "n", "e"}},
		{"\x1b[A", []string{"up"}},
		{"\r", []string{"enter"}},
		{"\x1bq", []string{"alt+q"}},
		{"\x1b", []string{"esc"}},
		{"\x1b\x1b[D", []string{"alt+left"}},
		{"a\x03b", []string{"a", "ctrl+c", "b"}},
		{"\x7f", []string{"backspace"}},
		{"é ", []string{"é", " "}},
	} {
		keys := keysOfBytes(tc.data)
		var got []string
		for _, k := range keys {
			got = append(got, k.String())
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %q, want %q", tc.data, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: got %q, want %q", tc.data, got, tc.want)
				break
			}
		}
	}
	for _, k := range []tea.KeyMsg{{Type: tea.KeyUp}, {Type: tea.KeyRunes, Runes: []rune("x"), Alt: true}, {Type: tea.KeyEnter}, {Type: tea.KeyCtrlA}} {
		back := keysOfBytes(terminalBytes(k))
		if len(back) != 1 || back[0].String() != k.String() {
			t.Errorf("%v read back as %v", k, back)
		}
	}
	if p := keysOfBytes("\x1b[200~pasted\x1b[201~"); len(p) != 1 || !p[0].Paste || string(p[0].Runes) != "pasted" {
		t.Errorf("paste read back as %v", p)
	}
}
