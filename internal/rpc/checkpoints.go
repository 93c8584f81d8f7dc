package rpc

import (
	"context"
	"errors"

	"github.com/pi-go/pi-go/internal/checkpoint"
)

// get_checkpoints and restore_checkpoint are pi-go's extensions of pi's protocol (README, "Rewind"):
// the session's per-turn snapshots of the project's files, and restoring one.

// checkpointJSON is one checkpoint as get_checkpoints lists it.
type checkpointJSON struct {
	ID          string              `json:"id"`
	EntryID     string              `json:"entryId,omitempty"`
	Trigger     string              `json:"trigger"`
	Commit      string              `json:"commit"`
	Timestamp   string              `json:"timestamp"`
	Changes     []checkpoint.Change `json:"changes"`
	TurnChanges []checkpoint.Change `json:"turnChanges"`
	Skipped     []string            `json:"skipped,omitempty"`
	RestoredTo  string              `json:"restoredTo,omitempty"`
	Available   bool                `json:"available"`
}

// getCheckpoints answers {checkpoints}: the session's checkpoints in file order.
func (s *server) getCheckpoints(c *command) *response {
	list, err := s.sess.Checkpoints(s.runCtx)
	if err != nil {
		return c.fail(err)
	}
	out := make([]checkpointJSON, 0, len(list))
	for _, cp := range list {
		out = append(out, checkpointJSON{
			ID: cp.ID, EntryID: cp.EntryID, Trigger: cp.Trigger, Commit: cp.Commit, Timestamp: cp.Timestamp,
			Changes: nonNil(cp.Changes), TurnChanges: nonNil(cp.TurnChanges), Skipped: cp.Skipped,
			RestoredTo: cp.RestoredTo, Available: cp.Available,
		})
	}
	return c.okData(map[string]any{"checkpoints": out})
}

func nonNil(c []checkpoint.Change) []checkpoint.Change {
	if c == nil {
		return []checkpoint.Change{}
	}
	return c
}

// restoreCheckpoint restores the project's files to a checkpoint ("checkpointId": a checkpoint entry's
// id, the id of the turn entry it precedes, or its commit; "force": overwrite files changed outside
// pi-go). It answers {restored: true, changes, undoCheckpointId} or, when files changed outside pi-go
// would be overwritten and force is not set, {restored: false, conflicts} with nothing changed: the
// client asks its user and sends the command again with force.
func (s *server) restoreCheckpoint(c *command) *response {
	ref, err := c.str("checkpointId")
	if err != nil {
		return c.fail(err)
	}
	force, err := c.optBoolean("force")
	if err != nil {
		return c.fail(err)
	}
	// A restore half done is worse than one finished late: shutdown does not cut it short.
	ctx := context.WithoutCancel(s.runCtx)
	cp, err := s.sess.FindCheckpoint(ctx, ref)
	if err != nil {
		return c.fail(err)
	}
	res, err := s.sess.RestoreCheckpoint(ctx, cp, force)
	var ce *checkpoint.ConflictError
	if errors.As(err, &ce) {
		return c.okData(map[string]any{"restored": false, "conflicts": ce.Paths})
	}
	if err != nil {
		return c.fail(err)
	}
	return c.okData(map[string]any{"restored": true, "changes": nonNil(res.Changed), "undoCheckpointId": res.UndoID})
}
