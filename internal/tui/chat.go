package tui

import (
	"time"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/render"
)

// chatKind says what a chat block is.
type chatKind int

const (
	chatLines     chatKind = iota // rendered lines, final (a prompt, a notice, a finished block)
	chatStatus                    // a dim status line: replaced by the next one while nothing follows it
	chatAssistant                 // a streaming assistant message
	chatTool                      // a tool call, final once its result arrived
	chatBash                      // a `!` command the user ran
	chatPending                   // a conversation being rendered in the background (historyMsg)
)

// chatItem is one block of the conversation. Blocks live in the chat until they are final and
// printed (regular mode) or settled (fullscreen), then in the transcript (model.done), where they
// are rendered again whenever the width or the Ctrl+O / Ctrl+T state changes. Blocks are printed in
// order: a block that is not final holds back everything after it (a tool that is still running
// keeps the next tool's finished block in the live region).
type chatItem struct {
	kind chatKind
	// draw renders a chatLines, chatStatus or chatPending block at a width, with the toggles as they
	// are when it is called.
	draw func(width int) []string
	// prompt marks a user's prompt (fullscreen jumps from one to the next).
	prompt bool
	// msg is a message of a conversation printed as a whole (a resumed session), drawn with the
	// results of its tool calls.
	msg     provider.Message
	results map[string]*provider.ToolResultMessage
	// entryID and entryTime are msg's session entry (a resumed message), for markdown transformers;
	// restored says msg was read from the session (a live message has no entry for them).
	entryID, entryTime string
	restored           bool

	stream *render.AssistantStream // chatAssistant

	tool      render.ToolView // chatTool
	toolStart time.Time
	extTool   *extToolDraw // chatTool drawn by an extension (exttool.go); nil: pi-go draws it
	final     bool         // chatTool, chatBash: the result is in

	bash   render.BashView // chatBash
	bashID int

	// cache is the finished block rendered at cacheWidth for layout generation cacheGen.
	cache      []string
	cacheWidth int
	cacheGen   int
	// mdxWait: cache shows a markdown transformer's stand-in (mdx.go); the block is not printed.
	mdxWait bool
}

// addBlock appends a final block drawn by draw (called again when the width or a toggle changes).
func (m *model) addBlock(draw func(width int) []string) *chatItem {
	it := &chatItem{kind: chatLines, draw: draw}
	m.chat = append(m.chat, it)
	return it
}

// addFixed appends a final block of lines that do not depend on the width.
func (m *model) addFixed(lines []string) {
	if len(lines) == 0 {
		return
	}
	m.addBlock(func(w int) []string { return indentBlock(lines, w) })
}

// addStatus shows a dim status line. pi replaces a status line directly followed by another one,
// so a run of "Model: ..." notices from cycling leaves only the last.
func (m *model) addStatus(msg string) {
	r := m.r
	draw := func(w int) []string { return r.StatusNotice(msg, w) }
	if n := len(m.chat); n > 0 && m.chat[n-1].kind == chatStatus {
		m.chat[n-1].draw, m.chat[n-1].cache = draw, nil
	} else {
		m.chat = append(m.chat, &chatItem{kind: chatStatus, draw: draw})
	}
}

func (m *model) addError(msg string) {
	r := m.r
	m.addBlock(func(w int) []string { return r.ErrorNotice(msg, w) })
}

func (m *model) addWarning(msg string) {
	r := m.r
	m.addBlock(func(w int) []string { return r.WarningNotice(msg, w) })
}

// blockLines renders a final block (cached per width and layout generation).
func (m *model) blockLines(it *chatItem, width int) []string {
	if it.cache != nil && it.cacheWidth == width && it.cacheGen == m.layoutGen {
		return it.cache
	}
	misses := m.mdxMisses()
	var lines []string
	switch it.kind {
	case chatAssistant:
		it.stream.Unflush(m.hideThinking) // a printed block: its flush cursor is no longer needed
		lines = it.stream.Lines(width)
	case chatTool:
		v := it.tool
		v.Expanded = m.expandTools
		var ok bool
		if lines, ok = m.extToolLines(it, width); !ok {
			lines = m.r.Tool(v, width)
		}
		if v.Result != nil {
			lines = m.withImages(lines, v.Result.Content, width)
		}
	case chatBash:
		v := it.bash
		v.Expanded = m.expandTools
		lines = m.r.BashExecution(v, width)
	default:
		if it.msg != nil {
			o := m.transcriptOptions()
			o.MessageID, o.Timestamp = it.entryID, it.entryTime
			lines = m.r.Message(it.msg, it.results, o, width)
		} else {
			lines = it.draw(width)
		}
	}
	if lines == nil {
		lines = []string{}
	}
	it.cache, it.cacheWidth, it.cacheGen = lines, width, m.layoutGen
	it.mdxWait = m.mdxMisses() != misses
	return lines
}

// transcriptOptions are the toggles as they stand, and the images drawn inline as the terminal and
// the settings allow (the same for a resumed conversation as for a live one).
func (m *model) transcriptOptions() render.TranscriptOptions {
	return render.TranscriptOptions{HideThinking: m.hideThinking, Expand: m.expandTools, ThinkingLabel: m.ext.thinkingLabel,
		Images: m.images().drawer()}
}

// flushChat returns the lines that became final, in order, and moves the blocks printed
// completely into the transcript. A status line at the very end stays live: the next status line
// may replace it.
func (m *model) flushChat(width int) []string {
	var out []string
	i := 0
scan:
	for ; i < len(m.chat); i++ {
		it := m.chat[i]
		switch it.kind {
		case chatLines:
			lines := m.blockLines(it, width)
			if it.mdxWait {
				it.cache = nil // drawn again (and printed) once the transformer's answer is in
				break scan
			}
			out = append(out, lines...)
		case chatStatus:
			if i == len(m.chat)-1 {
				break scan
			}
			out = append(out, m.blockLines(it, width)...)
		case chatAssistant:
			out = append(out, it.stream.Flush(width)...)
			if !it.stream.Done() || it.stream.ErrorHeld() || it.stream.Transforming() {
				break scan
			}
		case chatTool, chatBash:
			if !it.final || it.extToolWaiting() {
				break scan
			}
			out = append(out, m.blockLines(it, width)...)
		case chatPending:
			break scan
		}
	}
	if i > 0 {
		m.done = append(m.done, m.chat[:i]...)
		m.chat = append(m.chat[:0:0], m.chat[i:]...)
	}
	return out
}

// liveChat renders the last n lines of the blocks that are not final yet, and counts all their
// lines: the live region shows no more than its bottom rows, and a streaming answer held back for a
// markdown transformer (or a transcript waiting for its transforms) may be much longer.
func (m *model) liveChat(width int, now time.Time, n int) (tail []string, total int) {
	var segs [][]string // from the bottom up
	need := n
	for i := len(m.chat) - 1; i >= 0; i-- {
		it := m.chat[i]
		var lines []string
		if it.kind == chatAssistant {
			var count int
			lines, count = it.stream.LiveTail(width, need)
			total += count
		} else {
			lines = m.itemLines(it, width, now)
			total += len(lines)
			lines = lines[len(lines)-min(need, len(lines)):]
		}
		need -= len(lines)
		if len(lines) > 0 {
			segs = append(segs, lines)
		}
	}
	tail = make([]string, 0, n-need)
	for i := len(segs) - 1; i >= 0; i-- {
		tail = append(tail, segs[i]...)
	}
	return tail, total
}

// itemLines renders one block as it stands.
func (m *model) itemLines(it *chatItem, width int, now time.Time) []string {
	switch it.kind {
	case chatAssistant:
		return it.stream.Live(width)
	case chatTool:
		if lines, ok := m.extToolLines(it, width); ok {
			return lines
		}
		v := it.tool
		v.Expanded = m.expandTools
		if !it.final && v.Status == render.ToolRunning && v.Name == "bash" && !it.toolStart.IsZero() {
			v.Elapsed = now.Sub(it.toolStart)
		}
		return m.r.Tool(v, width)
	case chatBash:
		v := it.bash
		v.Expanded = m.expandTools
		if v.Running {
			v.Spinner = m.spin.View()
		}
		return m.r.BashExecution(v, width)
	default:
		return m.blockLines(it, width)
	}
}

// animating reports whether something on screen changes with time (a spinner, a countdown).
func (m *model) animating() bool {
	if m.run.active || m.run.retrying || m.run.compacting || m.run.prompting || m.bashRunning != nil || m.nav != nil {
		return true
	}
	for _, it := range m.chat {
		if it.kind == chatTool && !it.final && it.tool.Status == render.ToolRunning && it.tool.Name == "bash" {
			return true
		}
	}
	return false
}
