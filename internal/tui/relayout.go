package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// relayoutDelay is how long a new width must hold before the transcript is laid out again: dragging
// a window's edge sends a size for every column it passes.
const relayoutDelay = 120 * time.Millisecond

// relayoutMsg ends the wait for a width to hold; seq tells a stale one from the last.
type relayoutMsg struct{ seq int }

// widthChanged notes that the transcript was laid out for another width: it is laid out again once
// the width holds for relayoutDelay (scheduleRelayout).
func (m *model) widthChanged() {
	m.relayoutSeq++
}

// scheduleRelayout starts the wait for the newest width change, if one is not started yet.
func (m *model) scheduleRelayout() tea.Cmd {
	if m.relayoutSeq == m.relayoutTimed {
		return nil
	}
	m.relayoutTimed = m.relayoutSeq
	seq := m.relayoutSeq
	return tea.Tick(relayoutDelay, func(time.Time) tea.Msg { return relayoutMsg{seq: seq} })
}

// relayoutDue handles the end of a wait: only the last width change's wait lays out.
func (m *model) relayoutDue(msg relayoutMsg) {
	if msg.seq != m.relayoutSeq || msg.seq == m.relayoutDone {
		return
	}
	m.relayout()
}

// relayout draws the whole transcript again at the current width and with the current toggles, as
// pi does: in regular mode the screen and the scrollback are cleared and every block is printed
// again from its cached render (so nothing of the old layout stays behind: no line at the old width,
// no stale border, no fragment of a frame re-wrapped by the terminal); in fullscreen the viewport
// renders what it shows from the same blocks on the next frame.
func (m *model) relayout() {
	if m.scr.Paused() {
		// Another program has the terminal: lay out when it is back (resumed).
		m.relayoutOnResume = true
		return
	}
	m.relayoutOnResume = false
	m.relayoutDone = m.relayoutSeq
	for _, it := range m.chat {
		if it.kind == chatAssistant {
			// Whatever of the streaming answer was printed is printed again, at the new width.
			it.stream.Unflush(m.hideThinking)
		}
	}
	if m.fullscreen {
		m.fullscreenRelaidOut()
		return
	}
	var print []string
	misses := m.mdxMisses()
	for _, it := range m.done {
		print = append(print, m.blockLines(it, m.width)...)
	}
	// Printed with a markdown transformer's stand-ins: printed again if the answers differ (mdx.go).
	m.mdxStale = m.mdxStale || m.mdxMisses() != misses
	print = append(print, m.flushChat(m.width)...)
	m.scr.Clear()
	m.lastFrame = time.Now()
	m.scr.Draw(print, m.liveLines(m.lastFrame))
}

// resumed draws again after another program had the terminal, laying the transcript out if that
// was due meanwhile.
func (m *model) resumed() {
	m.scr.Resume()
	if m.relayoutOnResume {
		m.relayout()
	}
}

// toggled re-renders the transcript after Ctrl+O or Ctrl+T changed how blocks are shown.
func (m *model) toggled() {
	m.layoutGen++
	m.relayout()
}
