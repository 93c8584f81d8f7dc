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

// chatItem is one block of the conversation that has not been printed into the scrollback yet.
// Blocks are printed in order: a block that is not final holds back everything after it (a tool
// that is still running keeps the next tool's finished block in the live region).
type chatItem struct {
	kind  chatKind
	lines []string // chatLines, chatStatus

	stream *render.AssistantStream // chatAssistant

	tool      render.ToolView // chatTool
	toolStart time.Time
	final     bool // chatTool, chatBash: the result is in

	bash      render.BashView // chatBash
	bashID    int
	bashStart time.Time

	// compaction is the summary a chatLines block shows collapsed (Ctrl+O prints it in full).
	compaction *provider.CompactionSummaryMessage
}

// addLines appends final lines to the chat (a rendered block).
func (m *model) addLines(lines []string) {
	if len(lines) == 0 {
		return
	}
	m.chat = append(m.chat, &chatItem{kind: chatLines, lines: lines})
}

// addStatus shows a dim status line. pi replaces a status line directly followed by another one,
// so a run of "Model: ..." notices from cycling leaves only the last.
func (m *model) addStatus(msg string) {
	lines := m.r.StatusNotice(msg, m.width)
	if n := len(m.chat); n > 0 && m.chat[n-1].kind == chatStatus {
		m.chat[n-1].lines = lines
	} else {
		m.chat = append(m.chat, &chatItem{kind: chatStatus, lines: lines})
	}
}

func (m *model) addError(msg string)   { m.addLines(m.r.ErrorNotice(msg, m.width)) }
func (m *model) addWarning(msg string) { m.addLines(m.r.WarningNotice(msg, m.width)) }

// flushChat returns the lines that became final, in order, and drops the blocks that are printed
// completely. A status line at the very end stays live: the next status line may replace it.
func (m *model) flushChat(width int) []string {
	var out []string
	i := 0
scan:
	for ; i < len(m.chat); i++ {
		it := m.chat[i]
		switch it.kind {
		case chatLines:
			out = append(out, it.lines...)
			if it.compaction != nil {
				m.remember(it)
			}
		case chatStatus:
			if i == len(m.chat)-1 {
				break scan
			}
			out = append(out, it.lines...)
		case chatAssistant:
			out = append(out, it.stream.Flush(width)...)
			if !it.stream.Done() || it.stream.ErrorHeld() {
				break scan
			}
		case chatTool:
			if !it.final {
				break scan
			}
			out = append(out, m.r.Tool(it.tool, width)...)
			m.remember(it)
		case chatBash:
			if !it.final {
				break scan
			}
			out = append(out, m.r.BashExecution(it.bash, width)...)
			m.remember(it)
		case chatPending:
			break scan
		}
	}
	if i > 0 {
		m.chat = append(m.chat[:0:0], m.chat[i:]...)
	}
	return out
}

// liveChat renders the blocks that are not final yet.
func (m *model) liveChat(width int, now time.Time) []string {
	var out []string
	for _, it := range m.chat {
		out = append(out, m.itemLines(it, width, now)...)
	}
	return out
}

// itemLines renders one block as it stands.
func (m *model) itemLines(it *chatItem, width int, now time.Time) []string {
	switch it.kind {
	case chatAssistant:
		return it.stream.Live(width)
	case chatTool:
		v := it.tool
		if !it.final && v.Status == render.ToolRunning && v.Name == "bash" && !it.toolStart.IsZero() {
			v.Elapsed = now.Sub(it.toolStart)
		}
		return m.r.Tool(v, width)
	case chatBash:
		v := it.bash
		if v.Running {
			v.Elapsed = now.Sub(it.bashStart)
		}
		return m.r.BashExecution(v, width)
	default:
		return it.lines
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

// recentMax bounds how many printed tool and `!` blocks Ctrl+O can show again expanded.
const recentMax = 20

// remember keeps a printed tool, `!` or compaction block of the current turn, so that Ctrl+O can
// print it again in full: the scrollback cannot be re-rendered in place.
func (m *model) remember(it *chatItem) {
	m.recent = append(m.recent, it)
	if len(m.recent) > recentMax {
		m.recent = m.recent[len(m.recent)-recentMax:]
	}
}

// reprintExpanded prints again, expanded, the remembered blocks whose collapsed form hid something.
// It returns how many it printed.
func (m *model) reprintExpanded() int {
	n := 0
	for _, it := range m.recent {
		switch it.kind {
		case chatLines:
			if it.compaction != nil {
				m.addLines(m.r.CompactionSummary(it.compaction, true, m.width))
				n++
			}
		case chatTool:
			v := it.tool
			v.Expanded = false
			short := m.r.Tool(v, m.width)
			v.Expanded = true
			if full := m.r.Tool(v, m.width); len(full) != len(short) {
				m.addLines(full)
				n++
			}
		case chatBash:
			v := it.bash
			v.Expanded = false
			short := m.r.BashExecution(v, m.width)
			v.Expanded = true
			if full := m.r.BashExecution(v, m.width); len(full) != len(short) {
				m.addLines(full)
				n++
			}
		}
	}
	m.recent = nil
	return n
}
