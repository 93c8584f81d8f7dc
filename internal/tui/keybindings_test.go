package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/config"
)

// agentDirWith is an agent directory holding the given files (name → content).
func agentDirWith(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "agent")
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// keybindings.json from pi 0.x: its ids are migrated in the file, with a notice, and apply; a bad
// entry is a warning naming the file and the action.
func TestKeybindingsMigrationAndProblems(t *testing.T) {
	agent := agentDirWith(t, map[string]string{
		"keybindings.json": `{"expandTools": "ctrl+e", "app.model.select": "ctrl+nope", "app.message.dequeue": []}`,
	})
	u := startUI(t, newTestSession(t, newScript(), nil), Options{AgentDir: agent})
	u.waitAll("the notices", func(s string) bool {
		s = strings.Join(strings.Fields(s), " ")
		return strings.Contains(s, "migrated old action ids: expandTools → app.tools.expand") &&
			strings.Contains(s, "keybindings.json: app.model.select: \"ctrl+nope\": unknown key \"nope\"")
	})
	data, err := os.ReadFile(filepath.Join(agent, "keybindings.json"))
	if err != nil || !strings.Contains(string(data), `"app.tools.expand": "ctrl+e"`) || strings.Contains(string(data), "expandTools") {
		t.Errorf("keybindings.json not migrated: %s %v", data, err)
	}
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlE})
	u.waitScreen("tool output expanded by the migrated binding", contains("Tool output: expanded"))
	u.key(tea.KeyCtrlL) // the invalid key left the default
	u.waitScreen("the model selector", contains("Select model"))
	u.key(tea.KeyEscape)
	u.waitScreen("the selector closed", func(s string) bool { return !strings.Contains(s, "Select model") })
	u.submit("/hotkeys")
	all := u.waitAll("the shortcuts", contains("Keyboard Shortcuts", "Ctrl+E", "Toggle tool output expansion"))
	if strings.Contains(all, "Restore queued messages") {
		t.Error("/hotkeys lists a disabled action")
	}
}

// An invalid theme named by the setting: one warning naming the file and the key, and the default
// theme.
func TestInvalidThemeFallsBack(t *testing.T) {
	agent := agentDirWith(t, map[string]string{"themes/broken.json": `{"name": "broken", "colors": {"accent": "#12"}}`})
	u := startUI(t, newTestSession(t, newScript(), nil), Options{AgentDir: agent,
		Settings: config.InMemorySettings(config.Settings{Theme: "broken"})})
	all := u.waitAll("the theme warning", func(s string) bool {
		return strings.Contains(strings.Join(strings.Fields(s), " "), "themes/broken.json: colors: missing required tokens")
	})
	flat := strings.Join(strings.Fields(all), " ")
	if !strings.Contains(flat, "colors.accent: invalid color value \"#12\"") || !strings.Contains(flat, "theme \"broken\" not found") {
		t.Errorf("warnings do not name the key and the fallback:\n%s", all)
	}
}
