package picker

// RewindChosen: Ctrl+R on an entry the tree marks as having checkpoints (SetCheckpoints): its owner
// offers to restore the files of those checkpoints, as /rewind does.
type RewindChosen struct{ ID string }

// SetCheckpoints marks entries with file checkpoints: id → the mark shown before the entry's text
// (say "⟲ 2 files"). Ctrl+R on a marked entry answers RewindChosen.
func (t *Tree) SetCheckpoints(marks map[string]string) { t.checkpoints = marks }

// checkpointMark is the mark of entry id ("" when it has none).
func (t *Tree) checkpointMark(id string) string { return t.checkpoints[id] }

// rewindHint is the key hint of Ctrl+R when some entry is marked.
func (t *Tree) rewindHint() string {
	if len(t.checkpoints) == 0 {
		return ""
	}
	return "ctrl+r restore files (⟲) · "
}
