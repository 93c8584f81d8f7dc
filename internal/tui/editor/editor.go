package editor

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/pi-go/pi-go/internal/lazyregexp"
)

// Editor is the prompt editor: multi-line text with a cursor, pi's prompt history, large pastes
// kept as markers, an emacs kill ring and undo. Its owner passes it editing keys (Update), calls the
// methods for the keys it binds itself (Newline, HistoryUp...), and draws it with View.
type Editor struct {
	lines [][]rune
	row   int // cursor line
	col   int // cursor position in the line, in runes

	// history holds submitted prompts, newest first (pi: at most 100, no consecutive duplicates);
	// histIdx is the entry shown while browsing, -1 when not browsing.
	history []string
	histIdx int

	// pastes are the texts behind "[paste #n ...]" markers, expanded on submit.
	pastes    map[int]string
	pasteNext int

	kill       []string // kill ring, newest last
	lastAction string   // "kill", "yank" or "": consecutive kills append, yank-pop needs a yank
	yankLen    int      // runes inserted by the last yank (for yank-pop)

	undo      []editorSnapshot
	typingRun bool // the last edit inserted typed characters (coalesced into one undo step)

	// goalCol is the visual column kept while moving up and down (-1: the cursor's own).
	goalCol int
	// scroll is the first visual row shown when the text is taller than the editor.
	scroll int
	// version changes with every edit; the layout cache keys on it.
	version int
	layout  editorLayout
}

type editorSnapshot struct {
	lines    [][]rune
	row, col int
}

const (
	historyMax      = 100
	undoMax         = 200
	largePasteLines = 10
	largePasteChars = 1000
)

var pasteMarker = lazyregexp.New(`\[paste #(\d+)( (\+\d+ lines|\d+ chars))?\]`)

func New() *Editor {
	return &Editor{lines: [][]rune{{}}, histIdx: -1, goalCol: -1, pastes: map[int]string{}}
}

// Text is the editor's content as typed (paste markers not expanded).
func (e *Editor) Text() string {
	parts := make([]string, len(e.lines))
	for i, l := range e.lines {
		parts[i] = string(l)
	}
	return strings.Join(parts, "\n")
}

// ExpandedText is the content with every paste marker replaced by what was pasted.
func (e *Editor) ExpandedText() string {
	t := e.Text()
	if len(e.pastes) == 0 {
		return t
	}
	return pasteMarker.ReplaceAllStringFunc(t, func(m string) string {
		id, _ := strconv.Atoi(pasteMarker.FindStringSubmatch(m)[1])
		if p, ok := e.pastes[id]; ok {
			return p
		}
		return m
	})
}

// Empty reports whether there is no text.
func (e *Editor) Empty() bool { return len(e.lines) == 1 && len(e.lines[0]) == 0 }

// StartsWith reports whether the text begins with r, without copying the text (the live region
// asks on every frame whether the editor is in bash mode).
func (e *Editor) StartsWith(r rune) bool {
	return len(e.lines) > 0 && len(e.lines[0]) > 0 && e.lines[0][0] == r
}

// SetText replaces the content (undoably) and puts the cursor at its end.
func (e *Editor) SetText(s string) {
	if s != e.Text() {
		e.snapshot()
	}
	e.setTextInternal(normalizeText(s))
	e.histIdx = -1
}

func (e *Editor) setTextInternal(s string) {
	e.lines = nil
	for _, l := range strings.Split(s, "\n") {
		e.lines = append(e.lines, []rune(l))
	}
	e.row = len(e.lines) - 1
	e.col = len(e.lines[e.row])
	e.scroll = 0
	e.changed()
}

// Clear empties the editor after a submit: pastes, undo and history browsing are reset.
func (e *Editor) Clear() {
	e.lines = [][]rune{{}}
	e.row, e.col = 0, 0
	e.pastes = map[int]string{}
	e.pasteNext = 0
	e.undo = nil
	e.histIdx = -1
	e.scroll = 0
	e.lastAction = ""
	e.changed()
}

func (e *Editor) changed() {
	e.version++
	e.goalCol = -1
}

func normalizeText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.ReplaceAll(s, "\t", "    ")
}

// AddToHistory records a submitted prompt (pi's rules).
func (e *Editor) AddToHistory(s string) {
	s = strings.TrimSpace(s)
	if s == "" || len(e.history) > 0 && e.history[0] == s {
		return
	}
	e.history = append([]string{s}, e.history...)
	if len(e.history) > historyMax {
		e.history = e.history[:historyMax]
	}
}

// browseHistory moves through the history: dir -1 is older (Up), +1 newer (Down). Past the newest
// entry the editor is empty again.
func (e *Editor) browseHistory(dir int) {
	e.lastAction = ""
	if len(e.history) == 0 {
		return
	}
	idx := e.histIdx - dir
	if idx < -1 || idx >= len(e.history) {
		return
	}
	if e.histIdx == -1 && idx >= 0 {
		e.snapshot()
	}
	e.histIdx = idx
	if idx == -1 {
		e.setTextInternal("")
	} else {
		e.setTextInternal(e.history[idx])
	}
}

// ---- editing ----

func (e *Editor) snapshot() {
	lines := make([][]rune, len(e.lines))
	for i, l := range e.lines {
		lines[i] = append([]rune(nil), l...)
	}
	e.undo = append(e.undo, editorSnapshot{lines: lines, row: e.row, col: e.col})
	if len(e.undo) > undoMax {
		e.undo = e.undo[len(e.undo)-undoMax:]
	}
}

func (e *Editor) undoLast() {
	e.lastAction, e.typingRun = "", false
	if len(e.undo) == 0 {
		return
	}
	s := e.undo[len(e.undo)-1]
	e.undo = e.undo[:len(e.undo)-1]
	e.lines, e.row, e.col = s.lines, s.row, s.col
	e.histIdx = -1
	e.changed()
}

// edit prepares a change: history browsing ends and an undo step is recorded (typing coalesces).
func (e *Editor) edit(typing bool) {
	if !typing || !e.typingRun {
		e.snapshot()
	}
	e.typingRun = typing
	e.histIdx = -1
}

// typeRunes inserts typed characters.
func (e *Editor) typeRunes(rs []rune) {
	e.edit(true)
	e.lastAction = ""
	e.insert(string(rs))
}

// InsertText inserts text at the cursor as one undo step (completions, pulled-back messages).
func (e *Editor) InsertText(s string) {
	e.edit(false)
	e.lastAction = ""
	e.insert(normalizeText(s))
}

// Newline splits the line at the cursor.
func (e *Editor) Newline() {
	e.edit(false)
	e.lastAction = ""
	e.insert("\n")
}

// insert puts s (already normalised) at the cursor.
func (e *Editor) insert(s string) {
	parts := strings.Split(s, "\n")
	line := e.lines[e.row]
	before := append([]rune(nil), line[:e.col]...)
	after := append([]rune(nil), line[e.col:]...)
	if len(parts) == 1 {
		ins := []rune(parts[0])
		e.lines[e.row] = append(append(before, ins...), after...)
		e.col += len(ins)
		e.changed()
		return
	}
	newLines := make([][]rune, 0, len(e.lines)+len(parts)-1)
	newLines = append(newLines, e.lines[:e.row]...)
	newLines = append(newLines, append(before, []rune(parts[0])...))
	for _, p := range parts[1 : len(parts)-1] {
		newLines = append(newLines, []rune(p))
	}
	last := []rune(parts[len(parts)-1])
	newLines = append(newLines, append(append([]rune(nil), last...), after...))
	newLines = append(newLines, e.lines[e.row+1:]...)
	e.lines = newLines
	e.row += len(parts) - 1
	e.col = len(last)
	e.changed()
}

// Paste inserts pasted text as pi does: line endings normalised, control characters dropped, a
// space before a path pasted right after a word, and a marker instead of a large paste.
func (e *Editor) Paste(s string) {
	s = normalizeText(s)
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r >= 0x20 && r != 0x7f {
			return r
		}
		return -1
	}, s)
	if s == "" {
		return
	}
	if strings.ContainsAny(s[:1], "/~.") && e.col > 0 && isWordRune(e.lines[e.row][e.col-1]) {
		s = " " + s
	}
	e.edit(false)
	e.lastAction = ""
	n := strings.Count(s, "\n") + 1
	if n > largePasteLines || len([]rune(s)) > largePasteChars {
		e.pasteNext++
		e.pastes[e.pasteNext] = s
		if n > largePasteLines {
			s = "[paste #" + strconv.Itoa(e.pasteNext) + " +" + strconv.Itoa(n) + " lines]"
		} else {
			s = "[paste #" + strconv.Itoa(e.pasteNext) + " " + strconv.Itoa(len([]rune(s))) + " chars]"
		}
	}
	e.insert(s)
}

// markerBefore returns the length of a paste marker ending at the cursor (0 when none), so that
// deleting and moving treat a marker as one character.
func (e *Editor) markerBefore() int {
	line := e.lines[e.row]
	if e.col == 0 || line[e.col-1] != ']' {
		return 0
	}
	s := string(line[:e.col])
	for _, loc := range pasteMarker.FindAllStringIndex(s, -1) {
		if loc[1] == len(s) && e.pasteKnown(s[loc[0]:loc[1]]) {
			return len([]rune(s[loc[0]:]))
		}
	}
	return 0
}

func (e *Editor) markerAfter() int {
	line := e.lines[e.row]
	if e.col >= len(line) || line[e.col] != '[' {
		return 0
	}
	s := string(line[e.col:])
	if loc := pasteMarker.FindStringIndex(s); loc != nil && loc[0] == 0 && e.pasteKnown(s[:loc[1]]) {
		return len([]rune(s[:loc[1]]))
	}
	return 0
}

func (e *Editor) pasteKnown(marker string) bool {
	id, _ := strconv.Atoi(pasteMarker.FindStringSubmatch(marker)[1])
	_, ok := e.pastes[id]
	return ok
}

// Backspace deletes the character (or paste marker) before the cursor; at a line start it joins
// the line to the one above.
func (e *Editor) Backspace() {
	e.lastAction = ""
	if e.col == 0 && e.row == 0 {
		return
	}
	e.edit(false)
	if e.col == 0 {
		prev := e.lines[e.row-1]
		e.col = len(prev)
		e.lines[e.row-1] = append(prev, e.lines[e.row]...)
		e.lines = append(e.lines[:e.row], e.lines[e.row+1:]...)
		e.row--
		e.changed()
		return
	}
	n := max(e.markerBefore(), 1)
	line := e.lines[e.row]
	e.lines[e.row] = append(line[:e.col-n:e.col-n], line[e.col:]...)
	e.col -= n
	e.changed()
}

// DeleteForward deletes the character (or paste marker) after the cursor; at a line end it joins
// the next line.
func (e *Editor) DeleteForward() {
	e.lastAction = ""
	line := e.lines[e.row]
	if e.col == len(line) && e.row == len(e.lines)-1 {
		return
	}
	e.edit(false)
	if e.col == len(line) {
		e.lines[e.row] = append(line, e.lines[e.row+1]...)
		e.lines = append(e.lines[:e.row+1], e.lines[e.row+2:]...)
		e.changed()
		return
	}
	n := max(e.markerAfter(), 1)
	e.lines[e.row] = append(line[:e.col:e.col], line[e.col+n:]...)
	e.changed()
}

// ---- cursor movement within a line ----

func (e *Editor) left() {
	e.lastAction = ""
	switch {
	case e.col > 0:
		e.col -= max(e.markerBefore(), 1)
	case e.row > 0:
		e.row--
		e.col = len(e.lines[e.row])
	}
	e.goalCol = -1
}

func (e *Editor) right() {
	e.lastAction = ""
	switch {
	case e.col < len(e.lines[e.row]):
		e.col += max(e.markerAfter(), 1)
	case e.row < len(e.lines)-1:
		e.row++
		e.col = 0
	}
	e.goalCol = -1
}

func (e *Editor) lineStart() { e.col, e.goalCol, e.lastAction = 0, -1, "" }
func (e *Editor) lineEnd()   { e.col, e.goalCol, e.lastAction = len(e.lines[e.row]), -1, "" }

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordLeft is the position of the start of the word before the cursor (punctuation runs count as
// words, as in pi).
func (e *Editor) wordLeftPos() int {
	line := e.lines[e.row]
	i := e.col
	for i > 0 && unicode.IsSpace(line[i-1]) {
		i--
	}
	if i > 0 && isWordRune(line[i-1]) {
		for i > 0 && isWordRune(line[i-1]) {
			i--
		}
	} else {
		for i > 0 && !isWordRune(line[i-1]) && !unicode.IsSpace(line[i-1]) {
			i--
		}
	}
	return i
}

func (e *Editor) wordRightPos() int {
	line := e.lines[e.row]
	i := e.col
	for i < len(line) && unicode.IsSpace(line[i]) {
		i++
	}
	if i < len(line) && isWordRune(line[i]) {
		for i < len(line) && isWordRune(line[i]) {
			i++
		}
	} else {
		for i < len(line) && !isWordRune(line[i]) && !unicode.IsSpace(line[i]) {
			i++
		}
	}
	return i
}

func (e *Editor) wordLeft() {
	e.lastAction, e.goalCol = "", -1
	if e.col == 0 {
		if e.row > 0 {
			e.row--
			e.col = len(e.lines[e.row])
		}
		return
	}
	e.col = e.wordLeftPos()
}

func (e *Editor) wordRight() {
	e.lastAction, e.goalCol = "", -1
	if e.col == len(e.lines[e.row]) {
		if e.row < len(e.lines)-1 {
			e.row++
			e.col = 0
		}
		return
	}
	e.col = e.wordRightPos()
}

// ---- kill ring ----

// killRange deletes [from, to) of the cursor line and records it in the kill ring; consecutive
// kills accumulate into one entry (prepend when killing backwards).
func (e *Editor) killRange(from, to int, backward bool) {
	if from == to {
		// At a line edge: join lines, killing the newline.
		switch {
		case backward && e.col == 0 && e.row > 0:
			e.edit(false)
			e.recordKill("\n", backward)
			prev := e.lines[e.row-1]
			e.col = len(prev)
			e.lines[e.row-1] = append(prev, e.lines[e.row]...)
			e.lines = append(e.lines[:e.row], e.lines[e.row+1:]...)
			e.row--
			e.changed()
		case !backward && e.col == len(e.lines[e.row]) && e.row < len(e.lines)-1:
			e.edit(false)
			e.recordKill("\n", backward)
			e.lines[e.row] = append(e.lines[e.row], e.lines[e.row+1]...)
			e.lines = append(e.lines[:e.row+1], e.lines[e.row+2:]...)
			e.changed()
		}
		return
	}
	e.edit(false)
	line := e.lines[e.row]
	e.recordKill(string(line[from:to]), backward)
	e.lines[e.row] = append(append([]rune(nil), line[:from]...), line[to:]...)
	e.col = from
	e.changed()
}

func (e *Editor) recordKill(s string, backward bool) {
	if e.lastAction == "kill" && len(e.kill) > 0 {
		if backward {
			e.kill[len(e.kill)-1] = s + e.kill[len(e.kill)-1]
		} else {
			e.kill[len(e.kill)-1] += s
		}
	} else {
		e.kill = append(e.kill, s)
		if len(e.kill) > 30 {
			e.kill = e.kill[1:]
		}
	}
	e.lastAction = "kill"
}

func (e *Editor) killWordBackward() { e.killRange(e.wordLeftPos(), e.col, true) }
func (e *Editor) killWordForward()  { e.killRange(e.col, e.wordRightPos(), false) }
func (e *Editor) killToLineStart()  { e.killRange(0, e.col, true) }
func (e *Editor) killToLineEnd()    { e.killRange(e.col, len(e.lines[e.row]), false) }

func (e *Editor) yank() {
	if len(e.kill) == 0 {
		return
	}
	e.edit(false)
	s := e.kill[len(e.kill)-1]
	e.insert(s)
	e.lastAction = "yank"
	e.yankLen = len([]rune(s))
}

// yankPop replaces the text just yanked by the previous kill-ring entry.
func (e *Editor) yankPop() {
	if e.lastAction != "yank" || len(e.kill) < 2 {
		return
	}
	// Remove what the last yank inserted (it may span lines): rebuild from the text.
	all := []rune(e.Text())
	pos := e.offset()
	start := pos - e.yankLen
	if start < 0 {
		return
	}
	e.kill = append([]string{e.kill[len(e.kill)-1]}, e.kill[:len(e.kill)-1]...)
	s := e.kill[len(e.kill)-1]
	rest := string(all[:start]) + s
	full := rest + string(all[pos:])
	e.setTextInternal(full)
	e.setOffset(len([]rune(rest)))
	e.lastAction = "yank"
	e.yankLen = len([]rune(s))
}

// offset is the cursor's position in text(), in runes.
func (e *Editor) offset() int {
	n := 0
	for i := 0; i < e.row; i++ {
		n += len(e.lines[i]) + 1
	}
	return n + e.col
}

func (e *Editor) setOffset(n int) {
	for i, l := range e.lines {
		if n <= len(l) {
			e.row, e.col = i, n
			return
		}
		n -= len(l) + 1
	}
	e.row = len(e.lines) - 1
	e.col = len(e.lines[e.row])
}

// Cursor is the cursor's line and column (in runes).
func (e *Editor) Cursor() (row, col int) { return e.row, e.col }

// TextBeforeCursor is the cursor line up to the cursor (what completion looks at).
func (e *Editor) TextBeforeCursor() string { return string(e.lines[e.row][:e.col]) }

// ReplaceBeforeCursor replaces the n runes before the cursor by s (a completion).
func (e *Editor) ReplaceBeforeCursor(n int, s string) {
	e.edit(false)
	e.lastAction = ""
	line := e.lines[e.row]
	n = min(n, e.col)
	ins := []rune(s)
	e.lines[e.row] = append(append(append([]rune(nil), line[:e.col-n]...), ins...), line[e.col:]...)
	e.col = e.col - n + len(ins)
	e.changed()
}
