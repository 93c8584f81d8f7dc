package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// e2eThemeEnv sets the e2e helper's theme setting.
const e2eThemeEnv = "PI_TUI_E2E_THEME"

// writeE2ETheme writes agent/themes/mine.json: pi's dark theme with the editor border's colour
// (thinkingOff, thinking is off) set to border.
func writeE2ETheme(t testing.TB, agent, border string) {
	t.Helper()
	spec, ok := theme.Builtin("dark")
	if !ok {
		t.Fatal("no dark theme")
	}
	colors := map[string]any{}
	for k := range theme.Key(0).Count() {
		c, ok := spec.Color(k)
		if ok {
			colors[k.Name()] = c.Hex()
		} else {
			colors[k.Name()] = ""
		}
	}
	colors["thinkingOff"] = border
	data, err := json.Marshal(map[string]any{"name": "mine", "colors": colors})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(agent, "themes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Saved as editors save: a new file renamed over the old one.
	tmp := filepath.Join(dir, ".mine.json.tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "mine.json")); err != nil {
		t.Fatal(err)
	}
}

// A custom theme from the agent directory is applied, follows edits of its file, and an invalid
// edit is one warning naming the file and the key while the theme stays; keybindings.json rebinds a
// key (also with super, sent as the kitty keyboard protocol's CSI u) and disables another.
func TestTmuxCustomThemeAndKeybindings(t *testing.T) {
	// Its own tmux server, pane and directories, and mostly waiting: the tmux tests run side by side.
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (make deps installs it): skipping the terminal end-to-end test")
	}
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent")
	writeE2ETheme(t, agent, "#ff0000")
	keys := `{"app.model.select": "alt+m", "app.clear": [], "app.thinking.toggle": ["super+t"]}`
	if err := os.WriteFile(filepath.Join(agent, "keybindings.json"), []byte(keys), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &tmuxPane{tb: t, socket: fmt.Sprintf("pi-tui-e2e-theme-%d-%d", os.Getpid(), time.Now().UnixNano())}
	cmd := fmt.Sprintf("env %s=1 %s=http://127.0.0.1:1/v1 %s=%s %s=mine %s -test.run='^$'",
		e2eHelperEnv, e2eURLEnv, e2eDirEnv, dir, e2eThemeEnv, os.Args[0])
	p.run("new-session", "-d", "-s", "e2e", "-x", "100", "-y", "30", cmd)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	colored := func() string { return p.run("capture-pane", "-p", "-e", "-t", "e2e") }
	// The editor's rules in the theme's red: 256-colour index 196, or the exact colour in truecolor.
	red := func(s string) bool {
		return strings.Contains(s, "38;5;196m─") || strings.Contains(s, "38;2;255;0;0m─")
	}
	green := func(s string) bool {
		return strings.Contains(s, "38;5;46m─") || strings.Contains(s, "38;2;0;255;0m─")
	}
	p.waitFor("the editor in the theme's colour", colored, func(s string) bool { return red(s) && strings.Contains(s, e2eModel) })

	writeE2ETheme(t, agent, "#00ff00")
	p.waitFor("the edited theme", colored, func(s string) bool { return green(s) && !red(s) })

	writeE2ETheme(t, agent, "#00ff0") // invalid
	// The warning is wrapped between words: compare with the line breaks taken out.
	screen := p.waitFor("the theme's problem", p.screen, func(s string) bool {
		return strings.Contains(strings.Join(strings.Fields(s), " "), "agent/themes/mine.json: colors.thinkingOff: invalid color value")
	})
	if !green(colored()) {
		t.Errorf("an invalid edit changed the theme:\n%s", screen)
	}
	writeE2ETheme(t, agent, "#ff0000")
	p.waitFor("the fixed theme", colored, func(s string) bool { return red(s) && !green(s) })

	// app.clear is disabled: Ctrl+C leaves the text, the next words join it.
	p.run("send-keys", "-t", "e2e", "-l", "hello")
	p.waitFor("the typed text", p.screen, contains("hello"))
	p.run("send-keys", "-t", "e2e", "C-c")
	p.run("send-keys", "-t", "e2e", "-l", " world")
	p.waitFor("the text kept", p.screen, contains("hello world"))
	// app.model.select moved from Ctrl+L to Alt+M.
	p.run("send-keys", "-t", "e2e", "C-l")
	p.run("send-keys", "-t", "e2e", "-l", "!") // typed into the editor: no selector took it as a filter
	if s := p.waitFor("the text after Ctrl+L", p.screen, contains("hello world!")); strings.Contains(s, "Select model") {
		t.Errorf("Ctrl+L still opens the model selector:\n%s", s)
	}
	p.run("send-keys", "-t", "e2e", "M-m")
	p.waitFor("the model selector", p.screen, contains("Select model"))
	p.run("send-keys", "-t", "e2e", "Escape")
	p.waitFor("the editor again", p.screen, func(s string) bool { return !strings.Contains(s, "Select model") })
	// super+t, as a terminal with the kitty keyboard protocol sends it (CSI 116;9u).
	p.run("send-keys", "-t", "e2e", "-H", "1b", "5b", "31", "31", "36", "3b", "39", "75")
	p.waitFor("thinking toggled by super+t", p.screen, contains("Thinking blocks: hidden"))
}

// BenchmarkIdleCPUWatchingTheme is BenchmarkIdleCPU with a user theme active, so its file is
// watched: the watch must cost no wakeup while idle.
func BenchmarkIdleCPUWatchingTheme(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is not installed")
	}
	var total time.Duration
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		pidFile := filepath.Join(dir, "pid")
		writeE2ETheme(b, filepath.Join(dir, "agent"), "#ff0000")
		p := &tmuxPane{tb: b, socket: fmt.Sprintf("pi-tui-bench-theme-%d-%d", os.Getpid(), time.Now().UnixNano())}
		cmd := fmt.Sprintf("env %s=1 %s=http://127.0.0.1:1/v1 %s=%s %s=%s %s=mine %s -test.run='^$'", e2eHelperEnv, e2eURLEnv,
			e2eDirEnv, dir, e2ePidEnv, pidFile, e2eThemeEnv, os.Args[0])
		p.run("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", cmd)
		b.Cleanup(func() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
		p.waitFor("the themed editor", func() string { return p.run("capture-pane", "-p", "-e", "-t", "e2e") }, func(s string) bool {
			return strings.Contains(s, e2eModel) && (strings.Contains(s, "38;5;196m─") || strings.Contains(s, "38;2;255;0;0m─"))
		})
		data, err := os.ReadFile(pidFile)
		if err != nil {
			b.Fatal(err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		before := procCPU(b, pid)
		time.Sleep(10 * time.Second) // the measured interval itself
		total += procCPU(b, pid) - before
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "cpu-ms/10s")
}
