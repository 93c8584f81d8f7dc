package render

import (
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// AssistantOptions say how an assistant message is shown.
type AssistantOptions struct {
	// HideThinking collapses thinking blocks to one line (pi's Ctrl+T).
	HideThinking bool
	// ThinkingLabel is the collapsed line; "" means "Thinking...".
	ThinkingLabel string
	// MessageID and Timestamp are the session entry the message was read from, for markdown
	// transformers (empty: a live message).
	MessageID, Timestamp string
}

// AssistantMessage renders a finished assistant message: text blocks as markdown, thinking blocks
// dimmed and italic (or collapsed), and, when the message has no tool calls, the abort or error
// line. Tool calls are not part of it: each is its own block (Tool). A message with nothing to show
// gives no lines.
func (r *Renderer) AssistantMessage(m *provider.AssistantMessage, o AssistantOptions, width int) []string {
	s := r.NewAssistantStream(o)
	s.xw = max(width-2, 1) // transformed once, at the width it is drawn at
	s.Finish(m)
	return s.Lines(width)
}

// AssistantStream renders an assistant message while it streams. Every content block before the last
// one counts as complete (pi's providers send thinking before text before tool calls); the last one
// is split into finished markdown blocks and a tail (MarkdownStream).
// Flush hands out, in order, the units (markdown blocks, a collapsed thinking line, the error line)
// that are final, for the scrollback; Live renders the rest for the live region. Flushed lines
// followed by Live's lines are always exactly what Lines shows.
//
// An AssistantStream belongs to one goroutine (the UI's).
type AssistantStream struct {
	r     *Renderer
	opts  AssistantOptions
	parts []*assistantPart
	done  bool
	// errLine is the abort/error text shown after the content ("" for none); set by Finish.
	errLine string

	// Flush cursor: parts before fp are completely flushed; within part fp, fu units are.
	fp, fu     int
	errFlushed bool
	// errHeld keeps the error line back (neither flushed nor shown) until the caller knows whether
	// it is wanted: a failed attempt that is retried is shown by the retry status instead.
	errHeld bool

	// With a markdown transformer for its parts (mdtransform.go): msg is the latest message, xw the
	// content width its parts were transformed for (0: not yet), xwait that some transform's answer
	// was not in (the parts show stand-ins and are transformed again at the next rendering).
	msg   *provider.AssistantMessage
	xw    int
	xwait bool
}

type assistantPart struct {
	ci        int // index of the content block
	thinking  bool
	collapsed bool // a thinking part shown as one line; fixed once anything of it was flushed
	stream    *MarkdownStream
	done      bool
	// xf: a transformer rewrites this part; it reaches the scrollback only as the final
	// transform of the finished message, since a streaming answer may differ from it anywhere.
	xf bool
	xj joiner // the transformed text, grown by the stand-in's new part

	// rows caches the part's finished units as render joins them (each unit's lines after its
	// separator), at rowsWidth and as collapsed or not; at[u] is where unit u starts in rows. A part
	// held back for its transformer stays live however long it grows: a frame must not render it
	// all again. Never handed out: callers get copies.
	rows          []string
	at            []int
	rowsWidth     int
	rowsCollapsed bool
}

// NewAssistantStream starts rendering a new assistant message.
func (r *Renderer) NewAssistantStream(o AssistantOptions) *AssistantStream {
	return &AssistantStream{r: r, opts: o}
}

// Update takes the partial message of a message_update event (or message_start).
func (a *AssistantStream) Update(m *provider.AssistantMessage) { a.update(m, false) }

// Finish takes the final message (message_end): every part is complete and the abort or error line,
// if any, is added.
func (a *AssistantStream) Finish(m *provider.AssistantMessage) { a.update(m, true) }

// Done reports whether Finish was called.
func (a *AssistantStream) Done() bool { return a.done }

// HoldError keeps the error line back until ReleaseError or DropError.
func (a *AssistantStream) HoldError() { a.errHeld = true }

// ErrorHeld reports whether the error line is kept back: the stream is not complete for the
// scrollback yet.
func (a *AssistantStream) ErrorHeld() bool { return a.errHeld }

// ReleaseError shows the error line after all.
func (a *AssistantStream) ReleaseError() { a.errHeld = false }

// DropError removes the error line for good.
func (a *AssistantStream) DropError() { a.errHeld, a.errLine = false, "" }

// SetHideThinking changes how thinking parts not flushed yet are shown.
func (a *AssistantStream) SetHideThinking(hide bool) {
	a.opts.HideThinking = hide
	for i, p := range a.parts {
		if p.thinking && !(i < a.fp || i == a.fp && a.fu > 0) {
			p.collapsed = hide
		}
	}
}

// Unflush forgets what Flush handed out, so that the next Flush starts again from the beginning
// (the caller printed the transcript again, at another width or with other toggles), and shows
// thinking parts collapsed or not as hide says.
func (a *AssistantStream) Unflush(hide bool) {
	a.fp, a.fu, a.errFlushed = 0, 0, false
	a.opts.HideThinking = hide
	for _, p := range a.parts {
		p.collapsed = p.thinking && hide
	}
}

func (a *AssistantStream) update(m *provider.AssistantMessage, final bool) {
	if a.done && !final {
		return
	}
	a.setParts(m, final)
	if final {
		a.done = true
		a.errLine = errorLine(m)
	}
}

// setParts makes the parts show m's text and thinking blocks (final: the complete message).
func (a *AssistantStream) setParts(m *provider.AssistantMessage, final bool) {
	a.msg, a.xwait = m, false
	last := lastVisible(m.Content)
	parts := make([]*assistantPart, 0, len(a.parts)+1)
	for ci, c := range m.Content {
		var text string
		switch c.Type {
		case provider.ContentText:
			text = c.Text
		case provider.ContentThinking:
			text = c.Thinking
		default:
			continue
		}
		isLast := !final && ci == last
		text = strings.TrimLeft(text, " \t\r\n")
		if strings.TrimSpace(text) == "" && !isLast {
			continue // pi shows only blocks with visible text
		}
		p := a.part(ci)
		if p == nil {
			thinking := c.Type == provider.ContentThinking
			md := a.r.text()
			if thinking {
				md = a.r.thinking()
			}
			p = &assistantPart{ci: ci, thinking: thinking, collapsed: thinking && a.opts.HideThinking, stream: md.NewStream()}
		}
		text = a.transformPart(p, text, final)
		p.stream.Set(text)
		if p.done && !p.stream.Done() {
			// A block that was complete grew again (providers may extend an earlier block); it was
			// not flushed completely, so it streams on.
			p.done = false
		}
		if !isLast && !p.done {
			p.done = true
			p.stream.Finish()
		}
		parts = append(parts, p)
	}
	// A part that was the last block while still empty and is now followed by another block is gone
	// from parts; it never had anything to flush, so the flush cursor stays valid.
	a.parts = parts
}

// transformPart is a part's text as the markdown transformer of its surface leaves it.
func (a *AssistantStream) transformPart(p *assistantPart, text string, final bool) string {
	typ := MDAssistant
	if p.thinking {
		typ = MDThinking
	}
	t := a.r.transformer(typ)
	p.xf = t != nil
	if t == nil {
		return text
	}
	if a.xw == 0 {
		a.xwait = true // the width is not known before the first rendering
		return text
	}
	out, rest, ok := transformSplit(t, text, MarkdownContext{MessageType: typ, Streaming: !final, Width: a.xw,
		MessageID: a.opts.MessageID, Timestamp: a.opts.Timestamp, Slot: p})
	a.xwait = a.xwait || !ok
	return p.xj.join(out, rest)
}

// retransform transforms the parts again when the width they were transformed for changed or an
// answer was missing; nothing without a transformer.
func (a *AssistantStream) retransform(width int) {
	if a.msg == nil || a.r.mdx.Load() == nil {
		return
	}
	cw := max(width-2, 1)
	if cw == a.xw && !a.xwait {
		return
	}
	a.xw = cw
	a.setParts(a.msg, a.done)
}

// Transforming reports whether the message waits for a markdown transformer's answer: its parts
// that are transformed are not final until it is in.
func (a *AssistantStream) Transforming() bool {
	if !a.xwait {
		return false
	}
	for _, p := range a.parts {
		if p.xf {
			return true
		}
	}
	return false
}

func (a *AssistantStream) part(ci int) *assistantPart {
	for _, p := range a.parts {
		if p.ci == ci {
			return p
		}
	}
	return nil
}

func lastVisible(content []provider.Content) int {
	for i := len(content) - 1; i >= 0; i-- {
		if content[i].Type == provider.ContentText || content[i].Type == provider.ContentThinking {
			return i
		}
	}
	return -1
}

// errorLine is what pi shows after a message that ended badly and has no tool calls (tool blocks show
// the error themselves).
func errorLine(m *provider.AssistantMessage) string {
	for _, c := range m.Content {
		if c.Type == provider.ContentToolCall {
			return ""
		}
	}
	switch m.StopReason {
	case provider.StopReasonAborted:
		if m.ErrorMessage != "" && m.ErrorMessage != "Request was aborted" {
			return m.ErrorMessage
		}
		return "Operation aborted"
	case provider.StopReasonError:
		msg := m.ErrorMessage
		if msg == "" {
			msg = "Unknown error"
		}
		return "Error: " + msg
	}
	return ""
}

// Flush returns the lines that became final since the last Flush and marks them flushed.
func (a *AssistantStream) Flush(width int) []string {
	a.retransform(width)
	var out []string
	for a.fp < len(a.parts) {
		p := a.parts[a.fp]
		if p.xf && (!a.done || a.xwait) {
			return out
		}
		a.syncRows(p, width)
		if a.fu < len(p.at) {
			out = append(out, p.rows[p.at[a.fu]:]...)
			a.fu = len(p.at)
		}
		if !p.done {
			return out
		}
		a.fp++
		a.fu = 0
	}
	if a.done && !a.errFlushed && !a.errHeld {
		a.errFlushed = true
		out = appendUnit(out, a.errLines(width), false)
	}
	return out
}

// Live renders everything Flush has not handed out yet.
func (a *AssistantStream) Live(width int) []string {
	a.retransform(width)
	return a.render(a.fp, a.fu, a.errFlushed || a.errHeld, width)
}

// LiveTail is the last n lines of Live and the number of lines of Live: what a live region that
// shows only its bottom rows needs, at a cost that does not grow with the message.
func (a *AssistantStream) LiveTail(width, n int) (tail []string, total int) {
	a.retransform(width)
	segs := a.segments(a.fp, a.fu, a.errFlushed || a.errHeld, width)
	for _, seg := range segs {
		total += len(seg)
	}
	tail = make([]string, 0, min(n, total))
	skip := total - min(n, total)
	for _, seg := range segs {
		if skip >= len(seg) {
			skip -= len(seg)
			continue
		}
		tail = append(tail, seg[skip:]...)
		skip = 0
	}
	return tail, total
}

// Lines renders the whole message, flushed or not.
func (a *AssistantStream) Lines(width int) []string {
	a.retransform(width)
	return a.render(0, 0, a.errHeld, width)
}

func (a *AssistantStream) render(fp, fu int, errFlushed bool, width int) []string {
	var out []string
	for _, seg := range a.segments(fp, fu, errFlushed, width) {
		out = append(out, seg...)
	}
	return out
}

// segments are the lines from unit fu of part fp on, in pieces: the parts' cached rows (shared:
// not to be modified) and the units not final yet.
func (a *AssistantStream) segments(fp, fu int, errFlushed bool, width int) [][]string {
	var segs [][]string
	for i := fp; i < len(a.parts); i++ {
		p := a.parts[i]
		from := 0
		if i == fp {
			from = fu
		}
		a.syncRows(p, width)
		if from < len(p.at) {
			segs = append(segs, p.rows[p.at[from]:])
			from = len(p.at)
		}
		for u := from; u < p.units(); u++ {
			if lines := appendUnit(nil, a.unitLines(p, u, width), p.glued(u)); len(lines) > 0 {
				segs = append(segs, lines)
			}
		}
	}
	if !errFlushed {
		if lines := appendUnit(nil, a.errLines(width), false); len(lines) > 0 {
			segs = append(segs, lines)
		}
	}
	return segs
}

// syncRows brings p's cached rows up to its finished units at width: the units the stream changed
// (a transformer's new answer), a new width or a collapsed state drop what follows them; the units
// finished since are added.
func (a *AssistantStream) syncRows(p *assistantPart, width int) {
	kept := p.stream.TakeKept()
	if p.rowsWidth != width || p.rowsCollapsed != p.collapsed {
		kept = 0
		p.rowsWidth, p.rowsCollapsed = width, p.collapsed
	}
	n := p.finalUnits()
	if !p.collapsed {
		kept = min(kept, n)
	} else {
		kept = n // a collapsed part's one line does not depend on its text
	}
	if kept < len(p.at) {
		p.rows, p.at = p.rows[:p.at[kept]], p.at[:kept]
	}
	for u := len(p.at); u < n; u++ {
		p.at = append(p.at, len(p.rows))
		p.rows = appendUnit(p.rows, a.unitLines(p, u, width), p.glued(u))
	}
}

// appendUnit adds a unit preceded by its empty separator line (pi's spacer before the message and
// between its parts), unless it is glued to the unit before (a chunk of a long code block).
func appendUnit(out, lines []string, glue bool) []string {
	if len(lines) == 0 {
		return out
	}
	if !glue {
		out = append(out, "")
	}
	return append(out, lines...)
}

// glued reports whether unit u follows the one before it without an empty line.
func (p *assistantPart) glued(u int) bool {
	if p.collapsed {
		return false
	}
	if u < p.stream.FinishedBlocks() {
		return p.stream.BlockGlued(u)
	}
	return p.stream.TailGlued()
}

// units is the number of units of the part: its markdown blocks plus the tail, or one collapsed line.
func (p *assistantPart) units() int {
	if p.collapsed {
		return 1
	}
	n := p.stream.FinishedBlocks()
	if !p.stream.Done() && strings.TrimSpace(p.stream.TailText()) != "" {
		n++
	}
	return n
}

// finalUnits is the number of leading units that will not change any more.
func (p *assistantPart) finalUnits() int {
	if p.collapsed {
		if p.done {
			return 1
		}
		return 0
	}
	return p.stream.FinishedBlocks()
}

func (a *AssistantStream) unitLines(p *assistantPart, u, width int) []string {
	cw := max(width-2, 1)
	if p.collapsed {
		label := a.opts.ThinkingLabel
		if label == "" {
			label = "Thinking..."
		}
		return padLeft([]string{a.r.th.Style(theme.ThinkingText, false, true, Truncate(label, cw, "..."))}, width)
	}
	var lines []string
	if u < p.stream.FinishedBlocks() {
		lines = p.stream.BlockLines(u, cw)
	} else {
		lines = p.stream.TailLines(cw)
	}
	return padLeft(lines, width)
}

func (a *AssistantStream) errLines(width int) []string {
	if a.errLine == "" {
		return nil
	}
	return padLeft(styleLines(a.r.th, theme.Error, wrap(oneLineKeepBreaks(a.errLine), max(width-2, 1))), width)
}

// styleLines colours each (plain) line with k.
func styleLines(th *theme.Theme, k theme.Key, lines []string) []string {
	for i, l := range lines {
		lines[i] = th.Fg(k, l)
	}
	return lines
}

// oneLineKeepBreaks cleans text for display but keeps its line breaks.
func oneLineKeepBreaks(s string) string { return strings.TrimRight(cleanOutput(s), "\n") }
