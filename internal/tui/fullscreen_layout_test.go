package tui

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-go/pi-go/internal/tui/keymap"
	"github.com/pi-go/pi-go/internal/tui/screen"
)

// newFullscreenModel is a fullscreen model of the given size drawing nowhere, for tests that drive
// it directly.
func newFullscreenModel(t *testing.T, w, h int) *model {
	t.Helper()
	m := newModel(context.Background(), newTestSession(t, newScript(), nil), Options{Out: io.Discard, TUIMode: TUIModeFullscreen},
		w, h, screen.OpenTerminal(nil, io.Discard))
	t.Cleanup(m.shutdown)
	return m
}

// viewRowOf is the viewport row showing line of block (-1 if none).
func viewRowOf(m *model, block, line int) int {
	for y, r := range m.vp.rows {
		if r.block == block && r.line == line {
			return y
		}
	}
	return -1
}

// A mouse selection counts terminal cells, as the mouse reports them: over CJK and emoji, which
// take two cells each, it selects what is under the pointer, and a wide character half covered is
// taken whole.
func TestSelectionOverWideCharacters(t *testing.T) {
	const line = "漢字テスト abc 😀 end"
	for _, tc := range []struct {
		from, to int // cells pressed and released
		want     string
	}{
		{4, 12, "テスト ab"},  // テ starts at cell 4; b is cell 12
		{5, 9, "テスト"},      // from the right half of テ to the right half of ト
		{3, 3, "字"},        // a wide character's right half alone
		{8, 8, "ト"},        // its left half alone
		{13, 15, "c 😀"},    // into the emoji's left half
		{16, 100, "😀 end"}, // from its right half past the end of the line
		{10, 11, " a"},     // ASCII after the wide characters (a leading space is kept)
		{17, 17, ""},       // a blank (trailing blanks are trimmed)
		{0, 21, line},      // all of it
		{21, 30, ""},       // past the end
	} {
		m := newFullscreenModel(t, 60, 12)
		m.addBlock(func(int) []string { return []string{line} })
		m.drawFrame()
		y := viewRowOf(m, 0, 0)
		if y < 0 {
			t.Fatalf("the line is not in the viewport: %v", m.vp.rows)
		}
		m.handleMouse(tea.MouseMsg{X: tc.from, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
		m.handleMouse(tea.MouseMsg{X: tc.to, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionMotion})
		if got := m.selectedText(); got != tc.want {
			t.Errorf("cells %d–%d selected %q, want %q", tc.from, tc.to, got, tc.want)
		}
		// The marked row shows the same characters, none cut in half.
		row := m.decorateRow(line, m.vp.rows[y])
		if plain := ansi.Strip(row); plain != line || !utf8.ValidString(row) {
			t.Errorf("cells %d–%d: the marked row reads %q", tc.from, tc.to, plain)
		}
	}
}

// wrapped is a paragraph laid out at width w: cut every w cells, as a block that wraps does.
func wrapped(text string, w int) []string {
	var out []string
	for len(text) > w {
		out = append(out, text[:w])
		text = text[w:]
	}
	return append(out, text)
}

// After the transcript is laid out again at another width, the search's matches are found in the
// lines as drawn now (each one points at the query), and the current match stays the same one.
func TestSearchFollowsANewWidth(t *testing.T) {
	text := strings.Repeat("filler words here and there ", 6) + "needle one " +
		strings.Repeat("more filler text goes by ", 5) + "needle two " + strings.Repeat("tail ", 20)
	m := newFullscreenModel(t, 100, 12)
	m.addBlock(func(w int) []string { return wrapped(text, w) })
	m.addBlock(func(w int) []string { return wrapped("a last block without it", w) })
	m.drawFrame()
	m.openSearch()
	m.searchKey("needle", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("needle")})
	if len(m.vp.search.matches) != 2 {
		t.Fatalf("matches at width 100: %v", m.vp.search.matches)
	}
	m.searchStep(1) // from the newest (two) to the first
	check := func(width int) {
		t.Helper()
		s := m.vp.search
		if len(s.matches) != 2 {
			t.Fatalf("width %d: matches %v", width, s.matches)
		}
		// at is the text from a match to the end of its line ("" when the match is not in the lines).
		at := func(p pos) string {
			lines := m.fsLines(p.block, m.lastFrame)
			if p.line >= len(lines) {
				return ""
			}
			plain := ansi.Strip(lines[p.line])
			if p.col > len(plain) {
				return ""
			}
			return plain[p.col:]
		}
		for _, p := range s.matches {
			if !strings.HasPrefix(at(p), "needle") {
				t.Errorf("width %d: match %v points at %q", width, p, at(p))
			}
		}
		// The first match, "needle one", may be wrapped after any of its letters.
		if got := at(s.matches[s.cur]); !strings.HasPrefix(got+" ", "needle") || s.cur != 0 {
			t.Errorf("width %d: the current match is %d, %q; want the first one", width, s.cur, got)
		}
	}
	check(100)
	for _, w := range []int{37, 53, 24} {
		m.resize(w, 12)
		m.relayout()
		m.drawFrame()
		check(w)
	}
}

// pi 1.6's halfPage and line scrolling actions (no default keys) scroll the fullscreen transcript
// when keybindings.json binds them.
func TestHalfPageAndLineScrolling(t *testing.T) {
	m := newFullscreenModel(t, 60, 20)
	for i := range 40 {
		m.addBlock(func(int) []string { return []string{"line " + itoa(i)} })
	}
	path := filepath.Join(t.TempDir(), "keybindings.json")
	if err := os.WriteFile(path, []byte(`{"tui.altScreen.halfPageUp": "alt+u", "tui.altScreen.halfPageDown": "alt+d",
		"tui.altScreen.lineUp": "alt+k", "tui.altScreen.lineDown": "alt+j"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	km, problems, _ := keymap.Load(path)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	m.keys = km
	m.drawFrame()
	top := func() int { return m.vp.rows[0].block }
	start := top()
	alt := func(r rune) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: true} }
	for _, step := range []struct {
		key  rune
		want int
	}{
		{'k', start - 1},
		{'u', start - 1 - m.vp.height/2},
		{'j', start - m.vp.height/2},
		{'d', start},
	} {
		m.handleKey(alt(step.key))
		m.drawFrame()
		if got := top(); got != step.want {
			t.Fatalf("after alt+%c the top row shows block %d, want %d", step.key, got, step.want)
		}
	}
	if !m.vp.follow {
		t.Error("scrolled back to the end, the viewport does not follow it")
	}
}

// /hotkeys lists the fullscreen keys in fullscreen mode, with the user's bindings, and not in
// regular mode, where they do nothing.
func TestHotkeysListTheFullscreenKeys(t *testing.T) {
	km := keymap.Default()
	th := newFullscreenModel(t, 80, 24).r.Theme()
	full := strings.Join(hotkeysView(km, th, 100, true), "\n")
	for _, want := range []string{"Fullscreen", "PageUp/PageDown", "Scroll the transcript by a page", "Ctrl+Shift+F", "Search the transcript", "Ctrl+Home"} {
		if !strings.Contains(full, want) {
			t.Errorf("fullscreen /hotkeys lacks %q:\n%s", want, full)
		}
	}
	if strings.Contains(full, "by half a page") {
		t.Error("/hotkeys lists halfPage scrolling, which has no default key")
	}
	if regular := strings.Join(hotkeysView(km, th, 100, false), "\n"); strings.Contains(regular, "Fullscreen") {
		t.Errorf("regular /hotkeys lists the fullscreen keys:\n%s", regular)
	}
}
