package editor

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func press(e *Editor, keys ...tea.KeyMsg) {
	for _, k := range keys {
		e.Update(k)
	}
}

func runes(s string) tea.KeyMsg    { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
func key(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }
func alt(s string) tea.KeyMsg      { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Alt: true} }

// The emacs bindings as keys: kill a word, move, yank it back, cycle the kill ring, undo.
func TestUpdateAppliesEmacsKeys(t *testing.T) {
	e := New()
	press(e, runes("alpha"), key(tea.KeySpace), runes("beta"), key(tea.KeyCtrlW))
	if e.Text() != "alpha " {
		t.Fatalf("after Ctrl+W: %q", e.Text())
	}
	press(e, key(tea.KeyCtrlA), key(tea.KeyCtrlY))
	if e.Text() != "betaalpha " {
		t.Fatalf("after Ctrl+A Ctrl+Y: %q", e.Text())
	}
	press(e, key(tea.KeyCtrlE), key(tea.KeyCtrlU), runes("x"), key(tea.KeyCtrlU), key(tea.KeyCtrlY), alt("y"))
	if e.Text() != "betaalpha " {
		t.Fatalf("Alt+Y after Ctrl+Y yanks the previous kill: %q", e.Text())
	}
	press(e, key(tea.KeyCtrlUnderscore))
	if e.Text() != "" {
		t.Fatalf("undo of the yank: %q", e.Text())
	}
	press(e, runes("one two"), alt("b"), alt("d"))
	if e.Text() != "one " {
		t.Fatalf("Alt+B Alt+D: %q", e.Text())
	}
	press(e, tea.KeyMsg{Type: tea.KeyBackspace, Alt: true}, runes("a"), key(tea.KeyLeft), key(tea.KeyDelete))
	if e.Text() != "" {
		t.Fatalf("Alt+Backspace, Left, Delete: %q", e.Text())
	}
}

func TestUpdatePastesAndIgnoresBoundKeys(t *testing.T) {
	e := New()
	press(e, runes("see "), tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(strings.Repeat("l\n", 12)), Paste: true})
	if e.Text() != "see [paste #1 +13 lines]" {
		t.Fatalf("paste: %q", e.Text())
	}
	before := e.Text()
	press(e, key(tea.KeyEnter), key(tea.KeyUp), key(tea.KeyDown), key(tea.KeyCtrlD), key(tea.KeyTab))
	e.Update(struct{}{})
	if e.Text() != before {
		t.Fatalf("keys the owner binds changed the text: %q", e.Text())
	}
}

// pi's Up and Down: history from an empty editor and from the first or last row while browsing;
// otherwise cursor moves, to the line's start or end on the first or last row.
func TestHistoryUpAndDown(t *testing.T) {
	e := New()
	e.AddToHistory("old one")
	e.AddToHistory("one two three four five six")
	e.HistoryUp(11)
	if e.Text() != "one two three four five six" {
		t.Fatalf("Up from empty: %q", e.Text())
	}
	e.HistoryUp(11) // browsing, but on the last of three rows: moves up
	if e.Text() != "one two three four five six" || e.cursorRow(11) != 1 {
		t.Fatalf("Up inside a browsed entry: %q row %d", e.Text(), e.cursorRow(11))
	}
	e.HistoryUp(11)
	e.HistoryUp(11) // on the first row while browsing: the older entry
	if e.Text() != "old one" {
		t.Fatalf("Up from the first row: %q", e.Text())
	}
	e.HistoryDown(11)
	e.HistoryDown(11)
	if e.Text() != "" {
		t.Fatalf("Down past the newest: %q", e.Text())
	}
	e.SetText("typed")
	e.Update(key(tea.KeyCtrlA))
	e.HistoryDown(11)
	if e.TextBeforeCursor() != "typed" {
		t.Fatalf("Down on the last row goes to the line end: %q", e.TextBeforeCursor())
	}
	e.HistoryUp(11)
	if e.TextBeforeCursor() != "" || e.Text() != "typed" {
		t.Fatalf("Up on the first row (not browsing) goes to the line start: %q", e.TextBeforeCursor())
	}
}

func TestKeyName(t *testing.T) {
	if got := KeyName(tea.KeyMsg{Type: tea.KeyUp, Alt: true}); got != "alt+up" {
		t.Errorf("KeyName(Alt+Up) = %q", got)
	}
}

func TestStartsWith(t *testing.T) {
	e := New()
	if e.StartsWith('!') {
		t.Fatal("an empty editor starts with !")
	}
	press(e, runes("!ls"), key(tea.KeyCtrlJ))
	e.Newline()
	if !e.StartsWith('!') || New().StartsWith(0) {
		t.Fatalf("StartsWith('!') false for %q", e.Text())
	}
	e.SetText("\n!")
	if e.StartsWith('!') {
		t.Fatal("a ! on the second line counts")
	}
}
