package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// The pickers follow keybindings.json's tui.select actions: a key bound to one acts as it, and a
// default key moved away from its action does nothing in a picker.
func TestPickerKeysFollowTheKeymap(t *testing.T) {
	agent := agentDirWith(t, map[string]string{"keybindings.json": `{
		"tui.select.up": "alt+k", "tui.select.down": ["down", "alt+j"],
		"tui.select.confirm": "tab", "tui.select.cancel": "ctrl+q"}`})
	sess := newTestSessionWith(t, newScript(), nil, twoModels)
	u := startUI(t, sess, Options{AgentDir: agent})
	alt := func(r rune) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: true} }
	selected := func(model string) func(string) bool {
		return func(s string) bool { return strings.Contains(s, "Select model") && strings.Contains(s, "→ "+model) }
	}

	u.submit("/model")
	u.waitScreen("the selector on the current model", selected("test-model"))
	u.tm.Send(alt('j'))
	u.waitScreen("moved down by alt+j", selected("other-model"))
	u.tm.Send(alt('k'))
	u.waitScreen("moved up by alt+k", selected("test-model"))
	// Up, Enter and Escape are no longer selection keys: they do nothing here. The next move shows
	// that they were read (keys are handled in order).
	u.key(tea.KeyUp)
	u.key(tea.KeyEnter)
	u.key(tea.KeyEscape)
	u.key(tea.KeyDown)
	u.waitScreen("moved down once, by Down alone", selected("other-model"))
	u.key(tea.KeyTab)
	u.waitScreen("confirmed by Tab", func(s string) bool {
		return strings.Contains(s, "Model: other-model") && !strings.Contains(s, "Select model")
	})
	if got := sess.Model().ID; got != "other-model" {
		t.Fatalf("model = %s, want other-model", got)
	}

	u.submit("/model")
	u.waitScreen("the selector again", selected("other-model"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlQ})
	u.waitScreen("cancelled by ctrl+q", func(s string) bool { return !strings.Contains(s, "Select model") })
	if got := sess.Model().ID; got != "other-model" {
		t.Fatalf("model = %s after cancelling, want other-model", got)
	}
}
