package tui

import (
	"strings"
	"testing"
)

func typed(s string) *editor {
	e := newEditor()
	e.typeRunes([]rune(s))
	return e
}

func TestEditorHistoryFollowsPi(t *testing.T) {
	e := newEditor()
	for _, h := range []string{"first", "second", "second", "  third  "} {
		e.addToHistory(h)
	}
	if got := strings.Join(e.history, ","); got != "third,second,first" {
		t.Fatalf("history = %q (newest first, consecutive duplicates skipped, trimmed)", got)
	}
	e.browseHistory(-1)
	if e.text() != "third" {
		t.Fatalf("Up from empty: %q", e.text())
	}
	e.browseHistory(-1)
	e.browseHistory(-1)
	e.browseHistory(-1) // past the oldest: stays
	if e.text() != "first" {
		t.Fatalf("oldest: %q", e.text())
	}
	e.browseHistory(1)
	e.browseHistory(1)
	e.browseHistory(1) // past the newest: empty again
	if e.text() != "" || e.histIdx != -1 {
		t.Fatalf("after the newest: %q idx %d", e.text(), e.histIdx)
	}
	for i := 0; i < 150; i++ {
		e.addToHistory(strings.Repeat("x", i+1))
	}
	if len(e.history) != historyMax {
		t.Fatalf("history keeps %d entries, want %d", len(e.history), historyMax)
	}
}

func TestEditorVisualRowsAndVerticalMoves(t *testing.T) {
	e := typed("one two three four five six")
	rows := e.rows(11) // 10 cells of text per row
	var got []string
	for _, r := range rows {
		got = append(got, string(e.lines[r.line][r.start:r.end]))
	}
	if strings.Join(got, "|") != "one two |three four |five six" {
		t.Fatalf("rows = %q", got)
	}
	if !e.onLastVisualRow(11) || e.onFirstVisualRow(11) {
		t.Fatal("cursor at the end must be on the last row only")
	}
	// The column is kept: the cursor after "five six" is at column 8, so one row up it is after
	// "three fo".
	e.moveVertical(-1, 11)
	if got := string(e.lines[0][:e.col]); got != "one two three fo" {
		t.Fatalf("after Up the cursor is after %q", got)
	}
	e.moveVertical(-1, 11)
	e.moveVertical(-1, 11) // already on the first row: no move
	if !e.onFirstVisualRow(11) {
		t.Fatal("not on the first row")
	}
}

func TestEditorLargePasteBecomesAMarker(t *testing.T) {
	e := typed("see ")
	big := strings.Repeat("line\n", 20) + "end"
	e.paste(big)
	if got := e.text(); got != "see [paste #1 +21 lines]" {
		t.Fatalf("text = %q", got)
	}
	if e.expandedText() != "see "+big {
		t.Fatal("the marker does not expand to the paste")
	}
	// Backspace removes the whole marker.
	e.backspace()
	if e.text() != "see " {
		t.Fatalf("after backspace: %q", e.text())
	}
	e.paste(strings.Repeat("y", 1200))
	if got := e.text(); got != "see [paste #2 1200 chars]" {
		t.Fatalf("text = %q", got)
	}
	e.paste("small\r\npaste\twith tab")
	if !strings.HasSuffix(e.text(), "small\npaste    with tab") {
		t.Fatalf("small paste not inserted as is: %q", e.text())
	}
}

func TestEditorPastedPathGetsASpace(t *testing.T) {
	e := typed("look at")
	e.paste("/tmp/file.go")
	if e.text() != "look at /tmp/file.go" {
		t.Fatalf("text = %q", e.text())
	}
}

func TestEditorKillRingAndUndo(t *testing.T) {
	e := typed("alpha beta gamma")
	e.killWordBackward()
	e.killWordBackward()
	if e.text() != "alpha " {
		t.Fatalf("after two kills: %q", e.text())
	}
	e.lineStart()
	e.yank()
	if e.text() != "beta gammaalpha " {
		t.Fatalf("yank of consecutive kills: %q", e.text())
	}
	e.undoLast()
	if e.text() != "alpha " {
		t.Fatalf("undo yank: %q", e.text())
	}
	e.undoLast()
	e.undoLast()
	if e.text() != "alpha beta gamma" {
		t.Fatalf("undo kills: %q", e.text())
	}
	e.undoLast() // typing is one step
	if e.text() != "" {
		t.Fatalf("undo typing: %q", e.text())
	}
}

func TestEditorYankPop(t *testing.T) {
	e := typed("one")
	e.killToLineStart()
	e.typeRunes([]rune("two"))
	e.killToLineStart()
	e.yank()
	e.yankPop()
	if e.text() != "one" {
		t.Fatalf("yank-pop: %q", e.text())
	}
}

func TestEditorNewlinesAndJoins(t *testing.T) {
	e := typed("ab")
	e.left()
	e.newline()
	if e.text() != "a\nb" || e.row != 1 || e.col != 0 {
		t.Fatalf("split: %q at %d:%d", e.text(), e.row, e.col)
	}
	e.backspace()
	if e.text() != "ab" || e.col != 1 {
		t.Fatalf("join: %q col %d", e.text(), e.col)
	}
	e.lineEnd()
	e.newline()
	e.typeRunes([]rune("c"))
	e.lineStart()
	e.left()
	e.deleteForward()
	if e.text() != "abc" {
		t.Fatalf("delete forward joins: %q", e.text())
	}
}

func TestEditorWordMoves(t *testing.T) {
	e := typed("foo.bar  baz")
	e.wordLeft()
	if e.textBeforeCursor() != "foo.bar  " {
		t.Fatalf("word left: %q", e.textBeforeCursor())
	}
	e.wordLeft()
	if e.textBeforeCursor() != "foo." {
		t.Fatalf("word left over a word: %q", e.textBeforeCursor())
	}
	e.wordLeft()
	if e.textBeforeCursor() != "foo" {
		t.Fatalf("punctuation is its own word: %q", e.textBeforeCursor())
	}
	e.wordRight()
	if e.textBeforeCursor() != "foo." {
		t.Fatalf("word right: %q", e.textBeforeCursor())
	}
}

func TestEditorViewScrollsToTheCursor(t *testing.T) {
	e := newEditor()
	e.setText(strings.Repeat("line\n", 30) + "last")
	rows := e.view(40, 5, false)
	if len(rows) != 5 || rows[4] != "last" {
		t.Fatalf("view = %q", rows)
	}
	e.setText("short")
	if rows := e.view(40, 5, false); len(rows) != 1 || rows[0] != "short" {
		t.Fatalf("after shrinking: %q", rows)
	}
}

func TestEditorWideCharactersWrap(t *testing.T) {
	e := typed(strings.Repeat("日本", 10))
	for _, r := range e.rows(9) {
		if w := renderWidth(string(e.lines[r.line][r.start:r.end])); w > 8 {
			t.Fatalf("row %q is %d cells wide", string(e.lines[r.line][r.start:r.end]), w)
		}
	}
}
