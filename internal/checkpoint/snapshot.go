package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// Snapshot records the current state of the working tree. Only files whose stat changed since the
// previous snapshot are read, and git is asked about ignore rules only for paths not seen before, so
// a turn that changed a few files costs a walk of the tree's stat data and no git process.
func (s *Store) Snapshot(ctx context.Context, opts SnapshotOptions) (Checkpoint, error) {
	var cp Checkpoint
	err := s.locked(func() error {
		var err error
		cp, err = s.snapshotLocked(ctx, opts)
		return err
	})
	return cp, err
}

// manifestName is the manifest's base file in the store, manifestLogName its log.
const (
	manifestName    = "manifest"
	manifestLogName = "manifest.log"
)

// manifestLocked is the manifest of the store's latest snapshot: this process's own, the file's (when
// another process snapshotted since), or an empty one to be built from scratch (fresh is then true).
func (s *Store) manifestLocked(head string) (m *manifest, fresh bool) {
	if s.man != nil && s.man.commit == head && head != "" {
		return s.man, false
	}
	if m, err := loadManifest(filepath.Join(s.dir, manifestName), filepath.Join(s.dir, manifestLogName)); err == nil && m.commit == head && head != "" {
		return m, false
	}
	// A store written before manifests existed kept a git index: it is of no use any more.
	_ = os.Remove(filepath.Join(s.dir, "index"))
	return newManifest(), true
}

func (s *Store) snapshotLocked(ctx context.Context, opts SnapshotOptions) (Checkpoint, error) {
	parent, parentTree := s.readHead()
	m, fresh := s.manifestLocked(parent)
	// Until the snapshot is recorded, the manifest in memory may be half updated: drop it on failure.
	s.man = nil
	sc := &scan{s: s, m: m, w: s.objects, start: time.Now()}
	if err := sc.run(ctx); err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoints: snapshot: %w", err)
	}
	settle(m.root)
	treeID, empty, err := sc.storeTrees(m.root)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoints: snapshot: %w", err)
	}
	if empty {
		if treeID, err = s.objects.writeTree(nil); err != nil {
			return Checkpoint{}, fmt.Errorf("checkpoints: snapshot: %w", err)
		}
	}
	tree := treeID.String()
	cp := Checkpoint{Parent: parent, Time: time.Now(), Skipped: sc.skipped}
	if parent != "" && tree == parentTree {
		// Nothing changed since the previous snapshot: it stands for this one too.
		cp.Commit = parent
		if err := s.saveManifestLocked(m, parent, sc.touched()); err != nil {
			return Checkpoint{}, err
		}
		return cp, s.recordLocked(cp.Commit, opts.SessionID, false)
	}
	msg := opts.Message
	if msg == "" {
		msg = "checkpoint"
	}
	// Commits have no parents, so pruning a checkpoint's ref frees what only it holds; the order of
	// snapshots is kept by the callers' records (and Checkpoint.Parent).
	commitID, err := s.objects.writeCommit(treeID, cp.Time, msg)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoints: snapshot: %w", err)
	}
	cp.Commit = commitID.String()
	if err := s.recordLocked(cp.Commit, opts.SessionID, true); err != nil {
		return Checkpoint{}, err
	}
	// The manifest goes before the head file: should the head not be written, the manifest names
	// another commit and is not trusted.
	if err := s.saveManifestLocked(m, cp.Commit, true); err != nil {
		return Checkpoint{}, err
	}
	if err := s.writeHead(cp.Commit, tree); err != nil {
		return Checkpoint{}, err
	}
	switch {
	case parent == "":
	case fresh:
		// Built from scratch, the manifest knew nothing of the parent: ask git what differs.
		if cp.Changes, err = s.diffLocked(ctx, parent, cp.Commit); err != nil {
			return Checkpoint{}, err
		}
	default:
		cp.Changes = sc.changes
	}
	return cp, nil
}

// saveManifestLocked records m as the manifest of commit, in memory and (when changed) in its file.
func (s *Store) saveManifestLocked(m *manifest, commit string, changed bool) error {
	changed = changed || m.commit != commit
	m.commit = commit
	if changed {
		if err := m.saveChanges(filepath.Join(s.dir, manifestName), filepath.Join(s.dir, manifestLogName)); err != nil {
			return fmt.Errorf("checkpoints: save the manifest: %w", err)
		}
	}
	s.man = m
	return nil
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
