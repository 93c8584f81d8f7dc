package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ConflictError lists files changed outside pi-go since the session's last snapshot that a restore
// would overwrite or delete. Nothing was changed; Undo is the snapshot of the current state taken
// before the check.
type ConflictError struct {
	Paths []string
	Undo  Checkpoint
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%d file(s) changed outside pi-go since the last checkpoint would be overwritten: %s",
		len(e.Paths), strings.Join(e.Paths, ", "))
}

// RestoreOptions control a restore.
type RestoreOptions struct {
	// SessionID names the session whose last known state outside changes are measured against
	// ("": no conflict check).
	SessionID string
	// Force overwrites files changed outside pi-go.
	Force bool
}

// RestoreResult says what a restore did.
type RestoreResult struct {
	// Undo is the snapshot of the working tree taken just before the restore: restoring it undoes
	// the restore.
	Undo Checkpoint
	// Changed are the files the restore wrote or deleted, with their status relative to the state
	// before it ("added": the file came back).
	Changed []Change
	// After is the snapshot taken once the files were restored.
	After Checkpoint
}

// Restore makes the working tree match the snapshot target: files are written with the snapshot's
// bytes, executable bit and symlinks, and files the snapshot does not have are deleted (except those a
// snapshot leaves out: ignored and oversized files are never touched). It first snapshots the current
// state (RestoreResult.Undo), then, for a session, refuses with *ConflictError when files changed
// outside pi-go since the session's last snapshot would be overwritten, unless opts.Force.
func (s *Store) Restore(ctx context.Context, target string, opts RestoreOptions) (RestoreResult, error) {
	var res RestoreResult
	err := s.locked(func() error {
		if err := s.verifyLocked(ctx, target); err != nil {
			return err
		}
		undo, err := s.snapshotLocked(ctx, SnapshotOptions{Message: "before restoring " + target})
		if err != nil {
			return err
		}
		res.Undo = undo
		changes, err := s.diffLocked(ctx, undo.Commit, target)
		if err != nil {
			return err
		}
		if opts.SessionID != "" && !opts.Force {
			conflicts, err := s.conflictsLocked(ctx, opts.SessionID, undo.Commit, changes)
			if err != nil {
				return err
			}
			if len(conflicts) > 0 {
				return &ConflictError{Paths: conflicts, Undo: undo}
			}
		}
		if err := s.applyLocked(ctx, target, changes); err != nil {
			return err
		}
		// The restore's changes are the reverse of the diff from the current state to the target.
		res.Changed = changes
		after, err := s.snapshotLocked(ctx, SnapshotOptions{Message: "restored " + target, SessionID: opts.SessionID})
		if err != nil {
			return err
		}
		res.After = after
		return nil
	})
	return res, err
}

// Conflicts lists the files a restore of target would refuse to overwrite for the session: changed
// outside pi-go since its last snapshot and different in target. It takes a snapshot of the
// current state to compare (cheap when little changed).
func (s *Store) Conflicts(ctx context.Context, sessionID, target string) ([]string, error) {
	var conflicts []string
	err := s.locked(func() error {
		if err := s.verifyLocked(ctx, target); err != nil {
			return err
		}
		cur, err := s.snapshotLocked(ctx, SnapshotOptions{Message: "conflict check"})
		if err != nil {
			return err
		}
		changes, err := s.diffLocked(ctx, cur.Commit, target)
		if err != nil {
			return err
		}
		conflicts, err = s.conflictsLocked(ctx, sessionID, cur.Commit, changes)
		return err
	})
	return conflicts, err
}

// conflictsLocked intersects the files changed since the session's last known state with changes.
func (s *Store) conflictsLocked(ctx context.Context, sessionID, current string, changes []Change) ([]string, error) {
	if err := checkSessionID(sessionID); err != nil {
		return nil, err
	}
	known, err := s.git.runLine(ctx, nil, "rev-parse", "-q", "--verify", knownRefs+sessionID)
	if err != nil || known == "" || known == current {
		// A session that never took a snapshot knows of no state, so nothing counts as outside.
		return nil, nil
	}
	outside, err := s.diffLocked(ctx, known, current)
	if err != nil {
		return nil, err
	}
	touched := make(map[string]bool, len(changes))
	for _, c := range changes {
		touched[c.Path] = true
	}
	var conflicts []string
	for _, c := range outside {
		if touched[c.Path] {
			conflicts = append(conflicts, c.Path)
		}
	}
	return conflicts, nil
}

// applyLocked writes target's version of each changed path: deletions first (a file may give way to
// a directory of the same name), then the rest through a scratch index holding target, so git checks
// out the exact blobs, modes and links.
func (s *Store) applyLocked(ctx context.Context, target string, changes []Change) error {
	// changes run from the current state to target: "deleted" files go, the others are written.
	var write, removed []string
	for _, c := range changes {
		if c.Status == "deleted" {
			removed = append(removed, c.Path)
		} else {
			write = append(write, c.Path)
		}
	}
	for _, p := range removed {
		full := filepath.Join(s.project, filepath.FromSlash(p))
		if err := os.Remove(full); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("checkpoints: restore: %w", err)
		}
		removeEmptyParents(s.project, filepath.Dir(full))
	}
	if len(write) == 0 {
		return nil
	}
	scratch := filepath.Join(s.dir, "restore-index")
	defer os.Remove(scratch)
	env := []string{"GIT_INDEX_FILE=" + scratch}
	if _, err := s.git.runEnv(ctx, env, nil, "read-tree", target); err != nil {
		return fmt.Errorf("checkpoints: restore: %w", err)
	}
	// A directory standing where target has a file: checkout-index cannot replace it, and the
	// files in it that target lacks were deleted above, so what remains is ignored content.
	for _, p := range write {
		full := filepath.Join(s.project, filepath.FromSlash(p))
		if info, err := os.Lstat(full); err == nil && info.IsDir() {
			return fmt.Errorf("checkpoints: restore: %s is a directory now (holding files the checkpoint leaves out); move it away and retry", p)
		}
	}
	// Snapshots keep only the executable bit (as git does): a file that is still there keeps its
	// other permission bits (a 0600 file stays private), taking the snapshot's executable bit.
	kept := map[string]os.FileMode{}
	for _, p := range write {
		if info, err := os.Lstat(filepath.Join(s.project, filepath.FromSlash(p))); err == nil && info.Mode().IsRegular() {
			kept[p] = info.Mode().Perm()
		}
	}
	if _, err := s.git.runEnv(ctx, env, nulList(write), "checkout-index", "-f", "-z", "--stdin"); err != nil {
		return fmt.Errorf("checkpoints: restore: %w", err)
	}
	for p, perm := range kept {
		full := filepath.Join(s.project, filepath.FromSlash(p))
		info, err := os.Lstat(full)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		want := perm &^ 0o111
		if info.Mode().Perm()&0o100 != 0 {
			want |= (perm & 0o444) >> 2 // executable wherever it is readable
		}
		if want != info.Mode().Perm() {
			if err := os.Chmod(full, want); err != nil {
				return fmt.Errorf("checkpoints: restore: %w", err)
			}
		}
	}
	return nil
}

// removeEmptyParents removes dir and its parents while they are empty, stopping at root.
func removeEmptyParents(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// verifyLocked checks that commit is a snapshot of this store.
func (s *Store) verifyLocked(ctx context.Context, commit string) error {
	if !isHex(commit) {
		return fmt.Errorf("checkpoints: %q: %w", commit, errNoCheckpoint)
	}
	if _, err := s.git.runLine(ctx, nil, "rev-parse", "-q", "--verify", commit+"^{commit}"); err != nil {
		return fmt.Errorf("checkpoints: %s: %w", commit, errNoCheckpoint)
	}
	return nil
}

func isHex(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// Diff lists the files that differ between two snapshots, from → to ("added": in to only). One git
// process: an unknown snapshot is git's error.
func (s *Store) Diff(ctx context.Context, from, to string) ([]Change, error) {
	if !isHex(from) || !isHex(to) {
		return nil, fmt.Errorf("checkpoints: %q, %q: %w", from, to, errNoCheckpoint)
	}
	var changes []Change
	err := s.locked(func() error {
		var err error
		changes, err = s.diffLocked(ctx, from, to)
		return err
	})
	return changes, err
}

// Held lists the snapshots the store holds (those not pruned), with one git process.
func (s *Store) Held(ctx context.Context) (map[string]bool, error) {
	held := map[string]bool{}
	err := s.locked(func() error {
		out, err := s.git.run(ctx, nil, "for-each-ref", "--format=%(objectname)", checkpointRefs)
		if err != nil {
			return fmt.Errorf("checkpoints: %w", err)
		}
		for _, id := range strings.Fields(string(out)) {
			held[id] = true
		}
		return nil
	})
	return held, err
}

// DiffPairs is Diff for many pairs of snapshots ({from, to}), with one git process for them all.
func (s *Store) DiffPairs(ctx context.Context, pairs [][2]string) ([][]Change, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	var in strings.Builder
	for _, p := range pairs {
		if !isHex(p[0]) || !isHex(p[1]) {
			return nil, fmt.Errorf("checkpoints: %q, %q: %w", p[0], p[1], errNoCheckpoint)
		}
		// diff-tree --stdin takes a commit and then its parents: to comes first.
		in.WriteString(p[1] + " " + p[0] + "\n")
	}
	var out []byte
	err := s.locked(func() error {
		var err error
		// --always: every pair prints its header (its first commit), even with no changes.
		out, err = s.git.run(ctx, strings.NewReader(in.String()),
			"diff-tree", "--stdin", "--always", "-r", "-z", "--no-renames", "--name-status")
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoints: diff: %w", err)
	}
	diffs := make([][]Change, 0, len(pairs))
	fields := splitNul(out)
	for i := 0; i < len(fields); {
		// A status is one letter; a header is a commit id, starting the next pair's changes.
		if len(fields[i]) > 1 {
			diffs = append(diffs, nil)
			i++
			continue
		}
		if len(diffs) == 0 || i+1 >= len(fields) {
			return nil, fmt.Errorf("checkpoints: diff: unexpected git output %q", out)
		}
		last := &diffs[len(diffs)-1]
		*last = append(*last, Change{Path: fields[i+1], Status: changeStatus(fields[i])})
		i += 2
	}
	if len(diffs) != len(pairs) {
		return nil, fmt.Errorf("checkpoints: diff: git answered %d of %d pairs", len(diffs), len(pairs))
	}
	return diffs, nil
}

func (s *Store) diffLocked(ctx context.Context, from, to string) ([]Change, error) {
	out, err := s.git.run(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: diff: %w", err)
	}
	fields := splitNul(out)
	var changes []Change
	for i := 0; i+1 < len(fields); i += 2 {
		changes = append(changes, Change{Path: fields[i+1], Status: changeStatus(fields[i])})
	}
	return changes, nil
}

// changeStatus is the Change.Status of a diff-tree --name-status letter.
func changeStatus(letter string) string {
	switch letter {
	case "A":
		return "added"
	case "D":
		return "deleted"
	}
	return "modified"
}

// Patch is the unified diff between two snapshots (from → to), for previews; paths limits it to
// those files (none: every file).
func (s *Store) Patch(ctx context.Context, from, to string, paths ...string) (string, error) {
	var patch string
	err := s.locked(func() error {
		for _, c := range []string{from, to} {
			if err := s.verifyLocked(ctx, c); err != nil {
				return err
			}
		}
		args := append([]string{"diff-tree", "-r", "-p", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", from, to, "--"}, paths...)
		out, err := s.git.run(ctx, nil, args...)
		patch = string(out)
		return err
	})
	return patch, err
}

// Has reports whether the store holds the snapshot commit.
func (s *Store) Has(ctx context.Context, commit string) bool {
	return s.locked(func() error { return s.verifyLocked(ctx, commit) }) == nil
}

// Known is the last snapshot the session took ("" when it took none).
func (s *Store) Known(ctx context.Context, sessionID string) (string, error) {
	if err := checkSessionID(sessionID); err != nil {
		return "", err
	}
	var commit string
	err := s.locked(func() error {
		commit, _ = s.git.runLine(ctx, nil, "rev-parse", "-q", "--verify", knownRefs+sessionID)
		return nil
	})
	return commit, err
}
