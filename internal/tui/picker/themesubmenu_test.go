package picker

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

var testThemes = []Choice{{Value: "system"}, {Value: "dark"}, {Value: "light"}, {Value: "solar"}}

// A plain theme opens the single list, "automatic" right after "system"; choosing automatic
// previews the current theme on both sides; a pair chosen there and applied is "light/dark".
func TestThemeSubmenuAutomaticFromSingle(t *testing.T) {
	m := NewThemeSubmenu(testRenderer(), "solar", "dark", testThemes)
	v := view(m, 80, 30)
	if i, j, k := strings.Index(v, "  system"), strings.Index(v, "  automatic"), strings.Index(v, "  dark\n"); !(i < j && j < k) || !strings.Contains(v, "✓ solar") {
		t.Fatalf("single list:\n%s", v)
	}
	// Cursor on solar (4th); up three times reaches automatic.
	send(t, m, keyOf(tea.KeyUp), keyOf(tea.KeyUp))
	if got := sendOne(t, m, keyOf(tea.KeyUp)); got != (ChoicePreview{Value: "solar/solar"}) {
		t.Fatalf("cursor on automatic previews %#v", got)
	}
	if got := sendOne(t, m, keyOf(tea.KeyEnter)); got != (ChoicePreview{Value: "solar/solar"}) {
		t.Fatalf("entering automatic: %#v", got)
	}
	v = view(m, 80, 30)
	for _, want := range []string{"Automatic Theme", "Choose themes for terminal light and dark appearance.", "Light theme  solar", "Dark theme   solar", "Apply", "Change mode"} {
		if !strings.Contains(v, want) {
			t.Errorf("automatic menu lacks %q:\n%s", want, v)
		}
	}
	// Light theme: its list opens on solar; up to light previews light alone; Enter sets the side.
	sendNone(t, m, keyOf(tea.KeyEnter))
	if got := sendOne(t, m, keyOf(tea.KeyUp)); got != (ChoicePreview{Value: "light"}) {
		t.Fatalf("moving in the light list: %#v", got)
	}
	if got := sendOne(t, m, keyOf(tea.KeyEnter)); got != (ChoicePreview{Value: "light/solar"}) {
		t.Fatalf("choosing the light side: %#v", got)
	}
	// Dark theme: Escape in its list keeps the side and previews the pair again.
	sendNone(t, m, keyOf(tea.KeyDown), keyOf(tea.KeyEnter))
	sendOne(t, m, keyOf(tea.KeyUp))
	if got := sendOne(t, m, keyOf(tea.KeyEsc)); got != (ChoicePreview{Value: "light/solar"}) {
		t.Fatalf("escape in the dark list: %#v", got)
	}
	sendNone(t, m, keyOf(tea.KeyDown))
	if got := sendOne(t, m, keyOf(tea.KeyEnter)); got != (SubmenuDone{Value: "light/solar", Changed: true}) {
		t.Fatalf("apply: %#v", got)
	}
}

// A pair opens in automatic mode, each side on its row; "Change mode" goes back to one theme, the
// side in use on this terminal; Escape in the automatic menu ends the submenu unchanged.
func TestThemeSubmenuChangeModeAndEscape(t *testing.T) {
	for _, tc := range []struct{ appearance, single string }{{"dark", "solar"}, {"light", "light"}} {
		m := NewThemeSubmenu(testRenderer(), "light/solar", tc.appearance, testThemes)
		if v := view(m, 80, 30); !strings.Contains(v, "Light theme  light") || !strings.Contains(v, "Dark theme   solar") {
			t.Fatalf("pair not shown:\n%s", v)
		}
		sendNone(t, m, keyOf(tea.KeyDown), keyOf(tea.KeyDown), keyOf(tea.KeyDown))
		if got := sendOne(t, m, keyOf(tea.KeyEnter)); got != (ChoicePreview{Value: tc.single}) {
			t.Fatalf("%s terminal: change mode previews %#v, want %s", tc.appearance, got, tc.single)
		}
		if v := view(m, 80, 30); !strings.Contains(v, "✓ "+tc.single) || !strings.Contains(v, "automatic") {
			t.Fatalf("single list after change mode:\n%s", v)
		}
		if got := sendOne(t, m, keyOf(tea.KeyEsc)); got != (SubmenuDone{}) {
			t.Fatalf("escape: %#v", got)
		}
	}
	m := NewThemeSubmenu(testRenderer(), "light/solar", "dark", testThemes)
	if got := sendOne(t, m, keyOf(tea.KeyEsc)); got != (SubmenuDone{}) {
		t.Fatalf("escape in the automatic menu: %#v", got)
	}
}

// A malformed pair is no theme: the single list opens on "system", and automatic starts there.
func TestThemeSubmenuMalformedPair(t *testing.T) {
	m := NewThemeSubmenu(testRenderer(), "a/b/c", "dark", testThemes)
	if v := view(m, 80, 30); !strings.Contains(v, "✓ system") {
		t.Fatalf("malformed pair:\n%s", v)
	}
	if got := sendOne(t, m, keyOf(tea.KeyDown)); got != (ChoicePreview{Value: "system/system"}) {
		t.Fatalf("automatic from a malformed pair: %#v", got)
	}
}
