package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/tui/screen"
)

// settingsOnDisk starts a session whose settings are the agent directory's settings.json, holding
// initial; it returns the session, the manager and the file.
func settingsOnDisk(t *testing.T, initial string) (*harness.Session, *config.SettingsManager, string) {
	t.Helper()
	agentDir := t.TempDir()
	path := filepath.Join(agentDir, "settings.json")
	if err := os.WriteFile(path, []byte(initial), 0o644); err != nil {
		t.Fatal(err)
	}
	mgr := config.LoadSettings(agentDir, t.TempDir())
	sess := newTestSessionWith(t, newScript(), nil, func(o *harness.Options) { o.Settings = mgr })
	return sess, mgr, path
}

// readJSON is the file's top-level object.
func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return v
}

// waitFile waits until the file's object satisfies cond: each change is written when the key that
// made it is handled, which the test sees only through the screen; so the file is read again after
// each screen update, up to a deadline.
func (u *ui) waitFile(path, what string, cond func(map[string]any) bool) {
	u.t.Helper()
	u.waitAll(what, func(string) bool {
		data, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		var v map[string]any
		return json.Unmarshal(data, &v) == nil && cond(v)
	})
}

func TestSettingsFlowWritesSettingsJSON(t *testing.T) {
	sess, mgr, path := settingsOnDisk(t, `{
  "custom": {"keep": [1, 2]},
  "theme": "dark",
  "compaction": {"reserveTokens": 9000}
}`)
	u := startUI(t, sess, Options{Settings: mgr})
	u.typeText("/settings")
	u.key(tea.KeyEnter)
	u.waitScreen("the settings list", contains("Settings", "Auto-compact", "true", "Automatically compact context"))

	// Enter on the first row turns auto-compaction off, live and in the file, keeping its siblings.
	u.key(tea.KeyEnter)
	u.waitScreen("auto-compact false", contains("Auto-compact", "false"))
	u.waitFile(path, "compaction.enabled false", func(v map[string]any) bool {
		c, _ := v["compaction"].(map[string]any)
		return c["enabled"] == false && c["reserveTokens"] == float64(9000)
	})
	if sess.AutoCompactionEnabled() {
		t.Error("auto-compaction still on in the session")
	}

	// Search, then Space on the one match: steering mode becomes "all".
	u.typeText("steer")
	u.waitScreen("the search", contains("Search: steer", "Steering mode"))
	u.key(tea.KeyEnter)
	u.waitFile(path, "steeringMode all", func(v map[string]any) bool { return v["steeringMode"] == "all" })
	if got := sess.SteeringMode(); got != loop.QueueAll {
		t.Errorf("session steering mode = %q", got)
	}

	// The theme submenu: choose light.
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
	u.typeText("theme")
	u.waitScreen("the theme row", contains("Search: theme", "Theme", "dark"))
	u.key(tea.KeyEnter)
	u.waitScreen("the theme submenu", contains("Select a theme", "✓ dark", "light"))
	u.key(tea.KeyDown)
	u.waitScreen("the cursor on light", func(string) bool { return strings.Contains(lineWith(u.vt.ScreenLines(), "→"), "light") })
	u.key(tea.KeyEnter)
	u.waitFile(path, "theme light", func(v map[string]any) bool { return v["theme"] == "light" })

	// Escape closes the list; the editor takes keys again.
	u.key(tea.KeyEsc)
	u.waitScreen("the list to close", func(s string) bool { return !strings.Contains(s, "Search: ") })
	u.typeText("hi")
	u.waitEditor("hi")

	got := readJSON(t, path)
	if c, _ := got["custom"].(map[string]any); c == nil || len(c["keep"].([]any)) != 2 {
		t.Errorf("unknown key lost: %v", got)
	}
}

// lineWith is the first line containing s.
func lineWith(lines []string, s string) string {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// directModel is a model driven by calling Update on the test's goroutine, for state the screen
// does not show (the theme in use).
func directModel(t *testing.T, sess *harness.Session, mgr *config.SettingsManager) *model {
	t.Helper()
	m := newModel(context.Background(), sess, Options{Out: io.Discard, TUIMode: TUIModeRegular, Settings: mgr}, 100, 40, screen.OpenTerminal(nil, io.Discard))
	t.Cleanup(m.shutdown)
	return m
}

// press sends keys to m as the program would, running the commands a key returns at once when they
// are the picker's own messages.
func press(m *model, keys ...tea.KeyMsg) {
	for _, k := range keys {
		m.Update(k)
	}
}

func TestSettingsThemePreviewAndCancel(t *testing.T) {
	sess, mgr, path := settingsOnDisk(t, `{"theme": "dark"}`)
	m := directModel(t, sess, mgr)
	m.cmdSettings("")
	press(m, keyText("theme")...)
	press(m, tea.KeyMsg{Type: tea.KeyEnter}, tea.KeyMsg{Type: tea.KeyDown})
	previewed := m.r.Theme().Name()
	if previewed == "dark" {
		t.Fatalf("moving the cursor did not preview another theme")
	}
	if got := readJSON(t, path)["theme"]; got != "dark" {
		t.Errorf("a preview was saved: theme = %v", got)
	}
	press(m, tea.KeyMsg{Type: tea.KeyEsc})
	if got := m.r.Theme().Name(); got != "dark" {
		t.Errorf("after Escape the theme is %q, want dark again", got)
	}
	if m.sel == nil {
		t.Fatal("Escape in the submenu closed the settings list")
	}
	press(m, tea.KeyMsg{Type: tea.KeyEsc})
	if m.sel != nil || m.settingsUI != nil {
		t.Error("Escape did not close /settings")
	}
}

func TestSettingsHideThinkingAppliesLive(t *testing.T) {
	sess, mgr, path := settingsOnDisk(t, `{}`)
	m := directModel(t, sess, mgr)
	m.cmdSettings("")
	press(m, keyText("hide thinking")...)
	press(m, tea.KeyMsg{Type: tea.KeyEnter})
	if !m.hideThinking {
		t.Error("hide thinking not applied")
	}
	if got := readJSON(t, path)["hideThinkingBlock"]; got != true {
		t.Errorf("hideThinkingBlock = %v", got)
	}
	press(m, tea.KeyMsg{Type: tea.KeyCtrlU})
	press(m, keyText("double")...)
	press(m, tea.KeyMsg{Type: tea.KeyEnter})
	if got := m.settings().DoubleEscapeAction; got != "fork" {
		t.Errorf("doubleEscapeAction = %q, want fork", got)
	}
	press(m, tea.KeyMsg{Type: tea.KeyCtrlU})
	press(m, keyText("block images")...)
	press(m, tea.KeyMsg{Type: tea.KeyEnter})
	if !m.settings().Images.BlockImages {
		t.Error("block images not set")
	}
	press(m, tea.KeyMsg{Type: tea.KeyCtrlU})
	press(m, keyText("http idle")...)
	press(m, tea.KeyMsg{Type: tea.KeyEnter})
	if got := readJSON(t, path)["httpIdleTimeoutMs"]; got != float64(0) {
		t.Errorf("httpIdleTimeoutMs = %v, want 0 (5 min → disabled)", got)
	}
	if d := m.settings().HTTPIdleTimeout(); d >= 0 {
		t.Errorf("HTTPIdleTimeout = %v, want disabled", d)
	}
}

// keyText is s typed key by key.
func keyText(s string) []tea.KeyMsg {
	var out []tea.KeyMsg
	for _, r := range s {
		if r == ' ' {
			out = append(out, tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
			continue
		}
		out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	return out
}

func TestSettingsImageRowsOnlyWithAProtocol(t *testing.T) {
	t.Setenv("PI_IMAGE_PROTOCOL", "none")
	sess, mgr, _ := settingsOnDisk(t, `{}`)
	m := directModel(t, sess, mgr)
	m.cmdSettings("")
	press(m, keyText("show images")...)
	if v := strings.Join(m.sel.View(100, 40), "\n"); strings.Contains(v, "Show images") {
		t.Error("Show images offered on a terminal without images")
	}

	t.Setenv("PI_IMAGE_PROTOCOL", "kitty")
	sess, mgr, path := settingsOnDisk(t, `{"terminal": {"clearOnShrink": true}}`)
	m = directModel(t, sess, mgr)
	m.cmdSettings("")
	press(m, keyText("show images")...)
	press(m, tea.KeyMsg{Type: tea.KeyEnter})
	if m.images().show {
		t.Error("show images still on")
	}
	press(m, tea.KeyMsg{Type: tea.KeyCtrlU})
	press(m, keyText("image width")...)
	press(m, tea.KeyMsg{Type: tea.KeyEnter})
	if got := m.images().widthCells; got != 80 {
		t.Errorf("image width = %d, want 80", got)
	}
	term, _ := readJSON(t, path)["terminal"].(map[string]any)
	if term["showImages"] != false || term["imageWidthCells"] != float64(80) || term["clearOnShrink"] != true {
		t.Errorf("terminal = %v", term)
	}
}

func TestSettingsTUIModeSwitchesLive(t *testing.T) {
	sess, mgr, path := settingsOnDisk(t, `{}`)
	sc := newScript(textTurn("hello there"))
	sess = newTestSessionWith(t, sc, nil, func(o *harness.Options) { o.Settings = mgr })
	u := startUI(t, sess, Options{Settings: mgr})
	u.submit("hi")
	u.waitAll("the answer", contains("hello there"))
	u.waitSettled()

	u.submit("/settings")
	u.typeText("tui mode")
	u.waitScreen("the row", contains("TUI mode", "regular"))
	u.key(tea.KeyEnter)
	u.waitFile(path, "tuiMode fullscreen", func(v map[string]any) bool { return v["tuiMode"] == "fullscreen" })
	u.waitScreen("fullscreen", contains("TUI mode", "fullscreen"))
	u.key(tea.KeyEnter)
	u.waitFile(path, "tuiMode regular", func(v map[string]any) bool { return v["tuiMode"] == "regular" })
	u.key(tea.KeyEsc)
	// Back in regular mode the transcript is printed again into the scrollback.
	u.waitAll("the transcript", func(s string) bool {
		return strings.Contains(s, "hello there") && strings.Contains(s, "TUI mode: regular")
	})
}

func TestSwitchTUIModeSendsTheAlternateScreen(t *testing.T) {
	var out bytes.Buffer
	sess := newTestSession(t, newScript(), nil)
	m := newModel(context.Background(), sess, Options{Out: &out, TUIMode: TUIModeRegular}, 100, 40, screen.OpenTerminal(nil, &out))
	t.Cleanup(m.shutdown)
	if !m.switchTUIMode(true) || !m.fullscreen || !strings.Contains(out.String(), "\x1b[?1049h") {
		t.Fatalf("to fullscreen: fullscreen %v, output %q", m.fullscreen, out.String())
	}
	out.Reset()
	if !m.switchTUIMode(false) || m.fullscreen || !strings.Contains(out.String(), "\x1b[?1049l") {
		t.Fatalf("to regular: fullscreen %v, output %q", m.fullscreen, out.String())
	}
}
