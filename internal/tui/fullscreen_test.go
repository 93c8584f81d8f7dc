package tui

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/tui/screen"
)

// longAnswer is an answer of n numbered paragraphs, taller than the 40-row test screen.
func longAnswer(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "Para%02d of the long answer.\n\n", i)
	}
	return b.String()
}

// rowOf is the screen row showing text (-1 if none).
func rowOf(lines []string, text string) int {
	for i, l := range lines {
		if strings.Contains(l, text) {
			return i
		}
	}
	return -1
}

func startFullscreen(t *testing.T, turns ...turn) *ui {
	t.Helper()
	return startUI(t, newTestSession(t, newScript(turns...), nil), Options{TUIMode: TUIModeFullscreen})
}

// Fullscreen mode fills the screen without scrolling the terminal: the transcript scrolls inside
// its viewport (Page Up, Ctrl+End, the wheel), following the end of the conversation by default.
func TestFullscreenScrollsTheTranscriptInItsViewport(t *testing.T) {
	u := startFullscreen(t, textTurn(longAnswer(60)), textTurn("Second answer."))
	u.submit("first question")
	u.waitScreen("the end of the answer", contains("Para60"))
	u.waitSettled()
	if n := len(u.vt.AllLines()); n > 40 {
		t.Fatalf("fullscreen scrolled the terminal: %d lines", n)
	}
	u.key(tea.KeyPgUp)
	u.waitScreen("an earlier page", func(s string) bool { return !strings.Contains(s, "Para60") && strings.Contains(s, "Para30") })
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlHome})
	u.waitScreen("the top", contains("first question", "pi-go"))
	u.tm.Send(tea.MouseMsg{X: 5, Y: 5, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	u.waitScreen("scrolled by the wheel", func(s string) bool { return !strings.Contains(s, "pi-go") })
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlEnd})
	u.waitScreen("the end again", contains("Para60"))
	// The next answer is followed.
	u.submit("second question")
	u.waitScreen("the second answer", contains("Second answer."))
	// Ctrl+Shift+Up jumps to the prompt above the view, Ctrl+Shift+Down to the next one (the last
	// cannot come to the top: the view ends with the conversation).
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlShiftUp})
	u.waitScreen("the first prompt at the top", func(s string) bool {
		r := rowOf(strings.Split(s, "\n"), "first question")
		return r >= 0 && r <= 2 // the block's spacer and padding rows come first
	})
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlShiftDown})
	u.waitScreen("the end with the second prompt", func(s string) bool {
		return rowOf(strings.Split(s, "\n"), "first question") < 0 && strings.Contains(s, "Second answer.")
	})
	if n := len(u.vt.AllLines()); n > 40 {
		t.Fatalf("fullscreen scrolled the terminal: %d lines", n)
	}
}

// Ctrl+Shift+F searches the rendered transcript: the newest match is shown, Enter goes to the
// previous one... in order, and Escape closes the search bar.
func TestFullscreenTranscriptSearch(t *testing.T) {
	u := startFullscreen(t, textTurn(longAnswer(30)))
	u.submit("question")
	u.waitScreen("the end of the answer", contains("Para30"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ctrl+shift+f")}) // as keymap.ExtendedKey names it
	u.waitScreen("the search bar", contains("Search:", "type to search"))
	u.typeText("para03")
	u.waitScreen("the newest match", contains("Para03 of", "1/1"))
	u.key(tea.KeyBackspace)
	u.waitScreen("nine matches, the newest shown", contains("Para09 of", "9/9"))
	u.key(tea.KeyEnter)
	u.waitScreen("wrapped to the first", contains("1/9"))
	u.key(tea.KeyEscape)
	u.waitScreen("the search closed", func(s string) bool { return !strings.Contains(s, "Search:") })
	if ed := editorOf(strings.Join(u.vt.ScreenLines(), "\n")); strings.TrimSpace(ed) != "" {
		t.Fatalf("the search typed into the editor: %q", ed)
	}
}

// Dragging with the left button selects text in the viewport; on release it is copied with OSC 52
// (fullscreenCopyOnSelect).
func TestFullscreenSelectionIsCopied(t *testing.T) {
	u := startFullscreen(t, textTurn(longAnswer(5)))
	u.submit("question")
	s := u.waitScreen("the answer", contains("Para05"))
	lines := strings.Split(s, "\n")
	y2, y4 := rowOf(lines, "Para02"), rowOf(lines, "Para04")
	x := strings.Index(lines[y2], "Para02")
	u.tm.Send(tea.MouseMsg{X: x, Y: y2, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	u.tm.Send(tea.MouseMsg{X: x + 5, Y: y4, Button: tea.MouseButtonLeft, Action: tea.MouseActionMotion})
	u.tm.Send(tea.MouseMsg{X: x + 5, Y: y4, Button: tea.MouseButtonLeft, Action: tea.MouseActionRelease})
	u.waitScreen("the copy notice", contains("Copied selection to clipboard"))
	// Drawn under the viewport, not in the transcript: it stays in view however it is scrolled.
	var copied string
	for _, o := range u.vt.OSC() {
		if data, ok := strings.CutPrefix(o, "52;c;"); ok {
			b, err := base64.StdEncoding.DecodeString(data)
			if err != nil {
				t.Fatal(err)
			}
			copied = string(b)
		}
	}
	// As a terminal selects: from the column pressed to the one released, the lines between whole.
	want := "Para02 of the long answer.\n\n Para03 of the long answer.\n\n Para04"
	if copied != want {
		t.Fatalf("OSC 52 copied %q, want %q", copied, want)
	}
}

// The flag wins over the settings; without either the mode is pi 1.6's default, fullscreen.
func TestTUIModeResolution(t *testing.T) {
	for _, tc := range []struct{ flag, setting, want string }{
		{"", "", TUIModeFullscreen},
		{"", "regular", TUIModeRegular},
		{"fullscreen", "regular", TUIModeFullscreen},
		{"regular", "fullscreen", TUIModeRegular},
		{"", "bogus", TUIModeFullscreen},
	} {
		if got := resolveTUIMode(tc.flag, tc.setting); got != tc.want {
			t.Errorf("flag %q, setting %q: %s, want %s", tc.flag, tc.setting, got, tc.want)
		}
	}
}

// fullscreenWheelScrollLines sets the lines of a wheel step; Alt moves five times as far.
func TestWheelStepFollowsTheSetting(t *testing.T) {
	var s config.Settings
	if err := json.Unmarshal([]byte(`{"fullscreenWheelScrollLines": 1}`), &s); err != nil {
		t.Fatal(err)
	}
	m := newModel(context.Background(), newTestSession(t, newScript(), nil),
		Options{Out: io.Discard, TUIMode: TUIModeFullscreen, Settings: config.InMemorySettings(s)}, 80, 24, screen.OpenTerminal(nil, io.Discard))
	defer m.shutdown()
	if got, alt := m.wheelStep(tea.MouseMsg{}), m.wheelStep(tea.MouseMsg{Alt: true}); got != 1 || alt != 5 {
		t.Fatalf("wheel step %d, with Alt %d; want 1 and 5", got, alt)
	}
	m.opts.Settings = nil // "auto"
	if got := m.wheelStep(tea.MouseMsg{}); got != wheelLines {
		t.Fatalf("auto wheel step %d, want %d", got, wheelLines)
	}
}

// The search finds its matches in the line as shown, whatever the lower case of the letters before
// them takes in bytes (more for Ⱥ, fewer for the Kelvin sign, three for an invalid byte), and the
// viewport marks them there.
func TestSearchMatchesWhereLowerCaseChangesLength(t *testing.T) {
	for _, line := range []string{"ȺȺȺ abc and ABC", "KK abc and ABC", "\xff\xfe abc and ABC", "abc and ABC"} {
		spans := findMatches(line, "aBc")
		if len(spans) != 2 {
			t.Errorf("%q: %d matches, want 2", line, len(spans))
			continue
		}
		for _, sp := range spans {
			if got := line[sp.start:sp.end]; !strings.EqualFold(got, "abc") {
				t.Errorf("%q: a match covers %q", line, got)
			}
		}
	}
	m := newModel(context.Background(), newTestSession(t, newScript(), nil), Options{Out: io.Discard, TUIMode: TUIModeFullscreen},
		80, 24, screen.OpenTerminal(nil, io.Discard))
	defer m.shutdown()
	m.addBlock(func(int) []string { return []string{"ȺȺȺ abc"} })
	m.drawFrame()
	m.openSearch()
	m.searchKey("abc", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("abc")})
	m.drawFrame() // marking the match in the viewport
	if s := m.vp.search; len(s.matches) != 1 || s.matches[0].col != strings.Index("ȺȺȺ abc", "abc") {
		t.Fatalf("matches %v", s.matches)
	}
}

// The fullscreen keys are the keymap's tui.altScreen actions: keybindings.json rebinds them, and
// Ctrl+Up, a default of previousPrompt besides Ctrl+Shift+Up, jumps too.
func TestFullscreenKeysFollowTheKeymap(t *testing.T) {
	agent := agentDirWith(t, map[string]string{"keybindings.json": `{"tui.altScreen.search": "alt+f"}`})
	u := startUI(t, newTestSession(t, newScript(textTurn(longAnswer(60))), nil),
		Options{TUIMode: TUIModeFullscreen, AgentDir: agent})
	u.submit("first question")
	u.waitScreen("the end of the answer", contains("Para60"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlUp})
	u.waitScreen("the prompt at the top", func(s string) bool {
		r := rowOf(strings.Split(s, "\n"), "first question")
		return r >= 0 && r <= 2
	})
	u.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("f"), Alt: true})
	u.waitScreen("the search bar", contains("Search:", "type to search"))
}
