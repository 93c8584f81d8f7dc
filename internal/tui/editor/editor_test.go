package editor

import (
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

func typed(s string) *Editor {
	e := New()
	e.typeRunes([]rune(s))
	return e
}

func TestEditorHistoryFollowsPi(t *testing.T) {
	e := New()
	for _, h := range []string{"first", "second", "second", "  third  "} {
		e.AddToHistory(h)
	}
	if got := strings.Join(e.history, ","); got != "third,second,first" {
		t.Fatalf("history = %q (newest first, consecutive duplicates skipped, trimmed)", got)
	}
	e.browseHistory(-1)
	if e.Text() != "third" {
		t.Fatalf("Up from empty: %q", e.Text())
	}
	e.browseHistory(-1)
	e.browseHistory(-1)
	e.browseHistory(-1) // past the oldest: stays
	if e.Text() != "first" {
		t.Fatalf("oldest: %q", e.Text())
	}
	e.browseHistory(1)
	e.browseHistory(1)
	e.browseHistory(1) // past the newest: empty again
	if e.Text() != "" || e.histIdx != -1 {
		t.Fatalf("after the newest: %q idx %d", e.Text(), e.histIdx)
	}
	for i := 0; i < 150; i++ {
		e.AddToHistory(strings.Repeat("x", i+1))
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
	e.Paste(big)
	if got := e.Text(); got != "see [paste #1 +21 lines]" {
		t.Fatalf("text = %q", got)
	}
	if e.ExpandedText() != "see "+big {
		t.Fatal("the marker does not expand to the paste")
	}
	// Backspace removes the whole marker.
	e.Backspace()
	if e.Text() != "see " {
		t.Fatalf("after backspace: %q", e.Text())
	}
	e.Paste(strings.Repeat("y", 1200))
	if got := e.Text(); got != "see [paste #2 1200 chars]" {
		t.Fatalf("text = %q", got)
	}
	e.Paste("small\r\npaste\twith tab")
	if !strings.HasSuffix(e.Text(), "small\npaste    with tab") {
		t.Fatalf("small paste not inserted as is: %q", e.Text())
	}
}

func TestEditorPastedPathGetsASpace(t *testing.T) {
	e := typed("look at")
	e.Paste("/tmp/file.go")
	if e.Text() != "look at /tmp/file.go" {
		t.Fatalf("text = %q", e.Text())
	}
}

func TestEditorKillRingAndUndo(t *testing.T) {
	e := typed("alpha beta gamma")
	e.killWordBackward()
	e.killWordBackward()
	if e.Text() != "alpha " {
		t.Fatalf("after two kills: %q", e.Text())
	}
	e.lineStart()
	e.yank()
	if e.Text() != "beta gammaalpha " {
		t.Fatalf("yank of consecutive kills: %q", e.Text())
	}
	e.undoLast()
	if e.Text() != "alpha " {
		t.Fatalf("undo yank: %q", e.Text())
	}
	e.undoLast()
	e.undoLast()
	if e.Text() != "alpha beta gamma" {
		t.Fatalf("undo kills: %q", e.Text())
	}
	e.undoLast() // typing is one step
	if e.Text() != "" {
		t.Fatalf("undo typing: %q", e.Text())
	}
}

func TestEditorYankPop(t *testing.T) {
	e := typed("one")
	e.killToLineStart()
	e.typeRunes([]rune("two"))
	e.killToLineStart()
	e.yank()
	e.yankPop()
	if e.Text() != "one" {
		t.Fatalf("yank-pop: %q", e.Text())
	}
}

func TestEditorNewlinesAndJoins(t *testing.T) {
	e := typed("ab")
	e.left()
	e.Newline()
	if e.Text() != "a\nb" || e.row != 1 || e.col != 0 {
		t.Fatalf("split: %q at %d:%d", e.Text(), e.row, e.col)
	}
	e.Backspace()
	if e.Text() != "ab" || e.col != 1 {
		t.Fatalf("join: %q col %d", e.Text(), e.col)
	}
	e.lineEnd()
	e.Newline()
	e.typeRunes([]rune("c"))
	e.lineStart()
	e.left()
	e.DeleteForward()
	if e.Text() != "abc" {
		t.Fatalf("delete forward joins: %q", e.Text())
	}
}

func TestEditorWordMoves(t *testing.T) {
	e := typed("foo.bar  baz")
	e.wordLeft()
	if e.TextBeforeCursor() != "foo.bar  " {
		t.Fatalf("word left: %q", e.TextBeforeCursor())
	}
	e.wordLeft()
	if e.TextBeforeCursor() != "foo." {
		t.Fatalf("word left over a word: %q", e.TextBeforeCursor())
	}
	e.wordLeft()
	if e.TextBeforeCursor() != "foo" {
		t.Fatalf("punctuation is its own word: %q", e.TextBeforeCursor())
	}
	e.wordRight()
	if e.TextBeforeCursor() != "foo." {
		t.Fatalf("word right: %q", e.TextBeforeCursor())
	}
}

func TestEditorViewScrollsToTheCursor(t *testing.T) {
	e := New()
	e.SetText(strings.Repeat("line\n", 30) + "last")
	rows := e.View(40, 5, false)
	if len(rows) != 5 || rows[4] != "last" {
		t.Fatalf("view = %q", rows)
	}
	e.SetText("short")
	if rows := e.View(40, 5, false); len(rows) != 1 || rows[0] != "short" {
		t.Fatalf("after shrinking: %q", rows)
	}
}

func TestEditorWideCharactersWrap(t *testing.T) {
	e := typed(strings.Repeat("日本", 10))
	for _, r := range e.rows(9) {
		if w := runewidth.StringWidth(string(e.lines[r.line][r.start:r.end])); w > 8 {
			t.Fatalf("row %q is %d cells wide", string(e.lines[r.line][r.start:r.end]), w)
		}
	}
}
