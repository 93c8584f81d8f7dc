package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Checkpoint is one snapshot of the working tree.
type Checkpoint struct {
	// Commit names the snapshot in the store.
	Commit string
	// Parent is the store's previous snapshot ("" for the first).
	Parent string
	// Time is when it was taken.
	Time time.Time
	// Changes are the files that differ from Parent (nil for the first snapshot, or when nothing
	// changed: then Commit is Parent's commit, reused).
	Changes []Change
	// Skipped are the files left out for being larger than the size limit.
	Skipped []string
}

// Change is one file that differs between two snapshots.
type Change struct {
	Path string `json:"path"`
	// Status is "added", "modified" or "deleted" (a file that became a symlink or the reverse is
	// "modified").
	Status string `json:"status"`
}

// SnapshotOptions describe one snapshot.
type SnapshotOptions struct {
	// Message is stored in the snapshot's commit (for people reading the store with git log).
	Message string
	// SessionID, when set, records the snapshot as the last state that session knows of: a later
	// Restore for the session reports files changed since as conflicts.
	SessionID string
}

// Snapshot records the current state of the working tree. Only files changed since the previous
// snapshot are read (git's stat cache), so its cost grows with the change, not the tree.
func (s *Store) Snapshot(ctx context.Context, opts SnapshotOptions) (Checkpoint, error) {
	var cp Checkpoint
	err := s.locked(func() error {
		var err error
		cp, err = s.snapshotLocked(ctx, opts)
		return err
	})
	return cp, err
}

func (s *Store) snapshotLocked(ctx context.Context, opts SnapshotOptions) (Checkpoint, error) {
	st, err := s.stageLocked(ctx)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoints: snapshot: %w", err)
	}
	parent, parentTree := s.readHead()
	cp := Checkpoint{Parent: parent, Time: time.Now(), Skipped: st.skipped}
	if parent != "" && len(st.changes) == 0 && !st.indexAhead {
		// Nothing changed since the previous snapshot: it stands for this one too.
		cp.Commit = parent
		return cp, s.recordLocked(cp.Commit, opts.SessionID, false)
	}
	tree, err := s.git.runLine(ctx, nil, "write-tree")
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoints: snapshot: %w", err)
	}
	if parent != "" && tree == parentTree {
		cp.Commit = parent
		return cp, s.recordLocked(cp.Commit, opts.SessionID, false)
	}
	msg := opts.Message
	if msg == "" {
		msg = "checkpoint"
	}
	// Commits have no parents, so pruning a checkpoint's ref frees what only it holds; the order of
	// snapshots is kept by the callers' records (and Checkpoint.Parent).
	args := []string{"commit-tree", tree, "-m", msg}
	date := fmt.Sprintf("%d +0000", cp.Time.Unix())
	out, err := s.git.runEnv(ctx, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, nil, args...)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoints: snapshot: %w", err)
	}
	cp.Commit = strings.TrimSpace(string(out))
	if err := s.recordLocked(cp.Commit, opts.SessionID, true); err != nil {
		return Checkpoint{}, err
	}
	if err := s.writeHead(cp.Commit, tree); err != nil {
		return Checkpoint{}, err
	}
	switch {
	case parent == "":
	case st.indexAhead:
		// The index held changes of its own (an interrupted snapshot): ask git what differs.
		if cp.Changes, err = s.diffLocked(ctx, parent, cp.Commit); err != nil {
			return Checkpoint{}, err
		}
	default:
		cp.Changes = st.changes
	}
	return cp, nil
}

// staged is what stageLocked did.
type staged struct {
	// changes are the files that differ from the index as it was, which is the previous snapshot
	// unless indexAhead.
	changes []Change
	skipped []string
	// indexAhead: the index differed from the previous snapshot before staging.
	indexAhead bool
}

// stageLocked brings the store's index up to the working tree: what git status reports as changed
// or untracked is added, removed, or (above the size limit) left out.
func (s *Store) stageLocked(ctx context.Context) (staged, error) {
	var st staged
	out, err := s.git.run(ctx, nil, "status", "--porcelain=v2", "-z", "--untracked-files=all",
		"--no-renames", "--ignore-submodules=all")
	if err != nil {
		return st, err
	}
	var update, drop []string
	for _, rec := range splitNul(out) {
		var path, status string
		switch {
		case strings.HasPrefix(rec, "? "):
			path, status = rec[2:], "added"
			if strings.HasSuffix(path, "/") {
				continue // a nested repository: git keeps out of it
			}
		case strings.HasPrefix(rec, "1 "):
			// "1 XY sub mH mI mW hH hI path": X is the index against HEAD (the previous
			// snapshot), Y the work tree against the index.
			fields := strings.SplitN(rec, " ", 9)
			if len(fields) != 9 {
				continue
			}
			if fields[1][0] != '.' {
				st.indexAhead = true
			}
			if fields[1][1] == '.' {
				continue
			}
			path, status = fields[8], "modified"
			if fields[1][1] == 'D' {
				update = append(update, path)
				st.changes = append(st.changes, Change{Path: path, Status: "deleted"})
				continue
			}
		default:
			if !strings.HasPrefix(rec, "#") {
				st.indexAhead = true // unmerged or renamed entries: not ours, let git diff tell
			}
			continue
		}
		if s.tooLarge(path) {
			st.skipped = append(st.skipped, path)
			if status == "modified" {
				drop = append(drop, path)
				st.changes = append(st.changes, Change{Path: path, Status: "deleted"})
			}
			continue
		}
		update = append(update, path)
		st.changes = append(st.changes, Change{Path: path, Status: status})
	}
	slices.SortFunc(st.changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	if len(update) > 0 {
		if _, err := s.git.run(ctx, nulList(update), "update-index", "--add", "--remove", "--replace", "-z", "--stdin"); err != nil {
			return st, err
		}
	}
	if len(drop) > 0 {
		if _, err := s.git.run(ctx, nulList(drop), "update-index", "--force-remove", "-z", "--stdin"); err != nil {
			return st, err
		}
	}
	return st, nil
}

// tooLarge reports whether path is a regular file above the size limit.
func (s *Store) tooLarge(path string) bool {
	if s.maxFileSize < 0 {
		return false
	}
	info, err := os.Lstat(filepath.Join(s.project, filepath.FromSlash(path)))
	return err == nil && info.Mode().IsRegular() && info.Size() > s.maxFileSize
}

// recordLocked keeps commit reachable and, for a session, records it as the last state it knows of;
// with head, the store's HEAD moves to it as well (git status compares the index with HEAD). The
// refs are written as git's loose ref files, under the store's lock, which saves a git process per
// snapshot.
func (s *Store) recordLocked(commit, sessionID string, head bool) error {
	refs := []string{checkpointRefs + commit}
	if sessionID != "" {
		if err := checkSessionID(sessionID); err != nil {
			return err
		}
		refs = append(refs, knownRefs+sessionID)
	}
	if head {
		refs = append(refs, "HEAD")
	}
	for _, ref := range refs {
		if err := writeFileAtomic(filepath.Join(s.git.gitDir, filepath.FromSlash(ref)), []byte(commit+"\n")); err != nil {
			return fmt.Errorf("checkpoints: record %s: %w", commit, err)
		}
	}
	return nil
}

// checkSessionID refuses ids that are not safe as one ref name component.
func checkSessionID(id string) error {
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("checkpoints: session id %q: only letters, digits, - and _ are allowed", id)
		}
	}
	if id == "" {
		return fmt.Errorf("checkpoints: empty session id")
	}
	return nil
}

// readHead returns the store's latest snapshot and its tree from the head file ("" when none).
func (s *Store) readHead() (commit, tree string) { return readHeadFile(s.dir) }

// writeHead records the latest snapshot and its tree, so the next snapshot can tell "unchanged"
// without asking git.
func (s *Store) writeHead(commit, tree string) error {
	if err := writeFileAtomic(filepath.Join(s.dir, "head"), []byte(commit+" "+tree+"\n")); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	return nil
}

// writeFileAtomic replaces path with data through a temporary file beside it, creating the folder.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
