package editor

import tea "github.com/charmbracelet/bubbletea"

// The editing actions, one method each, for an owner that binds its own keys to them (pi's
// tui.editor.* keybindings). Each one ends a run of typing, so undo treats what follows as a new step.

func (e *Editor) action(f func()) {
	e.typingRun = false
	f()
}

// CursorLeft moves one character left (to the end of the previous line at a line start).
func (e *Editor) CursorLeft() { e.action(e.left) }

// CursorRight moves one character right.
func (e *Editor) CursorRight() { e.action(e.right) }

// CursorWordLeft moves to the start of the word before the cursor.
func (e *Editor) CursorWordLeft() { e.action(e.wordLeft) }

// CursorWordRight moves past the word after the cursor.
func (e *Editor) CursorWordRight() { e.action(e.wordRight) }

// CursorLineStart moves to the start of the line.
func (e *Editor) CursorLineStart() { e.action(e.lineStart) }

// CursorLineEnd moves to the end of the line.
func (e *Editor) CursorLineEnd() { e.action(e.lineEnd) }

// DeleteCharBackward deletes the character before the cursor.
func (e *Editor) DeleteCharBackward() { e.action(e.Backspace) }

// DeleteCharForward deletes the character under the cursor.
func (e *Editor) DeleteCharForward() { e.action(e.DeleteForward) }

// DeleteWordBackward kills the word before the cursor (into the kill ring).
func (e *Editor) DeleteWordBackward() { e.action(e.killWordBackward) }

// DeleteWordForward kills the word after the cursor.
func (e *Editor) DeleteWordForward() { e.action(e.killWordForward) }

// DeleteToLineStart kills from the line start to the cursor.
func (e *Editor) DeleteToLineStart() { e.action(e.killToLineStart) }

// DeleteToLineEnd kills from the cursor to the line end.
func (e *Editor) DeleteToLineEnd() { e.action(e.killToLineEnd) }

// Yank pastes the most recently killed text.
func (e *Editor) Yank() { e.action(e.yank) }

// YankPop replaces what the last yank pasted with the kill before it.
func (e *Editor) YankPop() { e.action(e.yankPop) }

// Undo reverts the last edit.
func (e *Editor) Undo() { e.action(e.undoLast) }

// HistoryPrevious shows the previous prompt of the history wherever the cursor is.
func (e *Editor) HistoryPrevious() { e.action(func() { e.browseHistory(-1) }) }

// HistoryNext shows the next prompt of the history (past the newest, an empty editor).
func (e *Editor) HistoryNext() { e.action(func() { e.browseHistory(1) }) }

// Type inserts the text a key types (characters, a space) and reports whether it typed any; keys
// that type nothing (Alt combinations, named keys) are the owner's to bind.
func (e *Editor) Type(k tea.KeyMsg) bool {
	switch {
	case k.Alt || k.Paste:
		return false
	case k.Type == tea.KeyRunes:
		e.typeRunes(k.Runes)
	case k.Type == tea.KeySpace:
		e.typeRunes([]rune{' '})
	default:
		return false
	}
	return true
}
