package picker

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
)

func TestSettingsListCyclesValuesAndClosesSubmenus(t *testing.T) {
	r := testRenderer()
	s := NewSettingsList(r, "Settings", []Setting{
		{ID: "mode", Label: "Mode", Value: "b", Values: []string{"a", "b", "c"}},
		{ID: "theme", Label: "Theme", Value: "dark", Submenu: func(cur string) Picker {
			return NewChoiceMenu(r, "Theme", "", []Choice{{Value: "dark"}, {Value: "light"}}, cur, true)
		}},
	})
	if got := sendOne(t, s, keyOf(tea.KeyEnter)); got != (SettingChanged{ID: "mode", Value: "c"}) {
		t.Errorf("enter: %#v", got)
	}
	if got := sendOne(t, s, keyOf(tea.KeySpace)); got != (SettingChanged{ID: "mode", Value: "a"}) {
		t.Errorf("space wraps around: %#v", got)
	}
	sendNone(t, s, keyOf(tea.KeyDown), keyOf(tea.KeyEnter))
	if got := sendOne(t, s, keyOf(tea.KeyDown)); got != (ChoicePreview{Value: "light"}) {
		t.Errorf("moving in the submenu: %#v", got)
	}
	if got := sendOne(t, s, keyOf(tea.KeyEsc)); got != (SubmenuCancelled{ID: "theme"}) {
		t.Errorf("escape in the submenu: %#v", got)
	}
	sendNone(t, s, keyOf(tea.KeyEnter))
	sendOne(t, s, keyOf(tea.KeyDown))
	if got := sendOne(t, s, keyOf(tea.KeyEnter)); got != (SettingChanged{ID: "theme", Value: "light"}) {
		t.Errorf("choosing in the submenu: %#v", got)
	}
	if v := view(s, 60, 30); !strings.Contains(v, "Theme  light") || !strings.Contains(v, "Mode   a") {
		t.Errorf("view:\n%s", v)
	}
	send(t, s, keyRunes("them"))
	if v := view(s, 60, 30); strings.Contains(v, "Mode") {
		t.Errorf("search kept Mode:\n%s", v)
	}
	if got := sendOne(t, s, keyOf(tea.KeyEsc)); got != (Cancelled{}) {
		t.Errorf("escape: %#v", got)
	}
}

func TestScopedModelsToggleAndProvider(t *testing.T) {
	models := []*provider.Model{{Provider: "p", ID: "a"}, {Provider: "p", ID: "b"}, {Provider: "q", ID: "c"}}
	keys := func(k tea.KeyMsg, action string) bool {
		return map[string]string{"tui.select.up": "up", "tui.select.down": "down", "tui.select.confirm": "enter",
			"app.models.toggleProvider": "ctrl+p", "app.models.clearAll": "ctrl+x", "app.models.enableAll": "ctrl+a",
			"app.models.save": "ctrl+s"}[action] == k.String()
	}
	s := NewScopedModels(testRenderer(), models, nil, keys, "", "ctrl+s")
	changed := func(msg any) []string {
		t.Helper()
		c, ok := msg.(ScopeChanged)
		if !ok {
			t.Fatalf("message %#v", msg)
		}
		if c.All {
			return nil
		}
		return c.Enabled
	}
	if got := changed(sendOne(t, s, keyOf(tea.KeyCtrlP))); !slices.Equal(got, []string{"q/c"}) {
		t.Errorf("ctrl+p on an all-enabled provider clears it: %v", got)
	}
	// The enabled model is listed first now: Down goes back to provider p.
	if got := changed(sendOne(t, s, keyOf(tea.KeyDown), keyOf(tea.KeyCtrlP))); got != nil {
		t.Errorf("ctrl+p again enables it, which is all: %v", got)
	}
	if got := changed(sendOne(t, s, keyOf(tea.KeyCtrlX))); got == nil || len(got) != 0 {
		t.Errorf("ctrl+x clears all: %v", got)
	}
	if got := changed(sendOne(t, s, keyOf(tea.KeyDown), keyOf(tea.KeyEnter))); !slices.Equal(got, []string{"q/c"}) {
		t.Errorf("enter enables one: %v", got)
	}
	if got := sendOne(t, s, keyOf(tea.KeyCtrlS)); !slices.Equal(got.(ScopeSaved).Enabled, []string{"q/c"}) {
		t.Errorf("save: %#v", got)
	}
}
