package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// cursorOn waits until the row under the cursor shows text.
func (u *ui) cursorOn(text string) {
	u.t.Helper()
	u.waitScreen("the cursor on "+text, func(string) bool { return strings.Contains(lineWith(u.vt.ScreenLines(), "→"), text) })
}

// /settings → Theme → automatic: a light and a dark theme saved as "light/dark", as pi 1.6 saves
// them; the pair opens the submenu in automatic mode again, and "Change mode" goes back to one theme.
func TestSettingsAutomaticThemeFlow(t *testing.T) {
	t.Setenv("COLORFGBG", "15;0") // a dark terminal
	sess, mgr, path := settingsOnDisk(t, `{"theme": "dark"}`)
	u := startUI(t, sess, Options{Settings: mgr})
	u.typeText("/settings")
	u.key(tea.KeyEnter)
	u.waitScreen("the settings list", contains("Settings", "Auto-compact"))
	u.typeText("theme")
	u.waitScreen("the theme row", contains("Search: theme", "Theme", "dark"))
	u.key(tea.KeyEnter)
	u.waitScreen("the theme submenu", contains("Select a theme, or choose automatic to follow terminal appearance.", "✓ dark", "automatic"))
	u.key(tea.KeyUp)
	u.cursorOn("automatic")
	u.key(tea.KeyEnter)
	u.waitScreen("the automatic menu", contains("Automatic Theme", "Light/dark detection requires terminal support.",
		"Light theme  dark", "Dark theme   dark", "Apply", "Change mode"))

	// The light side: light.
	u.key(tea.KeyEnter)
	u.waitScreen("the light theme list", contains("Select the theme to use for light terminal appearance", "✓ dark"))
	u.key(tea.KeyDown)
	u.cursorOn("light")
	u.key(tea.KeyEnter)
	u.waitScreen("the light side set", contains("Automatic Theme", "Light theme  light", "Dark theme   dark"))
	if got := readJSON(t, path)["theme"]; got != "dark" {
		t.Errorf("saved before Apply: theme = %v", got)
	}

	// Apply saves the pair and goes back to the list, whose row shows it.
	u.key(tea.KeyDown)
	u.key(tea.KeyDown)
	u.cursorOn("Apply")
	u.key(tea.KeyEnter)
	u.waitFile(path, "theme light/dark", func(v map[string]any) bool { return v["theme"] == "light/dark" })
	u.waitScreen("the row showing the pair", contains("Search: theme", "light/dark"))

	// The pair opens in automatic mode; Change mode offers one theme, the dark side on this terminal.
	u.key(tea.KeyEnter)
	u.waitScreen("the automatic menu again", contains("Automatic Theme", "Light theme  light", "Dark theme   dark"))
	u.key(tea.KeyDown)
	u.key(tea.KeyDown)
	u.key(tea.KeyDown)
	u.cursorOn("Change mode")
	u.key(tea.KeyEnter)
	u.waitScreen("the single list", contains("Select a theme, or choose automatic", "✓ dark"))
	u.key(tea.KeyDown)
	u.cursorOn("light")
	u.key(tea.KeyEnter)
	u.waitFile(path, "theme light", func(v map[string]any) bool { return v["theme"] == "light" })
}

// A pair already in settings.json is shown as it is, its light side in use on a light terminal;
// leaving the automatic menu with Escape keeps it.
func TestSettingsThemePairShownAndKept(t *testing.T) {
	t.Setenv("COLORFGBG", "0;15") // a light terminal
	sess, mgr, path := settingsOnDisk(t, `{"theme": "light/dark"}`)
	m := directModel(t, sess, mgr)
	if got := m.r.Theme().Name(); got != "light" {
		t.Fatalf("theme in use %q, want the pair's light side", got)
	}
	m.cmdSettings("")
	press(m, keyText("theme")...)
	if v := strings.Join(m.sel.View(100, 30), "\n"); !strings.Contains(v, "light/dark") {
		t.Fatalf("the theme row does not show the pair:\n%s", v)
	}
	press(m, tea.KeyMsg{Type: tea.KeyEnter})
	if v := strings.Join(m.sel.View(100, 30), "\n"); !strings.Contains(v, "Automatic Theme") {
		t.Fatalf("a pair did not open the automatic menu:\n%s", v)
	}
	// The light side's list previews dark above light; Escape there and in the menu goes back to
	// the pair.
	press(m, tea.KeyMsg{Type: tea.KeyEnter}, tea.KeyMsg{Type: tea.KeyUp})
	if got := m.r.Theme().Name(); got != "dark" {
		t.Fatalf("moving in the dark list did not preview")
	}
	press(m, tea.KeyMsg{Type: tea.KeyEsc}, tea.KeyMsg{Type: tea.KeyEsc})
	if got := m.r.Theme().Name(); got != "light" {
		t.Errorf("after Escape the theme is %q, want light again", got)
	}
	if m.sel == nil {
		t.Fatal("Escape in the submenu closed the settings list")
	}
	if got := readJSON(t, path)["theme"]; got != "light/dark" {
		t.Errorf("theme = %v after Escape", got)
	}
}
