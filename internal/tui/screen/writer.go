package screen

import (
	"bytes"
	"io"
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// Terminal control sequences the screen writes.
const (
	syncBegin   = "\x1b[?2026h" // synchronized output: the terminal shows the frame at once
	syncEnd     = "\x1b[?2026l"
	eraseRight  = "\x1b[K"
	eraseBelow  = "\x1b[J"
	hideCursor  = "\x1b[?25l"
	showCursor  = "\x1b[?25h"
	pasteOn     = "\x1b[?2004h"
	pasteOff    = "\x1b[?2004l"
	resetStyles = "\x1b[0m"
	// clearAll clears the screen, then the scrollback (a terminal that keeps a cleared screen in its
	// history, as tmux does, has put it there by then), and homes the cursor.
	clearAll = "\x1b[H\x1b[2J\x1b[3J\x1b[H"
)

// Writer draws the UI inline, on the main screen, below whatever the terminal showed before.
// Printed lines go above the live region and are never touched again (they scroll into the
// terminal's scrollback); the live region is redrawn in place, only from its first changed line.
//
// The hardware cursor is parked at the start of the live region's last line. When the terminal
// narrows, terminals that re-wrap their content (tmux, VTE, kitty, iTerm2, Windows Terminal...) turn
// each live line wider than the new width into several rows; Resize counts them, so the next frame
// starts exactly at the old region's first row and erases all of it: no fragment of an old frame
// stays behind in the scrollback.
type Writer struct {
	out    io.Writer
	width  int
	height int
	// reflow says the terminal re-wraps lines when it narrows (false for xterm and GNU screen).
	reflow bool
	// alt: the frame fills the alternate screen from its first row (fullscreen mode); nothing is
	// printed above it and a resize redraws it from a cleared screen.
	alt bool

	lines  []string // the live region as drawn
	widths []int    // their widths in cells
	// up is how many rows the cursor is below the live region's first row.
	up int
	// full makes the next frame redraw the whole region (after a resize or a suspend).
	full bool
	// clear makes the next frame clear the screen and the scrollback first (Clear).
	clear bool
	// paused: another program has the terminal (Ctrl+Z, the external editor); nothing is drawn.
	paused bool

	buf bytes.Buffer
	err error // the first write error; nothing is written after it
}

// New returns a writer drawing into out, a terminal of width x height cells; reflow says the terminal
// re-wraps lines when it narrows (see TerminalReflows).
func New(out io.Writer, width, height int, reflow bool) *Writer {
	return &Writer{out: out, width: width, height: height, reflow: reflow}
}

// Resize records the terminal's new size. A terminal that re-wraps has turned every line of the
// drawn frame wider than the new width into several rows above the cursor (counted from the frame
// as drawn, so that several resizes before the next frame add up right).
func (s *Writer) Resize(width, height int) {
	if width <= 0 || height <= 0 || width == s.width && height == s.height {
		return
	}
	if s.alt {
		s.width, s.height = width, height
		s.clear = true
		return
	}
	if s.reflow && len(s.lines) > 0 {
		rows := 0
		for i := 0; i < len(s.lines)-1; i++ {
			rows += max(1, (s.widths[i]+width-1)/width)
		}
		s.up = rows
	}
	s.width, s.height = width, height
	s.full = true
}

// Draw prints lines above the live region and redraws the live region as live.
func (s *Writer) Draw(print, live []string) {
	if s.err != nil || s.paused {
		return
	}
	if len(live) == 0 {
		live = []string{""}
	}
	b := &s.buf
	b.Reset()
	if s.alt && (s.full || s.lines == nil || s.clear) {
		s.drawAlt(live)
		return
	}
	if len(print) > 0 || s.full || s.lines == nil || s.clear {
		b.WriteString(syncBegin)
		if s.clear {
			b.WriteString(clearAll)
			s.up, s.clear = 0, false
		} else {
			s.moveTo(0)
			b.WriteString(eraseBelow)
		}
		for _, l := range print {
			b.WriteString(l)
			b.WriteString(resetStyles + "\r\n")
		}
		s.finish(live, s.writeRows(live, false))
		return
	}
	first := 0
	for first < len(live) && first < len(s.lines) && live[first] == s.lines[first] {
		first++
	}
	if first == len(live) && len(live) == len(s.lines) {
		return // nothing changed
	}
	b.WriteString(syncBegin)
	widths := make([]int, len(live))
	copy(widths, s.widths[:min(first, len(s.widths))])
	if first == len(live) {
		// Only shorter: erase the rows below the new last line.
		s.moveTo(first - 1)
		b.WriteString("\x1b[1B\r" + eraseBelow + "\x1b[1A")
		s.finish(live, widths)
		return
	}
	if first < len(s.lines) {
		s.moveTo(first)
	} else {
		s.moveTo(len(s.lines) - 1)
		b.WriteString("\r\n")
	}
	for i := first; i < len(live); i++ {
		if i > first {
			b.WriteString("\r\n")
		}
		if i < len(s.lines) && live[i] == s.lines[i] {
			widths[i] = s.widths[i]
			continue
		}
		live[i], widths[i] = s.fit(live[i])
		b.WriteString(live[i])
		if widths[i] < s.width {
			b.WriteString(eraseRight)
		}
	}
	if len(live) < len(s.lines) {
		b.WriteString("\x1b[1B\r" + eraseBelow + "\x1b[1A")
	}
	s.finish(live, widths)
}

// drawAlt draws a whole alternate-screen frame from the top-left corner, every row written and
// erased to its end: the screen is not cleared first, because terminals that keep a cleared screen
// in their history (tmux's scroll-on-clear) would keep every redrawn frame.
func (s *Writer) drawAlt(live []string) {
	s.buf.WriteString(syncBegin + "\x1b[H")
	s.clear = false
	s.finish(live, s.writeRows(live, true))
}

// writeRows writes a whole frame's rows from the cursor down and returns their widths; eraseRest
// erases each row's rest (over an old frame that was not erased).
func (s *Writer) writeRows(live []string, eraseRest bool) []int {
	b := &s.buf
	widths := make([]int, len(live))
	for i, l := range live {
		if i > 0 {
			b.WriteString("\r\n")
		}
		live[i], widths[i] = s.fit(l)
		b.WriteString(live[i])
		if eraseRest && widths[i] < s.width {
			b.WriteString(resetStyles + eraseRight)
		}
	}
	return widths
}

// fit truncates a line that would not fit (the renderers should never produce one) and measures it.
func (s *Writer) fit(l string) (string, int) {
	w := ansi.StringWidth(l)
	if s.width > 0 && w > s.width {
		l = ansi.Truncate(l, s.width, "")
		w = ansi.StringWidth(l)
	}
	return l, w
}

// moveTo puts the cursor at the start of row (relative to the live region's first row).
func (s *Writer) moveTo(row int) {
	b := &s.buf
	switch d := row - s.up; {
	case d < 0:
		b.WriteString("\x1b[" + strconv.Itoa(-d) + "A")
	case d > 0:
		b.WriteString("\x1b[" + strconv.Itoa(d) + "B")
	}
	b.WriteByte('\r')
	s.up = row
}

// finish parks the cursor at the start of the last line and writes the frame in one write.
func (s *Writer) finish(live []string, widths []int) {
	s.buf.WriteString(resetStyles + "\r" + syncEnd)
	s.lines, s.widths = live, widths
	s.up = len(live) - 1
	s.full = false
	s.flush()
}

func (s *Writer) flush() {
	if s.buf.Len() == 0 || s.err != nil {
		return
	}
	_, s.err = s.out.Write(s.buf.Bytes())
	s.buf.Reset()
}

// Clear makes the next Draw clear the screen and the terminal's scrollback and start at the top:
// the caller prints the whole transcript again with it (a new width, other toggles).
func (s *Writer) Clear() {
	s.clear = true
}

// Release erases the live region and prints lines in its place, leaving the cursor at the start of
// the row after them: the terminal is the shell's again (quit, suspend, an external editor).
func (s *Writer) Release(print []string) {
	if s.err != nil {
		return
	}
	b := &s.buf
	b.Reset()
	b.WriteString(syncBegin)
	if s.lines != nil {
		s.moveTo(0)
		b.WriteString(eraseBelow)
	}
	for _, l := range print {
		b.WriteString(l)
		b.WriteString(resetStyles + "\r\n")
	}
	b.WriteString(syncEnd)
	s.lines, s.widths, s.up = nil, nil, 0
	s.flush()
}

// Pause erases the live region and draws nothing until Resume: the terminal belongs to another
// program (the shell after Ctrl+Z, an external editor).
func (s *Writer) Pause() {
	s.Release(nil)
	s.paused = true
}

// Paused reports whether another program has the terminal (Pause).
func (s *Writer) Paused() bool { return s.paused }

// Resume draws again, from the cursor's current row (from a cleared screen on the alternate screen).
func (s *Writer) Resume() {
	s.paused = false
	s.full = true
	s.clear = s.alt
}

// SetAlternate switches between drawing inline (false) and filling the alternate screen (true); the
// terminal has been switched (Terminal.SetAlternate). The next frame starts from a cleared screen, or,
// back inline, at the cursor.
func (s *Writer) SetAlternate(alt bool) {
	s.alt = alt
	s.lines, s.widths, s.up = nil, nil, 0
	s.clear = alt
}

// WriteSequence sends raw control sequences (cursor visibility, bracketed paste, clipboard, title).
func (s *Writer) WriteSequence(seq string) {
	if s.err != nil {
		return
	}
	s.buf.Reset()
	s.buf.WriteString(seq)
	s.flush()
}
