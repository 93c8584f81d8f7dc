package tui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/keymap"
)

// doubleKeyWindow is how close two presses must be to count as a double press (pi's 500 ms).
const doubleKeyWindow = 500 * time.Millisecond

// handleKeyNow routes a key, past the extensions' input listeners (extinput.go): a selector takes
// everything; the completion list takes its keys; then the application's bindings; the rest edits
// the text.
func (m *model) handleKeyNow(k tea.KeyMsg) tea.Cmd {
	if m.sel != nil {
		return m.selectorKey(k)
	}
	if len(m.ext.customs) > 0 {
		m.extCustomKey(k) // an extension's component has the keyboard
		return nil
	}
	if cmd, ok := m.extShortcut(k); ok {
		return cmd
	}
	if m.extEditorKey(k) {
		return nil
	}
	if k.Paste {
		m.ed.Update(k)
		return m.comp.refresh(m)
	}
	name := editor.KeyName(k)
	if name != "ctrl+c" {
		m.ctrlCHint = 0
	}
	if m.fullscreen && m.fullscreenKey(name, k) {
		return nil
	}
	if cmd, ok := m.comp.key(m, name); ok {
		return cmd
	}
	km := m.keys
	if !km.Matches(k, keymap.AppInterrupt) {
		m.lastEsc = time.Time{}
	}
	// pi's order: the dedicated history keys first, then the application's, then the editor's.
	switch {
	case km.Matches(k, keymap.EditorHistoryPrevious):
		m.ed.HistoryPrevious()
		return nil
	case km.Matches(k, keymap.EditorHistoryNext):
		m.ed.HistoryNext()
		return nil
	case km.Matches(k, keymap.AppInterrupt):
		return m.escape()
	case km.Matches(k, keymap.AppClear):
		return m.ctrlC()
	case km.Matches(k, keymap.AppExit) && m.ed.Empty():
		m.quit()
		return nil
	case km.Matches(k, keymap.AppSuspend):
		return m.suspend()
	case km.Matches(k, keymap.AppThinkingCycle):
		m.cycleThinking()
		return nil
	case km.Matches(k, keymap.AppModelCycle):
		m.cycleModel()
		return nil
	case km.Matches(k, keymap.AppModelSelect):
		m.openModelSelector("")
		return nil
	case km.Matches(k, keymap.AppToolsExpand):
		m.toggleExpand()
		return nil
	case km.Matches(k, keymap.AppThinkingToggle):
		m.toggleThinking()
		return nil
	case km.Matches(k, keymap.AppEditorExternal):
		return m.externalEditor()
	case km.Matches(k, "app.clipboard.pasteImage"):
		return m.pasteClipboard()
	case km.Matches(k, keymap.AppDequeue):
		m.dequeue()
		return nil
	case km.Matches(k, keymap.AppSessionNew):
		return m.cmdNew("")
	case km.Matches(k, keymap.AppSessionTree):
		m.openTreeSelector("")
		return nil
	case km.Matches(k, keymap.AppSessionFork):
		m.openForkSelector()
		return nil
	case km.Matches(k, keymap.AppSessionResume):
		return m.openSessionPicker(false)
	case km.Matches(k, keymap.AppFollowUp) && m.busy():
		return m.submit(true)
	case km.Matches(k, keymap.InputSubmit):
		return m.submit(false)
	case km.Matches(k, keymap.InputNewLine), km.Matches(k, keymap.AppFollowUp):
		m.ed.Newline() // a follow-up needs a run to follow: when idle the key is a new line, as in pi
	case km.Matches(k, keymap.InputTab):
		return m.comp.tab(m)
	case km.Matches(k, keymap.EditorCursorUp):
		m.ed.HistoryUp(m.editorWidth())
		return nil
	case km.Matches(k, keymap.EditorCursorDown):
		m.ed.HistoryDown(m.editorWidth())
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
	case m.mcpSignIn != nil:
		m.mcpSignIn()
		return nil
	case m.login != nil:
		m.login()
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
	case strings.HasPrefix(strings.TrimSpace(m.ed.Text()), "!"):
		m.ed.SetText("")
		return nil
	case strings.TrimSpace(m.ed.Text()) == "":
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
	if cur := m.ed.Text(); strings.TrimSpace(cur) != "" {
		parts = append(parts, cur)
	}
	m.ed.SetText(strings.Join(parts, "\n\n"))
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

// ctrlC clears the editor; a second press within 500 ms quits. The first says so under the editor
// until the window has passed (ctrlCHintMsg) or another key is pressed.
func (m *model) ctrlC() tea.Cmd {
	now := m.keyTime()
	if !m.lastCtrlC.IsZero() && now.Sub(m.lastCtrlC) < doubleKeyWindow {
		m.quit()
		return nil
	}
	m.lastCtrlC = now
	m.ed.SetText("")
	m.comp.close()
	m.ctrlCHint++
	seq := m.ctrlCHint
	return tea.Tick(doubleKeyWindow, func(time.Time) tea.Msg { return ctrlCHintMsg{seq: seq} })
}

// ctrlCHintMsg ends the hint of the Ctrl+C press seq.
type ctrlCHintMsg struct{ seq int }

// ctrlCHintEnded takes the hint of press seq away once the double-press window has passed by the
// clock that judges a second press (keyTime): a test's stopped clock keeps it until the next key.
func (m *model) ctrlCHintEnded(seq int) {
	if seq == m.ctrlCHint && m.keyTime().Sub(m.lastCtrlC) >= doubleKeyWindow {
		m.ctrlCHint = 0
	}
}

// ctrlCHintLines is the hint shown after a first Ctrl+C.
func (m *model) ctrlCHintLines(w int) []string {
	if m.ctrlCHint == 0 {
		return nil
	}
	return []string{truncate(" "+m.r.KeyHint("ctrl+c", "again to exit"), w)}
}

func (m *model) quit() { m.quitting = true }
