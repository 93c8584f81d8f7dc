package editor

import (
	tea "github.com/charmbracelet/bubbletea"
)

// ShiftEnter is the key name given to Shift+Enter, which Bubble Tea v1 does not decode (terminals
// with the kitty keyboard protocol or xterm's modifyOtherKeys send CSI sequences for it; the keymap
// package's ExtendedKey names them).
const ShiftEnter = "shift+enter"

// KeyName is the key's name as the bindings use it ("enter", "alt+up", "ctrl+c", "a", ShiftEnter).
func KeyName(k tea.KeyMsg) string {
	if k.Type == tea.KeyRunes && string(k.Runes) == ShiftEnter {
		return ShiftEnter
	}
	return k.String()
}

// Update applies an editing key (a tea.KeyMsg; other messages are ignored): typed characters, a
// paste, deletion, moves within and across lines, the kill ring and undo, with pi's emacs bindings.
// Keys the owner binds (Enter, Up and Down, Ctrl+D...) are its own to handle; they do nothing here.
func (e *Editor) Update(msg tea.Msg) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return
	}
	if k.Paste {
		e.Paste(string(k.Runes))
		return
	}
	if k.Type != tea.KeyRunes && k.Type != tea.KeySpace {
		e.typingRun = false
	}
	switch k.Type {
	case tea.KeyRunes:
		if k.Alt {
			e.altKey(k.Runes)
			return
		}
		e.typeRunes(k.Runes)
	case tea.KeySpace:
		e.typeRunes([]rune{' '})
	case tea.KeyBackspace, tea.KeyCtrlH:
		if k.Alt {
			e.killWordBackward()
		} else {
			e.Backspace()
		}
	case tea.KeyDelete:
		e.DeleteForward()
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

func (e *Editor) altKey(rs []rune) {
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

// HistoryUp is pi's Up for text width cells wide: browse the history from an empty editor or from
// the first visual row while browsing; otherwise move up (to the line start on the first row).
func (e *Editor) HistoryUp(width int) {
	switch {
	case e.Empty():
		e.browseHistory(-1)
	case e.histIdx > -1 && e.onFirstVisualRow(width):
		e.browseHistory(-1)
	case e.onFirstVisualRow(width):
		e.lineStart()
	default:
		e.moveVertical(-1, width)
	}
}

// HistoryDown is pi's Down: the newer history entry while browsing from the last visual row (past
// the newest the editor is empty again); otherwise move down (to the line end on the last row).
func (e *Editor) HistoryDown(width int) {
	switch {
	case e.histIdx > -1 && e.onLastVisualRow(width):
		e.browseHistory(1)
	case e.onLastVisualRow(width):
		e.lineEnd()
	default:
		e.moveVertical(1, width)
	}
}

// OnFirstLine reports whether the cursor is on the first logical line.
func (e *Editor) OnFirstLine() bool { return e.row == 0 }
