package editor

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
)

// editorLayout is the editor's text cut into visual rows for one width.
type editorLayout struct {
	version, width int
	rows           []visualRow
}

// visualRow is runes [start, end) of logical line line. last marks a line's last row, the only one
// on which the cursor may sit after the final character.
type visualRow struct {
	line, start, end int
	last             bool
}

// rows returns the visual rows of the text at width (cached until the next edit).
func (e *Editor) rows(width int) []visualRow {
	if e.layout.version == e.version && e.layout.width == width && e.layout.rows != nil {
		return e.layout.rows
	}
	// One cell stays free for the cursor after the last character of a full row.
	w := max(width-1, 1)
	var rows []visualRow
	for li, line := range e.lines {
		rows = append(rows, wrapLine(li, line, w)...)
	}
	e.layout = editorLayout{version: e.version, width: width, rows: rows}
	return rows
}

// wrapLine cuts one logical line into rows of at most w cells, breaking after the last space of a
// row when there is one (a space at the break stays on the row it ends).
func wrapLine(li int, line []rune, w int) []visualRow {
	var out []visualRow
	start := 0
	for {
		width, i, lastSpace := 0, start, -1
		for i < len(line) {
			cw := runewidth.RuneWidth(line[i])
			if width+cw > w && i > start {
				break
			}
			if line[i] == ' ' {
				lastSpace = i
			}
			width += cw
			i++
		}
		if i >= len(line) {
			out = append(out, visualRow{line: li, start: start, end: len(line), last: true})
			return out
		}
		end := i
		switch {
		case line[i] == ' ':
			end = i + 1
		case lastSpace >= start:
			end = lastSpace + 1
		}
		out = append(out, visualRow{line: li, start: start, end: end})
		start = end
		if start >= len(line) {
			out = append(out, visualRow{line: li, start: start, end: start, last: true})
			return out
		}
	}
}

// cursorRow is the index of the visual row holding the cursor.
func (e *Editor) cursorRow(width int) int {
	rows := e.rows(width)
	for i, r := range rows {
		if r.line == e.row && e.col >= r.start && (e.col < r.end || r.last && e.col == r.end) {
			return i
		}
	}
	return len(rows) - 1
}

func (e *Editor) onFirstVisualRow(width int) bool { return e.cursorRow(width) == 0 }
func (e *Editor) onLastVisualRow(width int) bool {
	return e.cursorRow(width) == len(e.rows(width))-1
}

// moveVertical moves the cursor one visual row up (-1) or down (+1), keeping its column.
func (e *Editor) moveVertical(dir, width int) {
	rows := e.rows(width)
	cur := e.cursorRow(width)
	target := cur + dir
	if target < 0 || target >= len(rows) {
		return
	}
	r := rows[cur]
	goal := e.goalCol
	if goal < 0 {
		goal = runewidth.StringWidth(string(e.lines[e.row][r.start:e.col]))
	}
	t := rows[target]
	line := e.lines[t.line]
	limit := t.end
	if !t.last && limit > t.start {
		limit-- // stay on this row
	}
	col, w := t.start, 0
	for col < limit {
		cw := runewidth.RuneWidth(line[col])
		if w+cw > goal {
			break
		}
		w += cw
		col++
	}
	e.row, e.col = t.line, col
	e.goalCol = goal
	e.lastAction = ""
}

// View renders the text at width, at most maxRows rows (scrolled to keep the cursor visible), the
// cursor shown in reverse video when showCursor.
func (e *Editor) View(width, maxRows int, showCursor bool) []string {
	rows := e.rows(width)
	cur := e.cursorRow(width)
	maxRows = max(maxRows, 1)
	if cur < e.scroll {
		e.scroll = cur
	}
	if cur >= e.scroll+maxRows {
		e.scroll = cur - maxRows + 1
	}
	if e.scroll > max(len(rows)-maxRows, 0) {
		e.scroll = max(len(rows)-maxRows, 0)
	}
	end := min(len(rows), e.scroll+maxRows)
	out := make([]string, 0, end-e.scroll)
	for i := e.scroll; i < end; i++ {
		r := rows[i]
		seg := e.lines[r.line][r.start:r.end]
		if !showCursor || i != cur {
			out = append(out, string(seg))
			continue
		}
		c := e.col - r.start
		var b strings.Builder
		b.WriteString(string(seg[:c]))
		b.WriteString(reverseOn)
		if c < len(seg) {
			b.WriteRune(seg[c])
			b.WriteString(reverseOff)
			b.WriteString(string(seg[c+1:]))
		} else {
			b.WriteString(" " + reverseOff)
		}
		out = append(out, b.String())
	}
	return out
}

// The cursor is the character under it in reverse video.
var (
	reverseOn  = ansi.Style{}.Reverse(true).String()
	reverseOff = ansi.Style{}.Reverse(false).String()
)
