package tui

import (
	"strings"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-go/pi-go/internal/tui/keymap"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Fullscreen mode (tuiMode "fullscreen", pi 1.x's default) draws on the alternate screen: the
// conversation in a viewport above the editor, scrolled by keys and the mouse wheel, searched,
// selected with the mouse and copied (OSC 52). The viewport shows blocks of the same list regular
// mode prints (the transcript model.done, then the chat), and renders only the blocks it shows (each
// cached per width), so a frame costs the same at message 10 and at message 10,000.

// wheelLines is how far a wheel step scrolls with fullscreenWheelScrollLines "auto" (pi speeds up
// fast spins instead; a fixed step is what pi-go does).
const wheelLines = 3

// viewport is where the fullscreen transcript is scrolled to, and its search and selection.
type viewport struct {
	// follow: the view stays at the end and follows new output. Otherwise top is the block shown at
	// the top and skip how many of its lines are above the window.
	follow    bool
	top, skip int
	// rows is what the last frame showed: the block and line of each viewport row (-1: blank).
	rows []viewRow
	// height is the viewport's last height.
	height int

	search *transcriptSearch
	sel    *selection
	// flash is a short notice shown under the viewport until the next key (a copy's confirmation,
	// which the transcript would show out of view while it is scrolled back).
	flash string
	// blocks is how many blocks the transcript had when drawn last (for the scrollbar).
	blocks int
	// frame holds, while a frame is drawn, the lines of the blocks still in the chat (a streaming
	// answer is rendered once per frame, not once per use).
	frame map[int][]string
}

type viewRow struct{ block, line int }

// pos is a place in the transcript: a block, a line of it and a column.
type pos struct{ block, line, col int }

func (a pos) before(b pos) bool {
	if a.block != b.block {
		return a.block < b.block
	}
	if a.line != b.line {
		return a.line < b.line
	}
	return a.col < b.col
}

// selection is a range selected with the mouse, from anchor to head (either order).
type selection struct {
	anchor, head pos
	dragging     bool
}

func (s *selection) ordered() (pos, pos) {
	if s.head.before(s.anchor) {
		return s.head, s.anchor
	}
	return s.anchor, s.head
}

// covers reports whether the selection takes in line of block.
func (s *selection) covers(block, line int) bool {
	from, to := s.ordered()
	at := pos{block, line, 0}
	return !at.before(pos{from.block, from.line, 0}) && !(pos{to.block, to.line, 0}).before(at)
}

// span is the columns [a, b) the selection covers of a line it covers, n columns long (a == b:
// none of them). Columns are terminal cells, as the mouse reports them: a wide character (CJK, most
// emoji) takes two.
func (s *selection) span(block, line, n int) (a, b int) {
	from, to := s.ordered()
	a, b = 0, n
	if block == from.block && line == from.line {
		a = min(from.col, n)
	}
	if block == to.block && line == to.line {
		b = min(to.col+1, n)
	}
	return min(a, b), b
}

// cellBytes is the bytes [start, end) of plain that the cells [a, b) show: every character of which
// a cell is in the range, so a wide character half in it is taken whole.
func cellBytes(plain string, a, b int) (start, end int) {
	start, end = len(plain), len(plain)
	cell := 0
	for i := 0; i < len(plain); {
		cluster, w := ansi.FirstGraphemeCluster(plain[i:], ansi.GraphemeWidth)
		if len(cluster) == 0 {
			break
		}
		next := cell + max(w, 0)
		if start == len(plain) && (next > a || w == 0 && cell >= a) {
			start = i
		}
		if cell >= b {
			end = i
			break
		}
		cell = next
		i += len(cluster)
	}
	return min(start, end), end
}

// transcriptSearch is the transcript search bar: the query, its matches and the current one.
type transcriptSearch struct {
	query   string
	matches []pos // block, line and column of each match, in transcript order
	cur     int   // index into matches
}

// fsCount is the number of blocks of the fullscreen transcript.
func (m *model) fsCount() int { return len(m.done) + len(m.chat) }

// fsLines renders block i of the fullscreen transcript: a finished block from its cache, a block
// still in the chat as it stands (a streaming answer whole, not only its unprinted part).
func (m *model) fsLines(i int, now time.Time) []string {
	if i < len(m.done) {
		return m.blockLines(m.done[i], m.width)
	}
	if lines, ok := m.vp.frame[i]; ok {
		return lines
	}
	it := m.chat[i-len(m.done)]
	var lines []string
	if it.kind == chatAssistant {
		lines = it.stream.Lines(m.width)
	} else {
		lines = m.itemLines(it, m.width, now)
	}
	if m.vp.frame != nil {
		m.vp.frame[i] = lines
	}
	return lines
}

// drawFullscreen draws the whole alternate screen: the viewport over the transcript, then the
// bottom part (status, editor, footer) at the bottom of the screen.
func (m *model) drawFullscreen(now time.Time) {
	w := m.width
	m.flushChat(w) // finished blocks move into the transcript; nothing is printed
	bottom := m.bottomLines(w, now)
	if len(bottom) > m.height-1 {
		bottom = bottom[len(bottom)-(m.height-1):]
	}
	vh := max(m.height-len(bottom), 1)
	m.vp.frame = map[int][]string{}
	rows := m.viewportLines(vh, now)
	m.vp.frame = nil
	m.scr.Draw(nil, append(rows, bottom...))
}

// viewportLines lays out the viewport of vh rows and renders them with the search matches, the
// selection and the scrollbar.
func (m *model) viewportLines(vh int, now time.Time) []string {
	vp := &m.vp
	vp.height = vh
	n := m.fsCount()
	vp.blocks = n
	vp.rows = vp.rows[:0]
	var lines []string
	if !vp.follow {
		// Forward from the anchor; a window that reaches the end follows it.
		b, skip := vp.top, vp.skip
		for b < n && len(lines) < vh {
			bl := m.fsLines(b, now)
			l := skip
			for ; l < len(bl) && len(lines) < vh; l++ {
				lines = append(lines, bl[l])
				vp.rows = append(vp.rows, viewRow{b, l})
			}
			if l < len(bl) {
				break // the window is full within this block
			}
			skip = 0
			b++
		}
		if b >= n {
			// The window shows the end of the transcript: it follows new output from here.
			vp.follow = true
		}
	}
	if vp.follow {
		lines, vp.rows = lines[:0], vp.rows[:0]
		// Backward from the end until the window is full.
		var rev []string
		var revRows []viewRow
		for b := n - 1; b >= 0 && len(rev) < vh; b-- {
			bl := m.fsLines(b, now)
			for l := len(bl) - 1; l >= 0 && len(rev) < vh; l-- {
				rev = append(rev, bl[l])
				revRows = append(revRows, viewRow{b, l})
			}
		}
		for i := len(rev) - 1; i >= 0; i-- {
			lines = append(lines, rev[i])
			vp.rows = append(vp.rows, revRows[i])
		}
		vp.top, vp.skip = 0, 0
		if len(vp.rows) > 0 {
			vp.top, vp.skip = vp.rows[0].block, vp.rows[0].line
		}
	}
	for len(lines) < vh {
		lines = append(lines, "")
		vp.rows = append(vp.rows, viewRow{-1, -1})
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = m.decorateRow(l, vp.rows[i])
	}
	m.drawScrollbar(out)
	return out
}

// decorateRow marks the search matches and the selection on one viewport row.
func (m *model) decorateRow(line string, r viewRow) string {
	if r.block < 0 {
		return line
	}
	th := m.r.Theme()
	if s := m.vp.sel; s != nil && s.covers(r.block, r.line) {
		plain := ansi.Strip(line)
		if a, b := s.span(r.block, r.line, ansi.StringWidth(plain)); a < b {
			a, b = cellBytes(plain, a, b)
			return plain[:a] + th.Inverse(plain[a:b]) + plain[b:]
		}
		return line
	}
	if s := m.vp.search; s != nil && s.query != "" {
		plain := ansi.Strip(line)
		spans := findMatches(plain, s.query)
		if len(spans) == 0 {
			return line
		}
		var b strings.Builder
		prev := 0
		for _, sp := range spans {
			b.WriteString(plain[prev:sp.start])
			match := plain[sp.start:sp.end]
			if len(s.matches) > 0 && s.matches[s.cur] == (pos{r.block, r.line, sp.start}) {
				b.WriteString(th.Inverse(th.Bold(match)))
			} else {
				b.WriteString(th.Bold(th.Fg(theme.Warning, match)))
			}
			prev = sp.end
		}
		b.WriteString(plain[prev:])
		return b.String()
	}
	return line
}

// drawScrollbar puts the scrollbar into the last column (fullscreenScrollbar: "auto" shows it when
// the transcript does not fit, "always", "hidden"). The blocks out of view are not rendered, so the
// thumb is placed by block, and sized by the share of the shown blocks' lines in view.
func (m *model) drawScrollbar(rows []string) {
	mode := m.settings().FullscreenScrollbar
	vp := &m.vp
	if mode == "hidden" || len(rows) < 2 || m.width < 10 {
		return
	}
	first, last, used, lastLine := -1, -1, 0, -1
	for _, r := range vp.rows {
		if r.block >= 0 {
			if first < 0 {
				first = r.block
			}
			last, lastLine = r.block, r.line
			used++
		}
	}
	n := vp.blocks
	if first < 0 {
		if mode != "always" {
			return
		}
		first, last = 0, 0
	}
	now := time.Now()
	visLines := 0
	for b := first; b <= last && b < n; b++ {
		visLines += len(m.fsLines(b, now))
	}
	fits := n == 0 || first == 0 && vp.rows[0].line == 0 && last == n-1 && lastLine == len(m.fsLines(last, now))-1
	if mode != "always" && fits {
		return
	}
	h := len(rows)
	shown := float64(used) / float64(max(visLines, 1)) * float64(last-first+1) / float64(max(n, 1))
	thumb := min(max(1, int(float64(h)*shown+0.5)), h)
	at := float64(first) / float64(max(n, 1))
	if fl := len(m.fsLines(first, now)); fl > 0 && len(vp.rows) > 0 {
		at += float64(max(vp.rows[0].line, 0)) / float64(fl) / float64(max(n, 1))
	}
	start := min(int(at*float64(h)+0.5), h-thumb)
	if vp.follow {
		start = h - thumb
	}
	th := m.r.Theme()
	for i := range rows {
		bar := th.Fg(theme.BorderMuted, "│")
		if i >= start && i < start+thumb {
			bar = th.Fg(theme.Accent, "┃")
		}
		row := ansi.Truncate(rows[i], m.width-1, "")
		rows[i] = row + strings.Repeat(" ", max(m.width-1-ansi.StringWidth(row), 0)) + bar
	}
}

// fullscreenBars is the search bar while a transcript search is open.
func (m *model) fullscreenBars(w int) []string {
	if !m.fullscreen {
		return nil
	}
	th := m.r.Theme()
	var out []string
	if m.vp.flash != "" {
		out = append(out, truncate(" "+th.Fg(theme.Accent, m.vp.flash), w))
	}
	s := m.vp.search
	if s == nil {
		return out
	}
	count := "no matches"
	if len(s.matches) > 0 {
		count = itoa(s.cur+1) + "/" + itoa(len(s.matches))
	} else if s.query == "" {
		count = "type to search"
	}
	line := " " + th.Fg(theme.Accent, "Search:") + " " + s.query + th.Inverse(" ") + "  " + th.Fg(theme.Dim, count+" · enter next · shift+enter previous · esc close")
	return append(out, truncate(line, w))
}

// ---- scrolling ----

// blockLen is the number of lines of block i.
func (m *model) blockLen(i int) int { return len(m.fsLines(i, time.Now())) }

// scrollBy moves the viewport d lines (up when negative).
func (m *model) scrollBy(d int) {
	vp := &m.vp
	n := m.fsCount()
	if n == 0 {
		return
	}
	if vp.follow {
		if d >= 0 {
			return
		}
		vp.follow = false // from the anchor of the last frame
	}
	vp.top = min(vp.top, n-1)
	vp.skip += d
	for vp.skip < 0 {
		if vp.top == 0 {
			vp.skip = 0
			break
		}
		vp.top--
		vp.skip += m.blockLen(vp.top)
	}
	for vp.top < n && vp.skip > 0 && vp.skip >= m.blockLen(vp.top) {
		if vp.top == n-1 {
			vp.follow = true
			return
		}
		vp.skip -= m.blockLen(vp.top)
		vp.top++
	}
}

func (m *model) scrollTop() {
	m.vp.follow, m.vp.top, m.vp.skip = false, 0, 0
}

func (m *model) scrollBottom() { m.vp.follow = true }

// page is a page of the viewport (one line of context kept).
func (m *model) page() int { return max(m.vp.height-1, 1) }

// jumpPrompt scrolls to the previous (dir < 0) or next prompt above or below the top of the view.
func (m *model) jumpPrompt(dir int) {
	vp := &m.vp
	n := m.fsCount()
	if vp.follow && dir > 0 {
		return
	}
	isPrompt := func(i int) bool {
		if i < len(m.done) {
			return m.done[i].prompt
		}
		return m.chat[i-len(m.done)].prompt
	}
	if dir < 0 {
		// The prompt above the view's top (the one cut at the top counts).
		start := vp.top - 1
		if vp.skip > 0 && isPrompt(vp.top) {
			start = vp.top
		}
		for i := start; i >= 0; i-- {
			if isPrompt(i) {
				vp.follow, vp.top, vp.skip = false, i, 0
				return
			}
		}
		m.scrollTop()
		return
	}
	for i := vp.top + 1; i < n; i++ {
		if isPrompt(i) {
			vp.follow, vp.top, vp.skip = false, i, 0
			return
		}
	}
	m.scrollBottom()
}

// ---- search ----

func (m *model) openSearch() {
	if m.vp.search == nil {
		m.vp.search = &transcriptSearch{}
	}
}

func (m *model) closeSearch() { m.vp.search = nil }

// searchKey handles a key while the search bar is open; it reports whether it took the key.
func (m *model) searchKey(name string, k tea.KeyMsg) bool {
	s := m.vp.search
	km := m.keys
	switch {
	case km.Matches(k, "tui.altScreen.searchClose"):
		m.closeSearch()
	case km.Matches(k, "tui.altScreen.searchNext"):
		m.searchStep(1)
	case km.Matches(k, "tui.altScreen.searchPrevious"):
		m.searchStep(-1)
	case name == "backspace":
		if r := []rune(s.query); len(r) > 0 {
			s.query = string(r[:len(r)-1])
			m.runSearch()
		}
	default:
		if len(k.Runes) == 0 || keymap.Synthetic(k) || strings.HasPrefix(name, "ctrl+") || strings.HasPrefix(name, "alt+") {
			return false
		}
		s.query += string(k.Runes)
		m.runSearch()
	}
	return true
}

// runSearch finds every match of the query in the rendered transcript (each block rendered once
// per width and cached) and shows the newest.
func (m *model) runSearch() {
	s := m.vp.search
	s.matches, s.cur = nil, 0
	if s.query == "" {
		return
	}
	now := time.Now()
	for b := 0; b < m.fsCount(); b++ {
		for l, line := range m.fsLines(b, now) {
			for _, sp := range findMatches(ansi.Strip(line), s.query) {
				s.matches = append(s.matches, pos{b, l, sp.start})
			}
		}
	}
	if len(s.matches) > 0 {
		s.cur = len(s.matches) - 1
		m.showMatch()
	}
}

// matchSpan is one match of the search in a line: its bytes [start, end) in the plain line.
type matchSpan struct{ start, end int }

// findMatches is where query occurs in plain, ignoring case, in order and not overlapping. The
// offsets are plain's own: a letter's lower case may take more or fewer bytes than the letter
// (Ⱥ, K), and invalid bytes become U+FFFD, so offsets into the lower-cased line would not do.
func findMatches(plain, query string) []matchSpan {
	q := strings.ToLower(query)
	if q == "" || !strings.Contains(strings.ToLower(plain), q) {
		return nil
	}
	// Lower case as strings.ToLower writes it, with the byte of plain each of its bytes comes from.
	var lower strings.Builder
	from := make([]int, 0, len(plain)+1)
	for i, r := range plain {
		n, _ := lower.WriteRune(unicode.ToLower(r))
		for range n {
			from = append(from, i)
		}
	}
	from = append(from, len(plain))
	l := lower.String()
	var out []matchSpan
	for off := 0; ; {
		i := strings.Index(l[off:], q)
		if i < 0 {
			return out
		}
		start, end := off+i, off+i+len(q)
		out = append(out, matchSpan{from[start], from[end]})
		off = end
	}
}

// fullscreenRelaidOut follows a new layout of the transcript (another width, Ctrl+O or Ctrl+T):
// the search's matches are found again in the lines as they are now drawn, the current one staying
// the same match of its block, and a selection, whose columns belonged to the old lines, is dropped.
func (m *model) fullscreenRelaidOut() {
	m.vp.sel = nil
	s := m.vp.search
	if s == nil || s.query == "" {
		return
	}
	had := len(s.matches) > 0
	var block, nth int
	if had {
		cur := s.matches[s.cur]
		block = cur.block
		for _, p := range s.matches[:s.cur] {
			if p.block == block {
				nth++
			}
		}
	}
	m.runSearch()
	if !had || len(s.matches) == 0 {
		return
	}
	for i, p := range s.matches {
		if p.block == block {
			if nth == 0 {
				s.cur = i
				break
			}
			nth--
		}
	}
	m.showMatch()
}

// searchStep selects the next (1) or previous (-1) match, wrapping around.
func (m *model) searchStep(d int) {
	s := m.vp.search
	if len(s.matches) == 0 {
		return
	}
	s.cur = (s.cur + d + len(s.matches)) % len(s.matches)
	m.showMatch()
}

// showMatch scrolls the current match into view, a third of the way down.
func (m *model) showMatch() {
	s := m.vp.search
	p := s.matches[s.cur]
	m.vp.follow, m.vp.top, m.vp.skip = false, p.block, p.line
	m.scrollBy(-m.vp.height / 3)
}

// ---- mouse selection and copy ----

// rowPos is the transcript position under viewport row y, column x (ok false outside the text).
func (m *model) rowPos(x, y int) (pos, bool) {
	if y < 0 || y >= len(m.vp.rows) || m.vp.rows[y].block < 0 {
		return pos{}, false
	}
	r := m.vp.rows[y]
	return pos{r.block, r.line, max(x, 0)}, true
}

// selectedText is the plain text of the selection, one line per transcript line.
func (m *model) selectedText() string {
	s := m.vp.sel
	if s == nil {
		return ""
	}
	from, to := s.ordered()
	now := time.Now()
	var out []string
	for b := from.block; b <= to.block && b < m.fsCount(); b++ {
		lines := m.fsLines(b, now)
		for l := range lines {
			if !s.covers(b, l) {
				continue
			}
			plain := ansi.Strip(lines[l])
			var a, e int
			if ca, ce := s.span(b, l, ansi.StringWidth(plain)); ca < ce {
				a, e = cellBytes(plain, ca, ce)
			}
			out = append(out, strings.TrimRight(plain[a:e], " "))
		}
	}
	return strings.Join(out, "\n")
}

// copySelection puts the selection on the clipboard (OSC 52) and says so.
func (m *model) copySelection() bool {
	text := m.selectedText()
	if text == "" {
		return false
	}
	m.scr.WriteSequence(osc52(text))
	m.vp.flash = "Copied selection to clipboard"
	return true
}

// copyOnSelect is fullscreenCopyOnSelect (default true).
func (m *model) copyOnSelect() bool {
	if v := m.settings().FullscreenCopyOnSelect; v != nil {
		return *v
	}
	return true
}

// ---- input ----

// fullscreenKey handles pi 1.6's fullscreen keys (keybindings.md §Fullscreen, the keymap's
// tui.altScreen actions); it reports whether it took the key. A list that scrolls (completion) keeps
// the scrolling keys.
func (m *model) fullscreenKey(name string, k tea.KeyMsg) bool {
	m.vp.flash = ""
	if m.vp.search != nil && m.searchKey(name, k) {
		return true
	}
	km := m.keys
	switch {
	case km.Matches(k, "tui.altScreen.search"):
		m.openSearch()
	case km.Matches(k, "tui.altScreen.pageUp") && !m.comp.active():
		m.scrollBy(-m.page())
	case km.Matches(k, "tui.altScreen.pageDown") && !m.comp.active():
		m.scrollBy(m.page())
	case km.Matches(k, "tui.altScreen.halfPageUp") && !m.comp.active():
		m.scrollBy(-max(m.vp.height/2, 1))
	case km.Matches(k, "tui.altScreen.halfPageDown") && !m.comp.active():
		m.scrollBy(max(m.vp.height/2, 1))
	case km.Matches(k, "tui.altScreen.lineUp") && !m.comp.active():
		m.scrollBy(-1)
	case km.Matches(k, "tui.altScreen.lineDown") && !m.comp.active():
		m.scrollBy(1)
	case km.Matches(k, "tui.altScreen.previousPrompt"):
		m.jumpPrompt(-1)
	case km.Matches(k, "tui.altScreen.nextPrompt"):
		m.jumpPrompt(1)
	case km.Matches(k, "tui.altScreen.top"):
		m.scrollTop()
	case km.Matches(k, "tui.altScreen.bottom"):
		m.scrollBottom()
	case km.Matches(k, "app.message.copy"):
		if m.vp.sel != nil && !m.copyOnSelect() && m.copySelection() {
			return true
		}
		m.cmdCopy("")
	default:
		return false
	}
	return true
}

// handleMouse scrolls with the wheel and selects with the left button (fullscreen only: in regular
// mode the terminal keeps its own mouse handling).
func (m *model) handleMouse(ev tea.MouseMsg) {
	if !m.fullscreen {
		return
	}
	switch {
	case ev.Button == tea.MouseButtonWheelUp:
		m.scrollBy(-m.wheelStep(ev))
	case ev.Button == tea.MouseButtonWheelDown:
		m.scrollBy(m.wheelStep(ev))
	case ev.Button == tea.MouseButtonLeft && ev.Action == tea.MouseActionPress:
		if p, ok := m.rowPos(ev.X, ev.Y); ok {
			m.vp.sel = &selection{anchor: p, head: p, dragging: true}
		} else {
			m.vp.sel = nil
		}
	case ev.Action == tea.MouseActionMotion && m.vp.sel != nil && m.vp.sel.dragging:
		if ev.Y < 0 || ev.Y >= len(m.vp.rows) {
			return
		}
		if p, ok := m.rowPos(ev.X, ev.Y); ok {
			m.vp.sel.head = p
		}
	case ev.Action == tea.MouseActionRelease && m.vp.sel != nil && m.vp.sel.dragging:
		m.vp.sel.dragging = false
		if p, ok := m.rowPos(ev.X, ev.Y); ok {
			m.vp.sel.head = p
		}
		if m.vp.sel.anchor == m.vp.sel.head {
			m.vp.sel = nil // a click, not a selection
			return
		}
		if m.copyOnSelect() {
			m.copySelection()
		}
	}
}

// wheelStep is the lines one wheel event scrolls: fullscreenWheelScrollLines (1 to 100, or "auto"),
// five times as far with Alt.
func (m *model) wheelStep(ev tea.MouseMsg) int {
	n := wheelLines
	if v, ok := m.settings().FullscreenWheelScrollLines.Number(); ok {
		n = min(max(int(v), 1), 100)
	}
	if ev.Alt {
		return n * 5
	}
	return n
}
