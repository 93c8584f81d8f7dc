// Package screentest is a small terminal emulator for tests of what the screen writer (and the UI
// drawing through it) puts on a terminal, as httptest is a server for tests of HTTP clients.
package screentest

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
)

// VTerm is a small terminal emulator for tests: a grid of rows whose top part has scrolled into the
// scrollback, soft wrapping at the right margin, and re-wrapping on resize as tmux and most modern
// terminals do. It understands the sequences the screen package writes (cursor up/down, CR, LF,
// erase in line and display, clearing the screen and the scrollback, cursor position, SGR and private modes, which it ignores) and records anything else
// (Unknown).
type VTerm struct {
	mu          sync.Mutex
	width       int
	height      int
	rows        []vrow // every row, scrollback first; the screen is the last height rows of the window
	top         int    // index of the screen's first row in rows
	cy, cx      int    // cursor: row index in rows, column
	wrapPending bool
	unknown     []string
	osc         []string // the operating system commands received (title, clipboard), without ESC ] and ST
	apc         []string // the application program commands received (kitty graphics), without ESC _ and ST
	pend        []byte   // an incomplete escape sequence from the last write
	changed     chan struct{}
}

type vrow struct {
	cells   []rune // content; zero runes are blank cells
	wrapped bool   // this row continues on the next one (soft wrap)
}

// New returns an empty terminal of width x height cells.
func New(width, height int) *VTerm {
	t := &VTerm{width: width, height: height, changed: make(chan struct{}, 1)}
	t.rows = make([]vrow, height)
	return t
}

// Write is what the program writes to the terminal.
func (t *VTerm) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer func() {
		select {
		case t.changed <- struct{}{}:
		default:
		}
	}()
	data := append(t.pend, p...)
	t.pend = nil
	s := string(data)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			n, ok := t.escape(s[i:])
			if !ok {
				t.pend = []byte(s[i:])
				return len(p), nil
			}
			i += n
		case c == '\r':
			t.cx, t.wrapPending = 0, false
			i++
		case c == '\n':
			t.lineFeed()
			t.wrapPending = false
			i++
		case c < 0x20:
			i++
		default:
			r, size := decodeRune(s[i:])
			t.put(r)
			i += size
		}
	}
	return len(p), nil
}

func decodeRune(s string) (rune, int) {
	for i, r := range s {
		if i == 0 {
			return r, len(string(r))
		}
	}
	return 0, 1
}

func (t *VTerm) lineFeed() {
	if t.cy-t.top == t.height-1 {
		t.rows = append(t.rows, vrow{})
		t.top++
	}
	t.cy++
}

func (t *VTerm) put(r rune) {
	w := runewidth.RuneWidth(r)
	if w == 0 {
		return
	}
	if t.wrapPending || t.cx+w > t.width {
		t.rows[t.cy].wrapped = true
		t.lineFeed()
		t.cx, t.wrapPending = 0, false
	}
	row := &t.rows[t.cy]
	for len(row.cells) < t.cx+w {
		row.cells = append(row.cells, 0)
	}
	row.cells[t.cx] = r
	if w == 2 {
		row.cells[t.cx+1] = 0
	}
	t.cx += w
	if t.cx >= t.width {
		t.cx = t.width - 1
		t.wrapPending = true
	}
}

// escape handles one escape sequence; ok is false when s holds only part of one.
func (t *VTerm) escape(s string) (int, bool) {
	if len(s) < 2 {
		return 0, false
	}
	switch s[1] {
	case '[':
		j := 2
		for j < len(s) && (s[j] >= 0x30 && s[j] <= 0x3f) {
			j++
		}
		if j >= len(s) {
			return 0, false
		}
		params, final := s[2:j], s[j]
		t.csi(params, final)
		return j + 1, true
	case ']':
		// OSC: up to BEL or ST.
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 {
				t.osc = append(t.osc, s[2:j])
				return j + 1, true
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				t.osc = append(t.osc, s[2:j])
				return j + 2, true
			}
		}
		return 0, false
	}
	if s[1] == '_' {
		// APC: up to ST (kitty graphics).
		for j := 2; j+1 < len(s); j++ {
			if s[j] == 0x1b && s[j+1] == '\\' {
				t.apc = append(t.apc, s[2:j])
				return j + 2, true
			}
		}
		return 0, false
	}
	t.unknown = append(t.unknown, strconv.Quote(s[:2]))
	return 2, true
}

func (t *VTerm) csi(params string, final byte) {
	n := 1
	if v, err := strconv.Atoi(params); err == nil && v > 0 {
		n = v
	}
	switch final {
	case 'A':
		t.cy = max(t.top, t.cy-n)
		t.wrapPending = false
	case 'B':
		t.cy = min(t.top+t.height-1, t.cy+n)
		t.wrapPending = false
	case 'K':
		row := &t.rows[t.cy]
		if t.cx < len(row.cells) {
			row.cells = row.cells[:t.cx]
		}
		row.wrapped = false
	case 'J':
		if params == "" || params == "0" {
			row := &t.rows[t.cy]
			if t.cx < len(row.cells) {
				row.cells = row.cells[:t.cx]
			}
			row.wrapped = false
			for i := t.cy + 1; i < len(t.rows); i++ {
				t.rows[i] = vrow{}
			}
		} else if params == "2" {
			for i := t.top; i < len(t.rows); i++ {
				t.rows[i] = vrow{}
			}
		} else if params == "3" {
			t.rows = append([]vrow(nil), t.rows[t.top:]...)
			t.cy -= t.top
			t.top = 0
		} else {
			t.unknown = append(t.unknown, "CSI "+params+"J")
		}
	case 'H':
		row, col := 1, 1
		if params != "" {
			r, c, _ := strings.Cut(params, ";")
			if v, err := strconv.Atoi(r); err == nil && v > 0 {
				row = v
			}
			if v, err := strconv.Atoi(c); err == nil && v > 0 {
				col = v
			}
		}
		t.cy = t.top + min(row, t.height) - 1
		t.cx = min(col, t.width) - 1
		t.wrapPending = false
	case 'm', 'h', 'l':
		// styles and modes
	default:
		t.unknown = append(t.unknown, "CSI "+params+string(final))
	}
}

// Resize changes the size; with reflow the content is re-wrapped to the new width, the cursor
// staying on the same character.
func (t *VTerm) Resize(width, height int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Gather logical lines and the cursor's place in them.
	type logical struct{ cells []rune }
	var lines []logical
	curLine, curOff := 0, 0
	last := len(t.rows) - 1
	for last > t.cy && len(t.rows[last].cells) == 0 {
		last--
	}
	var cur []rune
	for i := 0; i <= last; i++ {
		r := t.rows[i]
		if i == t.cy {
			curLine, curOff = len(lines), len(cur)+t.cx
		}
		cells := r.cells
		if r.wrapped {
			for len(cells) < t.width {
				cells = append(cells, 0)
			}
		}
		cur = append(cur, cells...)
		if !r.wrapped {
			lines = append(lines, logical{cur})
			cur = nil
		}
	}
	if cur != nil {
		lines = append(lines, logical{cur})
	}
	var rows []vrow
	cy, cx := 0, 0
	for li, l := range lines {
		cells := l.cells
		for len(cells) > 0 && cells[len(cells)-1] == 0 {
			cells = cells[:len(cells)-1]
		}
		start := len(rows)
		for len(cells) > width {
			rows = append(rows, vrow{cells: append([]rune(nil), cells[:width]...), wrapped: true})
			cells = cells[width:]
		}
		rows = append(rows, vrow{cells: append([]rune(nil), cells...)})
		if li == curLine {
			cy, cx = start+curOff/width, curOff%width
		}
	}
	t.width, t.height = width, height
	for len(rows) < height {
		rows = append(rows, vrow{})
	}
	t.rows = rows
	t.cy, t.cx = cy, cx
	t.wrapPending = false
	end := max(cy, 0)
	for i := len(rows) - 1; i > cy; i-- {
		if len(rows[i].cells) > 0 {
			end = i
			break
		}
	}
	t.top = max(0, end-height+1)
	for len(t.rows) < t.top+height {
		t.rows = append(t.rows, vrow{})
	}
}

func (r vrow) text() string {
	var b strings.Builder
	for _, c := range r.cells {
		if c == 0 {
			c = ' '
		}
		b.WriteRune(c)
	}
	return strings.TrimRight(b.String(), " ")
}

// ScreenLines is what the screen shows, trailing blanks trimmed.
func (t *VTerm) ScreenLines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for i := t.top; i < t.top+t.height && i < len(t.rows); i++ {
		out = append(out, t.rows[i].text())
	}
	return out
}

// AllLines is the scrollback and the screen, with soft-wrapped rows joined, trailing empty lines
// removed (what `tmux capture-pane -J -S -` gives).
func (t *VTerm) AllLines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	cur := ""
	for _, r := range t.rows {
		cur += r.text()
		if !r.wrapped {
			out = append(out, cur)
			cur = ""
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// WaitFor waits until cond holds for what get returns, checking again after every write; it fails
// the test after a deadline, showing the last content. The deadline is long (30 s) because only a
// failing test reaches it, and a 2-core machine running many test binaries can be that slow.
func (t *VTerm) WaitFor(tb testing.TB, what string, get func() string, cond func(string) bool) string {
	tb.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		s := get()
		if cond(s) {
			return s
		}
		select {
		case <-t.changed:
		case <-deadline.C:
			tb.Fatalf("timed out waiting for %s; terminal shows:\n%s", what, s)
		}
	}
}

// OSC lists the operating system commands received so far (the text between ESC ] and BEL or ST).
func (t *VTerm) OSC() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.osc...)
}

// APC lists the application program commands received so far (the text between ESC _ and ST).
func (t *VTerm) APC() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.apc...)
}

// Unknown lists the escape sequences the terminal did not understand.
func (t *VTerm) Unknown() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.unknown...)
}

// Cursor is the cursor's position: its row on the screen (0 is the top row) and its column.
func (t *VTerm) Cursor() (row, col int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cy - t.top, t.cx
}
