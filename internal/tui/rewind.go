package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/checkpoint"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/tui/picker"
)

// pickerAction is a picker choice that carries what to do on the UI goroutine.
type pickerAction func(m *model) tea.Cmd

// previewLines bounds the diff shown before a rewind.
const previewLines = 40

// cmdRewind is /rewind: the session's checkpoints, newest first, each with the files its turn
// changed; choosing one shows the diff a rewind would apply and asks what to restore.
func (m *model) cmdRewind(string) tea.Cmd {
	return m.withCheckpoints(func(m *model, list []harness.CheckpointInfo) tea.Cmd {
		m.openRewindPicker(list)
		return nil
	})
}

// withCheckpoints loads the session's checkpoints off the UI goroutine and hands them to then; not
// while the agent works (a rewind then would race its edits).
func (m *model) withCheckpoints(then func(m *model, list []harness.CheckpointInfo) tea.Cmd) tea.Cmd {
	if m.busy() {
		m.addWarning("The agent is working. Press Esc to stop it before rewinding.")
		return nil
	}
	sess, ctx := m.sess, m.ctx
	return m.op(func() tea.Msg {
		list, err := sess.Checkpoints(ctx)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			if err != nil {
				m.addError(err.Error())
				return nil
			}
			return then(m, list)
		}}
	})
}

func (m *model) openRewindPicker(list []harness.CheckpointInfo) {
	var items []picker.Item
	for i := len(list) - 1; i >= 0; i-- {
		c := list[i]
		if !c.Available {
			continue
		}
		items = append(items, picker.Item{Label: checkpointLabel(c), Detail: changesSummary(c.TurnChanges), Value: c})
	}
	if len(items) == 0 {
		m.addStatus("No checkpoints in this session yet")
		return
	}
	p := picker.NewList(m.r, "Rewind to before", items, func(it picker.Item) tea.Msg {
		c := it.Value.(harness.CheckpointInfo)
		return pickerAction(func(m *model) tea.Cmd { return m.previewRewind(c) })
	})
	p.SetHint("↑↓ navigate · enter preview · esc cancel")
	m.sel = p
}

// checkpointLabel is a checkpoint's time and what it preceded.
func checkpointLabel(c harness.CheckpointInfo) string {
	when := c.Timestamp
	if t, err := time.Parse(time.RFC3339Nano, c.Timestamp); err == nil {
		when = t.Local().Format("Jan 2 15:04:05")
	}
	what := map[string]string{
		harness.TriggerTool:    "the agent's tools",
		harness.TriggerBash:    "a ! command",
		harness.TriggerRestore: "a rewind (undo it)",
	}[c.Trigger]
	return when + "  " + what
}

// changesSummary names the files a turn changed, as many as fit a line.
func changesSummary(changes []checkpoint.Change) string {
	if len(changes) == 0 {
		return "no file changes since"
	}
	var names []string
	for i, c := range changes {
		if i == 3 {
			names = append(names, fmt.Sprintf("+%d more", len(changes)-3))
			break
		}
		names = append(names, map[string]string{"added": "+", "deleted": "-", "modified": "~"}[c.Status]+c.Path)
	}
	return strings.Join(names, " ")
}

// previewRewind prints what rewinding to c changes (its diff, cut short) and asks what to restore.
func (m *model) previewRewind(c harness.CheckpointInfo) tea.Cmd {
	sess, ctx := m.sess, m.ctx
	return m.op(func() tea.Msg {
		patch, err := sess.CheckpointPatch(ctx, c)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			if err != nil {
				m.addError(err.Error())
				return nil
			}
			lines := strings.Split(strings.TrimRight(patch, "\n"), "\n")
			if len(lines) > previewLines {
				lines = append(lines[:previewLines], fmt.Sprintf("… %d more lines", len(lines)-previewLines))
			}
			if patch != "" {
				m.addStatus("Rewinding to " + checkpointLabel(c) + " applies:")
				m.addFixed(lines)
			}
			m.askRewindScope(c)
			return nil
		}}
	})
}

// rewindTarget is the tree entry restoring the conversation moves to: before the turn's answer, or
// where the session was when the ! command or rewind happened ("" when there is none).
func (m *model) rewindTarget(c harness.CheckpointInfo) string {
	if c.Trigger != harness.TriggerTool {
		return c.EntryID
	}
	if e := m.sess.Store().Entry(c.EntryID); e != nil {
		return e.ParentID
	}
	return ""
}

// askRewindScope asks whether to restore the files, the conversation or both.
func (m *model) askRewindScope(c harness.CheckpointInfo) {
	type scope struct{ files, conversation bool }
	choices := []struct {
		label string
		scope scope
	}{
		{"Restore files and conversation", scope{true, true}},
		{"Restore files only", scope{true, false}},
		{"Restore conversation only", scope{false, true}},
	}
	target := m.rewindTarget(c)
	var items []picker.Item
	for _, ch := range choices {
		if ch.scope.conversation && target == "" {
			continue
		}
		items = append(items, picker.Item{Label: ch.label, Value: ch.scope})
	}
	p := picker.NewList(m.r, "Rewind", items, func(it picker.Item) tea.Msg {
		s := it.Value.(scope)
		return pickerAction(func(m *model) tea.Cmd {
			if !s.files {
				return m.navigateTree(target)
			}
			return m.restoreFiles(c, s.conversation, target, false)
		})
	})
	p.SetHint("↑↓ navigate · enter restore · esc cancel")
	m.sel = p
}

// restoreFiles restores the checkpoint's files; files changed outside pi-go are overwritten only
// after the user confirms. With conversation, the tree then moves to target.
func (m *model) restoreFiles(c harness.CheckpointInfo, conversation bool, target string, force bool) tea.Cmd {
	sess, ctx := m.sess, m.ctx
	return m.op(func() tea.Msg {
		res, err := sess.RestoreCheckpoint(ctx, c, force)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			var ce *checkpoint.ConflictError
			if errors.As(err, &ce) {
				m.confirmOverwrite(c, conversation, target, ce.Paths)
				return nil
			}
			if err != nil {
				m.addError(err.Error())
				return nil
			}
			m.addStatus(fmt.Sprintf("Restored %d file(s); /rewind lists the state before as the newest checkpoint", len(res.Changed)))
			if conversation {
				return m.navigateTree(target)
			}
			return nil
		}}
	})
}

// confirmOverwrite asks before overwriting files changed outside pi-go.
func (m *model) confirmOverwrite(c harness.CheckpointInfo, conversation bool, target string, paths []string) {
	items := []picker.Item{{Label: "Overwrite them", Value: true}, {Label: "Cancel", Value: false}}
	title := fmt.Sprintf("Changed outside pi-go since its last checkpoint: %s", strings.Join(paths, ", "))
	p := picker.NewList(m.r, title, items, func(it picker.Item) tea.Msg {
		if !it.Value.(bool) {
			return picker.Cancelled{}
		}
		return pickerAction(func(m *model) tea.Cmd { return m.restoreFiles(c, conversation, target, true) })
	})
	p.SetHint("↑↓ navigate · enter select · esc cancel")
	m.sel = p
}
