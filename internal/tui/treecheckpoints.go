package tui

import (
	"encoding/json"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// checkpointAnchors maps each checkpoint entry of the session to the tree entry that shows it: the
// user message that started its turn (the tool steps a checkpoint precedes are hidden by the tree's
// default filter), or the checkpoint's own entry when no user message precedes it. Read from the
// session file alone: no git process while the tree opens.
func checkpointAnchors(entries []*session.Entry, byID func(string) *session.Entry) map[string]string {
	anchors := map[string]string{}
	for _, e := range entries {
		if e.Type != session.TypeCustom || e.CustomType != harness.CheckpointCustomType {
			continue
		}
		var d harness.CheckpointData
		if json.Unmarshal(e.Data, &d) != nil || d.Commit == "" {
			continue
		}
		anchor := e.ID
		for id, hops := d.EntryID, 0; id != "" && hops < 10_000; hops++ {
			x := byID(id)
			if x == nil {
				break
			}
			if x.Type == session.TypeMessage && x.Role == provider.RoleUser {
				anchor = x.ID
				break
			}
			id = x.ParentID
		}
		anchors[e.ID] = anchor
	}
	return anchors
}

// treeCheckpointMarks are the tree's marks: "⟲" on each anchor, with the number of checkpoints when
// more than one turn of that prompt took one.
func treeCheckpointMarks(anchors map[string]string) map[string]string {
	count := map[string]int{}
	for _, a := range anchors {
		count[a]++
	}
	marks := make(map[string]string, len(count))
	for a, n := range count {
		marks[a] = "⟲"
		if n > 1 {
			marks[a] = fmt.Sprintf("⟲%d", n)
		}
	}
	return marks
}

// rewindFromTree is Ctrl+R in the tree on a marked entry: the checkpoints shown there, offered as
// /rewind offers them (one goes straight to its preview).
func (m *model) rewindFromTree(anchor string) tea.Cmd {
	store := m.sess.Store()
	anchors := checkpointAnchors(store.Entries(), store.Entry)
	return m.withCheckpoints(func(m *model, list []harness.CheckpointInfo) tea.Cmd {
		var here []harness.CheckpointInfo
		for _, c := range list {
			if anchors[c.ID] == anchor && c.Available {
				here = append(here, c)
			}
		}
		if len(here) == 1 {
			return m.previewRewind(here[0])
		}
		m.openRewindPicker(here)
		return nil
	})
}
