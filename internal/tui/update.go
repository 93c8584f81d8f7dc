package tui

import (
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/keymap"
)

// Update applies one message. Every message may change what is shown, so a frame is scheduled
// afterwards (frames are coalesced: at most one per frameInterval).
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	redraw := true
	switch msg := msg.(type) {
	case inboxMsg:
		for _, it := range msg {
			if it.msg != nil {
				cmds = append(cmds, m.handleMsg(it.msg))
			} else {
				cmds = append(cmds, m.handleEvent(it.ev))
			}
		}
		cmds = append(cmds, m.in.wait(m.ctx))
	case frameMsg:
		m.frameScheduled = false
		m.drawFrame()
		redraw = false
		if !m.resourcesRequested {
			// Discovery reads every template and skill file: not before the first frame is out.
			m.resourcesRequested = true
			cmds = append(cmds, m.loadResources())
			if m.opts.MCP != nil {
				m.opts.MCP.Start() // MCP servers connect in the background, after the first frame too
			}
		}
	case spinner.TickMsg:
		// The spinner's tick also times the countdowns and elapsed times on screen. Its next tick is
		// kept only while something animates: an idle UI has no timer.
		spin, next := m.spin.Update(msg)
		if next == nil {
			redraw = false // not the running tick
			break
		}
		m.spin = spin
		if !m.animating() {
			m.ticking = false
			redraw = false
			break
		}
		cmds = append(cmds, next)
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case relayoutMsg:
		m.relayoutDue(msg)
	case ctrlCHintMsg:
		m.ctrlCHintEnded(msg.seq)
	case tea.KeyMsg:
		cmds = append(cmds, m.handleKey(msg))
	case tea.MouseMsg:
		m.handleMouse(msg)
	case tea.ResumeMsg:
		_ = m.term.Enter()
		m.resumed()
	default:
		if k, ok := keymap.ExtendedKey(msg); ok {
			cmds = append(cmds, m.handleKey(k))
		} else {
			cmds = append(cmds, m.handleMsg(msg))
		}
	}
	if m.quitting {
		return m, tea.Quit
	}
	if redraw {
		cmds = append(cmds, m.requestFrame())
	}
	cmds = append(cmds, m.animate(), m.scheduleRelayout())
	return m, tea.Batch(cmds...)
}

// handleMsg handles the results of commands (and messages queued in the inbox).
func (m *model) handleMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case themeFileChangedMsg:
		return m.reloadTheme()
	case clipboardMsg:
		m.clipboardRead(msg)
	case promptDoneMsg:
		if !msg.queued {
			m.run.prompting = false
		}
		if msg.err != nil {
			m.addError(msg.err.Error())
		}
		if m.quitIfShutdownAsked() {
			return nil
		}
		if !msg.queued {
			return m.sendNextInitial()
		}
	case abortDoneMsg:
	case reloadDoneMsg:
		return m.reloadDone(msg)
	case bashChunkMsg:
		if it := m.bashItem(msg.id); it != nil {
			it.bash.Output += msg.text
		}
	case bashDoneMsg:
		m.bashDone(msg)
	case opDoneMsg:
		if msg.then != nil {
			return msg.then(m, msg.err)
		} else if msg.err != nil {
			m.addError(msg.err.Error())
		}
	case externalEditorMsg:
		m.externalEditorDone(msg)
	case historyMsg:
		m.placeHistory(msg)
	case warningMsg:
		m.addWarning(string(msg))
	case extDialogMsg:
		m.queueExtDialog(msg)
	case extSessionMsg:
		return m.extSessionChanged(msg)
	case extNoticeMsg:
		m.extNotice(msg)
	case extUIMsg:
		return msg.apply(m)
	case filesMsg:
		return m.comp.setFiles(msg, m.ed)
	case argCompletionsMsg:
		m.comp.setArguments(msg, m)
	case pickerReplyMsg:
		if m.sel != nil && m.sel == msg.to {
			return m.updateSelector(msg.msg)
		}
	}
	return nil
}

// requestFrame schedules the next frame unless one is scheduled already.
func (m *model) requestFrame() tea.Cmd {
	if m.frameScheduled {
		return nil
	}
	m.frameScheduled = true
	delay := time.Until(m.lastFrame.Add(frameInterval))
	if delay <= 0 {
		return func() tea.Msg { return frameMsg{} }
	}
	return tea.Tick(delay, func(time.Time) tea.Msg { return frameMsg{} })
}

// animate keeps a tick running while a spinner or countdown is on screen, and none otherwise: an idle
// UI wakes up for nothing.
func (m *model) animate() tea.Cmd {
	if m.ticking || !m.animating() {
		return nil
	}
	m.ticking = true
	spin := m.spin
	return tea.Tick(spin.Spinner.FPS, func(time.Time) tea.Msg { return spin.Tick() })
}

// resize adapts to a new terminal size.
func (m *model) resize(w, h int) {
	if w <= 0 || h <= 0 {
		return
	}
	if w != m.width {
		m.widthChanged()
	}
	m.width, m.height = w, h
	m.scr.Resize(w, h)
	m.footerDirty = true
}

// placeHistory puts a conversation rendered in the background in its placeholder's place.
func (m *model) placeHistory(msg historyMsg) {
	for i, it := range m.chat {
		if it == msg.item {
			if m.mdx != nil {
				m.mdxEntryRefs(msg.items)
				for _, h := range msg.items {
					h.cache = nil // rendered off the UI goroutine: drawn again here, where stand-ins are counted
				}
			}
			rest := append(msg.items, m.chat[i+1:]...)
			m.chat = append(m.chat[:i:i], rest...)
			return
		}
	}
}
