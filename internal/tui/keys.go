package tui

import (
	"reflect"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// doubleKeyWindow is how close two presses must be to count as a double press (pi's 500 ms).
const doubleKeyWindow = 500 * time.Millisecond

// shiftEnter is the key name given to Shift+Enter (and Ctrl+Enter), which Bubble Tea v1 does not
// decode: terminals with the kitty keyboard protocol or xterm's modifyOtherKeys send CSI sequences
// for them.
const shiftEnter = "shift+enter"

// extendedKey recognises the CSI sequences of Shift+Enter and Ctrl+Enter among the sequences Bubble
// Tea reports as unknown (an unexported []byte type, read by reflection). Bubble Tea's message
// shares its input buffer, whose first bytes the next read may already have overwritten (a key typed
// right after), so the sequence is recognised by its length and its end.
func extendedKey(msg tea.Msg) (tea.KeyMsg, bool) {
	v := reflect.ValueOf(msg)
	if !v.IsValid() || v.Kind() != reflect.Slice || v.Type().Elem().Kind() != reflect.Uint8 ||
		!strings.Contains(v.Type().Name(), "CSI") {
		return tea.KeyMsg{}, false
	}
	seq := string(v.Bytes())
	for _, want := range []string{"\x1b[13;2u", "\x1b[27;2;13~", "\x1b[13;5u", "\x1b[27;5;13~", "\x1b[13;2~"} {
		if len(seq) == len(want) && strings.HasSuffix(seq, want[2:]) {
			return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(shiftEnter)}, true
		}
	}
	return tea.KeyMsg{}, false
}

// keyName is the key's name as the bindings use it ("enter", "alt+up", "ctrl+c", "a").
func keyName(k tea.KeyMsg) string {
	if k.Type == tea.KeyRunes && string(k.Runes) == shiftEnter {
		return shiftEnter
	}
	return k.String()
}

// handleKey routes a key: a selector takes everything; the completion list takes its keys; then the
// application's bindings; the rest edits the text.
func (m *model) handleKey(k tea.KeyMsg) tea.Cmd {
	if m.sel != nil {
		return m.sel.key(m, k)
	}
	if k.Paste {
		m.ed.paste(string(k.Runes))
		return m.comp.refresh(m)
	}
	name := keyName(k)
	if cmd, ok := m.comp.key(m, name); ok {
		return cmd
	}
	if name != "esc" {
		m.lastEsc = time.Time{}
	}
	switch name {
	case "esc":
		return m.escape()
	case "ctrl+c":
		m.ctrlC()
		return nil
	case "ctrl+d":
		if m.ed.empty() {
			m.quit()
			return nil
		}
		m.ed.deleteForward()
	case "ctrl+z":
		return m.suspend()
	case "shift+tab":
		m.cycleThinking()
		return nil
	case "ctrl+p":
		m.cycleModel()
		return nil
	case "ctrl+l":
		m.openModelSelector("")
		return nil
	case "ctrl+o":
		m.toggleExpand()
		return nil
	case "ctrl+t":
		m.toggleThinking()
		return nil
	case "ctrl+g":
		return m.externalEditor()
	case "alt+up":
		m.dequeue()
		return nil
	case "enter":
		return m.submit(false)
	case "alt+enter":
		if m.busy() {
			return m.submit(true)
		}
		m.ed.newline()
	case "ctrl+j", shiftEnter:
		m.ed.newline()
	case "tab":
		return m.comp.tab(m)
	case "up":
		m.historyUp()
		return nil
	case "down":
		m.historyDown()
		return nil
	default:
		m.editorKey(k)
	}
	return m.comp.refresh(m)
}

// busy reports whether a run (or its retries or a compaction) is in progress.
func (m *model) busy() bool {
	return m.sess.IsStreaming() || m.run.active || m.run.prompting
}

// escape is pi's interrupt key: abort a run and give the queued messages back to the editor, or stop
// a `!` command, or leave bash mode; twice on an empty editor opens the tree (doubleEscapeAction).
func (m *model) escape() tea.Cmd {
	switch {
	case m.nav != nil:
		m.nav.cancel()
		return nil
	case m.run.compacting || m.sess.IsCompacting():
		m.sess.AbortCompaction()
		return nil
	case m.run.retrying:
		m.sess.AbortRetry()
		return nil
	case m.sess.IsStreaming() || m.run.active:
		m.restoreQueued()
		return m.abort()
	case m.sess.IsBashRunning():
		m.sess.AbortBash()
		return nil
	case strings.HasPrefix(strings.TrimSpace(m.ed.text()), "!"):
		m.ed.setText("")
		return nil
	case strings.TrimSpace(m.ed.text()) == "":
		action := m.settings().DoubleEscapeAction
		if action == "" {
			action = "tree"
		}
		if action == "none" {
			return nil
		}
		now := m.keyTime()
		if !m.lastEsc.IsZero() && now.Sub(m.lastEsc) < doubleKeyWindow {
			m.lastEsc = time.Time{}
			if action == "fork" {
				m.openForkSelector()
			} else {
				m.openTreeSelector("")
			}
			return nil
		}
		m.lastEsc = now
	}
	return nil
}

// abort stops the run off the UI goroutine (Abort waits until the agent is idle).
func (m *model) abort() tea.Cmd {
	sess := m.sess
	return m.op(func() tea.Msg {
		sess.Abort()
		return abortDoneMsg{}
	})
}

// restoreQueued moves every queued steering and follow-up text into the editor, before what is
// already there; it returns how many there were.
func (m *model) restoreQueued() int {
	steering, followUp := m.sess.ClearQueue()
	all := append(append(append([]string(nil), steering...), followUp...), m.takeCompactionQueue()...)
	m.steering, m.followUp = nil, nil
	if len(all) == 0 {
		return 0
	}
	parts := append([]string(nil), strings.Join(all, "\n\n"))
	if cur := m.ed.text(); strings.TrimSpace(cur) != "" {
		parts = append(parts, cur)
	}
	m.ed.setText(strings.Join(parts, "\n\n"))
	return len(all)
}

// dequeue is Alt+Up: the queued messages come back into the editor without aborting.
func (m *model) dequeue() {
	n := m.restoreQueued()
	switch n {
	case 0:
		m.addStatus("No queued messages to restore")
	case 1:
		m.addStatus("Restored 1 queued message to editor")
	default:
		m.addStatus("Restored " + itoa(n) + " queued messages to editor")
	}
}

// keyTime is the time of the key press being handled.
func (m *model) keyTime() time.Time {
	if m.opts.Clock != nil {
		return m.opts.Clock()
	}
	return time.Now()
}

// ctrlC clears the editor; a second press within 500 ms quits.
func (m *model) ctrlC() {
	now := m.keyTime()
	if !m.lastCtrlC.IsZero() && now.Sub(m.lastCtrlC) < doubleKeyWindow {
		m.quit()
		return
	}
	m.lastCtrlC = now
	m.ed.setText("")
	m.comp.close()
}

func (m *model) quit() { m.quitting = true }

// historyUp is pi's Up: browse the history from an empty editor or from the first visual row while
// browsing; otherwise move up (to the line start on the first row).
func (m *model) historyUp() {
	w := m.editorWidth()
	switch {
	case m.ed.empty():
		m.ed.browseHistory(-1)
	case m.ed.histIdx > -1 && m.ed.onFirstVisualRow(w):
		m.ed.browseHistory(-1)
	case m.ed.onFirstVisualRow(w):
		m.ed.lineStart()
	default:
		m.ed.moveVertical(-1, w)
	}
}

func (m *model) historyDown() {
	w := m.editorWidth()
	switch {
	case m.ed.histIdx > -1 && m.ed.onLastVisualRow(w):
		m.ed.browseHistory(1)
	case m.ed.onLastVisualRow(w):
		m.ed.lineEnd()
	default:
		m.ed.moveVertical(1, w)
	}
}

// editorKey applies an editing key (emacs bindings as pi's editor).
func (m *model) editorKey(k tea.KeyMsg) {
	e := m.ed
	if k.Type != tea.KeyRunes && k.Type != tea.KeySpace {
		e.typingRun = false
	}
	switch k.Type {
	case tea.KeyRunes:
		if k.Alt {
			m.altKey(k.Runes)
			return
		}
		e.typeRunes(k.Runes)
	case tea.KeySpace:
		e.typeRunes([]rune{' '})
	case tea.KeyBackspace, tea.KeyCtrlH:
		if k.Alt {
			e.killWordBackward()
		} else {
			e.backspace()
		}
	case tea.KeyDelete:
		e.deleteForward()
	case tea.KeyLeft, tea.KeyCtrlB:
		if k.Alt {
			e.wordLeft()
		} else {
			e.left()
		}
	case tea.KeyRight, tea.KeyCtrlF:
		if k.Alt {
			e.wordRight()
		} else {
			e.right()
		}
	case tea.KeyCtrlLeft:
		e.wordLeft()
	case tea.KeyCtrlRight:
		e.wordRight()
	case tea.KeyHome, tea.KeyCtrlA:
		e.lineStart()
	case tea.KeyEnd, tea.KeyCtrlE:
		e.lineEnd()
	case tea.KeyCtrlW:
		e.killWordBackward()
	case tea.KeyCtrlU:
		e.killToLineStart()
	case tea.KeyCtrlK:
		e.killToLineEnd()
	case tea.KeyCtrlY:
		e.yank()
	case tea.KeyCtrlUnderscore:
		e.undoLast()
	}
}

func (m *model) altKey(rs []rune) {
	e := m.ed
	e.typingRun = false
	switch string(rs) {
	case "b":
		e.wordLeft()
	case "f":
		e.wordRight()
	case "d":
		e.killWordForward()
	case "y":
		e.yankPop()
	}
}
