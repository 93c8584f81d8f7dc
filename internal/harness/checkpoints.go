package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pi-go/pi-go/internal/checkpoint"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// CheckpointCustomType is the customType of the session entries that record checkpoints: custom
// entries, which pi keeps in the tree and never sends to the model, so the file stays a pi session.
const CheckpointCustomType = "pi-go:checkpoint"

// Checkpoint triggers (CheckpointData.Trigger).
const (
	TriggerTool    = "tool"    // before the mutating tool calls of an assistant message
	TriggerBash    = "bash"    // before a user's `!` command
	TriggerRestore = "restore" // the state a restore replaced: restoring it undoes the restore
)

// CheckpointData is the data of a checkpoint entry.
type CheckpointData struct {
	// Commit names the snapshot in the project's checkpoint store.
	Commit string `json:"commit"`
	// EntryID is the entry the snapshot precedes the effects of: the assistant message whose tools
	// were about to run, the leaf when a `!` command started, or the leaf at a restore.
	EntryID string `json:"entryId,omitempty"`
	Trigger string `json:"trigger"`
	// Changes are the files that differ from the store's previous snapshot.
	Changes []checkpoint.Change `json:"changes,omitempty"`
	// Skipped are the files left out for their size.
	Skipped []string `json:"skipped,omitempty"`
	// RestoredTo is, for a restore, the commit the files were restored to.
	RestoredTo string `json:"restoredTo,omitempty"`
	// SnapshotMs is how long the snapshot took; WaitMs how long the tools waited for it (it runs
	// while the model answers).
	SnapshotMs int64 `json:"snapshotMs"`
	WaitMs     int64 `json:"waitMs"`
}

// readOnlyTools are the built-in tools that never change files; any other tool (write, edit, bash,
// extension and MCP tools) is taken to mutate, so a snapshot precedes it.
var readOnlyTools = map[string]bool{"read": true, "grep": true, "find": true, "ls": true}

// ErrCheckpointsOff is returned by the checkpoint methods when checkpoints are disabled.
var ErrCheckpointsOff = errors.New("checkpoints are off (settings: \"checkpoints\": false)")

// checkpointState is the session's link to the checkpoint store, opened on first need.
//
// Snapshots are taken off the loop goroutine so they cost streaming nothing: one starts when a turn
// starts (while the model is still answering) and the turn's first mutating tool call waits for it,
// usually finding it done. One more starts when a run that changed files ends, recording the state
// pi-go's changes left (the base for telling outside changes apart).
type checkpointState struct {
	mu     sync.Mutex
	opened bool
	store  *checkpoint.Store
	err    error
	// pending is the snapshot started at the current turn's start, not yet claimed by a mutating call.
	pending *pendingSnapshot
	// dirty: tools that may have changed files ran since pending started.
	dirty bool
	// running counts the snapshots in flight; idle is closed when it drops to zero.
	// Not a WaitGroup: a `!` command may start a snapshot (an Add from zero) just as the end of a run
	// waits, which a WaitGroup forbids.
	running int
	idle    chan struct{}
	// stopPrune cancels the background prune and waits for it (nil: none started). Runs do not wait
	// for a prune (snapshots do not either); Close stops it.
	stopPrune func()
}

// goLocked runs job on a goroutine of its own that waitCheckpoints waits for. c.mu is held.
func (c *checkpointState) goLocked(job func()) {
	if c.running == 0 {
		c.idle = make(chan struct{})
	}
	c.running++
	go func() {
		defer func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.running--; c.running == 0 {
				close(c.idle)
			}
		}()
		job()
	}()
}

// pendingSnapshot is a snapshot in flight; done is closed once cp and err are set.
type pendingSnapshot struct {
	done     chan struct{}
	cp       checkpoint.Checkpoint
	err      error
	duration time.Duration
}

// checkpointStore opens the store on first use; nil when checkpoints are off or unavailable (the
// reason is reported once as a warning).
func (s *Session) checkpointStore() (*checkpoint.Store, error) {
	if s.opts.OpenCheckpoints == nil || !s.opts.Settings.Settings().CheckpointsEnabled() {
		return nil, ErrCheckpointsOff
	}
	c := &s.checkpoints
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.opened {
		c.opened = true
		c.store, c.err = s.opts.OpenCheckpoints()
		if c.err != nil {
			s.warn(c.err)
		} else {
			s.pruneCheckpointsIfDue(c.store)
		}
	}
	return c.store, c.err
}

// pruneEvery is how often a session prunes its project's store (checkpointLimits).
const pruneEvery = 24 * time.Hour

// pruneCheckpointsIfDue applies the age and size limits to the store in the background, at most once
// a day. Snapshots do not wait for it (git gc runs outside the store's lock), and Close cancels it.
// s.checkpoints.mu is held.
func (s *Session) pruneCheckpointsIfDue(store *checkpoint.Store) {
	settings := s.opts.Settings.Settings()
	limits := checkpoint.Limits{MaxAge: settings.CheckpointMaxAge(), MaxStoreSize: settings.CheckpointMaxStoreSize()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, _, err := store.PruneIfDue(ctx, limits, pruneEvery); err != nil && ctx.Err() == nil {
			s.warn(err)
		}
	}()
	s.checkpoints.stopPrune = func() {
		cancel()
		<-done
	}
}

// stopCheckpointPrune cancels the background prune, if any, and waits for it to end.
func (s *Session) stopCheckpointPrune() {
	c := &s.checkpoints
	c.mu.Lock()
	stop := c.stopPrune
	c.stopPrune = nil
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// checkpointsWanted reports whether snapshots are to be taken: checkpoints are on and some active
// tool may change files.
func (s *Session) checkpointsWanted() bool {
	if s.opts.OpenCheckpoints == nil || !s.opts.Settings.Settings().CheckpointsEnabled() {
		return false
	}
	for _, t := range s.agent.Tools() {
		if !readOnlyTools[t.Definition().Name] {
			return true
		}
	}
	return false
}

// startSnapshotLocked takes a snapshot in the background. s.checkpoints.mu is held.
func (s *Session) startSnapshotLocked(message string) *pendingSnapshot {
	p := &pendingSnapshot{done: make(chan struct{})}
	sessionID := s.Store().SessionID()
	s.checkpoints.goLocked(func() {
		defer close(p.done)
		start := time.Now()
		store, err := s.checkpointStore()
		if store == nil || err != nil {
			p.err = err
			return
		}
		p.cp, p.err = store.Snapshot(context.Background(), checkpoint.SnapshotOptions{
			Message: message + " (session " + sessionID + ")", SessionID: sessionID,
		})
		p.duration = time.Since(start)
	})
	return p
}

// mutatingCalls reports whether the message calls a tool that may change files.
func mutatingCalls(m *provider.AssistantMessage) bool {
	for _, c := range m.ToolCalls() {
		if !readOnlyTools[c.Name] {
			return true
		}
	}
	return false
}

// checkpointTurnStart starts the snapshot the turn's mutating tools will need, unless the one
// started earlier in the run still stands (no tool changed anything since).
func (s *Session) checkpointTurnStart() {
	if !s.checkpointsWanted() {
		return
	}
	c := &s.checkpoints
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil || c.dirty {
		c.pending = s.startSnapshotLocked("before a turn")
		c.dirty = false
	}
}

// checkpointBefore waits for the snapshot of the state before mutations (starting one when none is
// in flight) and records it in the session. Failures are warnings: a checkpoint never stops a tool.
func (s *Session) checkpointBefore(trigger, entryID string) {
	if !s.checkpointsWanted() && trigger == TriggerTool {
		return
	}
	c := &s.checkpoints
	c.mu.Lock()
	p := c.pending
	if p == nil || c.dirty {
		p = s.startSnapshotLocked("before " + trigger)
	}
	c.pending, c.dirty = nil, true
	c.mu.Unlock()
	waitStart := time.Now()
	<-p.done
	if p.err != nil {
		if !errors.Is(p.err, ErrCheckpointsOff) && !errors.Is(p.err, checkpoint.ErrGitMissing) {
			s.warn(p.err)
		}
		return
	}
	s.appendEntry(s.Store().AppendCustomEntry(CheckpointCustomType, CheckpointData{
		Commit: p.cp.Commit, EntryID: entryID, Trigger: trigger, Changes: p.cp.Changes, Skipped: p.cp.Skipped,
		SnapshotMs: p.duration.Milliseconds(), WaitMs: time.Since(waitStart).Milliseconds(),
	}))
}

// checkpointAfter starts, in the background, the snapshot of what the session's own changes left,
// so a later restore can tell them from changes made outside pi-go. It has no session entry.
func (s *Session) checkpointAfter() {
	c := &s.checkpoints
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirty {
		s.startSnapshotLocked("after changes")
	}
	c.pending, c.dirty = nil, false
}

// waitCheckpoints waits until no snapshot is in flight (the end of a run or `!` command, Close).
func (s *Session) waitCheckpoints() {
	c := &s.checkpoints
	c.mu.Lock()
	idle := c.idle
	c.mu.Unlock()
	if idle != nil {
		<-idle
	}
}

// CheckpointInfo is one checkpoint of the session, for /rewind, get_checkpoints and --rewind.
type CheckpointInfo struct {
	// ID is the checkpoint entry's id.
	ID        string
	Timestamp string
	CheckpointData
	// TurnChanges are the files changed between this checkpoint and the next one of the session (or
	// the session's last snapshot, for the newest): what rewinding to it undoes.
	TurnChanges []checkpoint.Change
	// Available is false when the store no longer holds the snapshot (pruned).
	Available bool
}

// Checkpoints lists the session's checkpoints in file order.
func (s *Session) Checkpoints(ctx context.Context) ([]CheckpointInfo, error) {
	store, list, known, err := s.checkpointList(ctx)
	if err != nil {
		return nil, err
	}
	var turns [][2]string
	var at []int
	for i := range list {
		if next, ok := turnEnd(list, i, known); ok {
			turns = append(turns, [2]string{list[i].Commit, next})
			at = append(at, i)
		}
	}
	// One git process for every turn; should it fail, the turns' changes stay unknown (nil).
	diffs, _ := store.DiffPairs(ctx, turns)
	for k, changes := range diffs {
		list[at[k]].TurnChanges = changes
	}
	return list, nil
}

// checkpointList is the session's checkpoints in file order without their TurnChanges (a git
// process each), and the session's last snapshot.
func (s *Session) checkpointList(ctx context.Context) (store *checkpoint.Store, list []CheckpointInfo, known string, err error) {
	store, err = s.checkpointStore()
	if err != nil {
		return nil, nil, "", err
	}
	held, err := store.Held(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	for _, e := range s.Store().Entries() {
		info, ok := checkpointOf(e)
		if !ok {
			continue
		}
		info.Available = held[info.Commit]
		list = append(list, info)
	}
	known, _ = store.Known(ctx, s.Store().SessionID())
	return store, list, known, nil
}

// nextCommit is the state list[i]'s turn left: the next available checkpoint of the session, or for
// the newest, the session's last snapshot (known).
func nextCommit(list []CheckpointInfo, i int, known string) string {
	for _, c := range list[i+1:] {
		if c.Available {
			return c.Commit
		}
	}
	return known
}

// turnEnd is nextCommit when list[i]'s turn may have changed files (a diff from list[i] to it is its
// TurnChanges): ok is false when list[i] was pruned or no later state differs from it.
func turnEnd(list []CheckpointInfo, i int, known string) (next string, ok bool) {
	next = nextCommit(list, i, known)
	return next, list[i].Available && next != "" && next != list[i].Commit
}

// checkpointOf decodes a checkpoint entry.
func checkpointOf(e *session.Entry) (CheckpointInfo, bool) {
	if e.Type != session.TypeCustom || e.CustomType != CheckpointCustomType {
		return CheckpointInfo{}, false
	}
	var d CheckpointData
	if json.Unmarshal(e.Data, &d) != nil || d.Commit == "" {
		return CheckpointInfo{}, false
	}
	return CheckpointInfo{ID: e.ID, Timestamp: e.Timestamp, CheckpointData: d}, true
}

// FindCheckpoint resolves ref to a checkpoint of the session: a checkpoint entry's id, the id of the
// entry a checkpoint precedes (its EntryID: the turn's assistant message), or a commit id.
func (s *Session) FindCheckpoint(ctx context.Context, ref string) (CheckpointInfo, error) {
	store, list, known, err := s.checkpointList(ctx)
	if err != nil {
		return CheckpointInfo{}, err
	}
	for _, match := range []func(CheckpointInfo) bool{
		func(c CheckpointInfo) bool { return c.ID == ref },
		func(c CheckpointInfo) bool { return c.EntryID == ref && c.Trigger != TriggerRestore },
		func(c CheckpointInfo) bool { return c.Commit == ref },
	} {
		for i, c := range list {
			if match(c) {
				if !c.Available {
					return c, fmt.Errorf("checkpoint %s was pruned from the store", ref)
				}
				if next, ok := turnEnd(list, i, known); ok {
					c.TurnChanges, _ = store.Diff(ctx, c.Commit, next)
				}
				return c, nil
			}
		}
	}
	return CheckpointInfo{}, fmt.Errorf("no checkpoint %q in this session", ref)
}

// CheckpointPatch is the unified diff of what rewinding to the checkpoint would undo (its turn's
// changes, from the checkpoint to the next one).
func (s *Session) CheckpointPatch(ctx context.Context, c CheckpointInfo) (string, error) {
	store, list, known, err := s.checkpointList(ctx)
	if err != nil {
		return "", err
	}
	next := known
	for i, x := range list {
		if x.ID == c.ID {
			next = nextCommit(list, i, known)
			break
		}
	}
	if next == "" {
		return "", nil
	}
	return store.Patch(ctx, next, c.Commit)
}

// ErrRestoreWhileBusy is returned by RestoreCheckpoint while the agent works.
var ErrRestoreWhileBusy = errors.New("cannot restore files while the agent is working: wait or press Escape first")

// RestoreResult says what RestoreCheckpoint did.
type RestoreResult struct {
	checkpoint.RestoreResult
	// UndoID is the id of the checkpoint entry recording the state the restore replaced: restoring
	// it undoes the restore ("" when the entry could not be saved).
	UndoID string
}

// RestoreCheckpoint makes the project's files what they were at the checkpoint. Files changed
// outside pi-go since the session's last snapshot are not overwritten unless force: the error is then
// a *checkpoint.ConflictError listing them. The state replaced is recorded as a checkpoint entry
// (trigger "restore"), so the restore can be undone by restoring that one.
func (s *Session) RestoreCheckpoint(ctx context.Context, c CheckpointInfo, force bool) (RestoreResult, error) {
	if s.IsStreaming() || s.IsBashRunning() {
		return RestoreResult{}, ErrRestoreWhileBusy
	}
	store, err := s.checkpointStore()
	if err != nil {
		return RestoreResult{}, err
	}
	start := time.Now()
	res, err := store.Restore(ctx, c.Commit, checkpoint.RestoreOptions{SessionID: s.Store().SessionID(), Force: force})
	if err != nil {
		return RestoreResult{RestoreResult: res}, err
	}
	undoID, err := s.Store().AppendCustomEntry(CheckpointCustomType, CheckpointData{
		Commit: res.Undo.Commit, EntryID: s.Store().LeafID(), Trigger: TriggerRestore,
		Changes: res.Undo.Changes, Skipped: res.Undo.Skipped, RestoredTo: c.Commit,
		SnapshotMs: time.Since(start).Milliseconds(),
	})
	s.appendEntry(undoID, err)
	if err != nil {
		undoID = ""
	}
	s.sync()
	return RestoreResult{RestoreResult: res, UndoID: undoID}, nil
}
