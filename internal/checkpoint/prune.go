package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Default limits of the store (settings checkpointLimits).
const (
	DefaultMaxAge       = 30 * 24 * time.Hour
	DefaultMaxStoreSize = 1 << 30
)

// Limits bound each project's store.
type Limits struct {
	// MaxAge: checkpoints older than this are deleted (0: DefaultMaxAge; <0: no age limit).
	MaxAge time.Duration
	// MaxStoreSize: a store larger than this many bytes loses its oldest checkpoints until it fits
	// (0: DefaultMaxStoreSize; <0: no size limit).
	MaxStoreSize int64
	// Git is the git binary ("": looked up on PATH).
	Git string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Grace: checkpoints and objects younger than this are kept, so that snapshots taken while the
	// store is being collected stay whole; collecting then runs without the store's lock, and
	// snapshots never wait for it (0: DefaultGrace). Below zero there is no grace, and collecting
	// holds the lock: snapshots wait for it to end.
	Grace time.Duration
}

// DefaultGrace is the default of Limits.Grace.
const DefaultGrace = time.Hour

// PruneReport says what pruning one store did.
type PruneReport struct {
	Dir     string
	Project string // the project directory the store belongs to
	Deleted int    // checkpoints deleted
	Kept    int    // checkpoints kept
	Before  int64  // bytes before
	After   int64  // bytes after
	Removed bool   // the whole store went: its project is gone and no checkpoint was left
}

// Prune applies limits to every store under agentDir.
func Prune(ctx context.Context, agentDir string, limits Limits) ([]PruneReport, error) {
	entries, err := os.ReadDir(StoresDir(agentDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	binary := limits.Git
	if binary == "" {
		if binary, err = exec.LookPath("git"); err != nil {
			return nil, ErrGitMissing
		}
	}
	var reports []PruneReport
	for _, e := range entries {
		dir := filepath.Join(StoresDir(agentDir), e.Name())
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "git", "HEAD")); err != nil {
			continue
		}
		r, err := pruneStore(ctx, binary, dir, limits)
		if err != nil {
			return reports, err
		}
		reports = append(reports, r)
	}
	return reports, nil
}

// Prune applies limits to this store alone.
func (s *Store) Prune(ctx context.Context, limits Limits) (PruneReport, error) {
	return pruneStore(ctx, s.git.path, s.dir, limits)
}

type refInfo struct {
	name string
	time time.Time
}

func pruneStore(ctx context.Context, binary, dir string, limits Limits) (PruneReport, error) {
	now := time.Now
	if limits.Now != nil {
		now = limits.Now
	}
	maxAge, maxSize, grace := limits.MaxAge, limits.MaxStoreSize, limits.Grace
	if maxAge == 0 {
		maxAge = DefaultMaxAge
	}
	if maxSize == 0 {
		maxSize = DefaultMaxStoreSize
	}
	if grace == 0 {
		grace = DefaultGrace
	}
	project, _ := os.ReadFile(filepath.Join(dir, "project"))
	r := PruneReport{Dir: dir, Project: strings.TrimSpace(string(project))}
	g := newGit(binary, filepath.Join(dir, "git"), "", filepath.Join(dir, "index"))
	lock := filepath.Join(dir, "lock")
	if grace < 0 {
		// No grace: the whole pruning holds the lock (nothing may write the store meanwhile).
		unlock, err := lockFile(lock)
		if err != nil {
			return r, fmt.Errorf("checkpoints: lock %s: %w", dir, err)
		}
		defer unlock()
		lock = ""
	}
	// withLock runs fn holding the store's lock, unless the whole pruning holds it.
	withLock := func(fn func() error) error {
		if lock == "" {
			return fn()
		}
		unlock, err := lockFile(lock)
		if err != nil {
			return fmt.Errorf("checkpoints: lock %s: %w", dir, err)
		}
		defer unlock()
		return fn()
	}
	r.Before = dirSize(dir)
	startHead, _ := readHeadFile(dir)
	// protected: the head snapshot (when pruning started and now) matches the manifest snapshots
	// build on, and young checkpoints may be in use by a snapshot running alongside.
	protected := func(ref refInfo) bool {
		head, _ := readHeadFile(dir)
		return strings.HasSuffix(ref.name, "/"+head) || strings.HasSuffix(ref.name, "/"+startHead) ||
			grace > 0 && now().Sub(ref.time) < grace
	}
	var keep []refInfo
	err := withLock(func() error {
		refs, err := listRefs(ctx, g)
		if err != nil {
			return err
		}
		var drop []refInfo
		for _, ref := range refs {
			if maxAge > 0 && now().Sub(ref.time) > maxAge && !protected(ref) {
				drop = append(drop, ref)
			} else {
				keep = append(keep, ref)
			}
		}
		if err := deleteRefs(ctx, g, drop); err != nil {
			return err
		}
		r.Deleted = countCheckpoints(drop)
		return nil
	})
	if err != nil {
		return r, err
	}
	// Collecting also packs the loose objects snapshots write, the bulk of a store's growth.
	if err := collect(ctx, g, grace); err != nil {
		return r, err
	}
	size := dirSize(dir)
	// Over the size limit: drop the oldest quarter of what is left, collect, and measure again.
	for maxSize > 0 && size > maxSize && len(keep) > 0 {
		sort.Slice(keep, func(i, j int) bool { return keep[i].time.Before(keep[j].time) })
		n := max(1, len(keep)/4)
		var batch, rest []refInfo
		for _, ref := range keep {
			if len(batch) < n && !protected(ref) {
				batch = append(batch, ref)
			} else {
				rest = append(rest, ref)
			}
		}
		if len(batch) == 0 {
			break
		}
		if err := withLock(func() error { return deleteRefs(ctx, g, batch) }); err != nil {
			return r, err
		}
		r.Deleted += countCheckpoints(batch)
		keep = rest
		if err := collect(ctx, g, grace); err != nil {
			return r, err
		}
		size = dirSize(dir)
	}
	r.Kept = countCheckpoints(keep)
	r.After = size
	if r.Kept == 0 && r.Project != "" {
		if _, err := os.Stat(r.Project); errors.Is(err, fs.ErrNotExist) {
			if err := os.RemoveAll(dir); err != nil {
				return r, fmt.Errorf("checkpoints: remove %s: %w", dir, err)
			}
			r.Removed, r.After = true, 0
		}
	}
	return r, nil
}

func listRefs(ctx context.Context, g *git) ([]refInfo, error) {
	out, err := g.run(ctx, nil, "for-each-ref", "--format=%(refname) %(committerdate:unix)", checkpointRefs, knownRefs)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	var refs []refInfo
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, ts, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		sec, _ := strconv.ParseInt(ts, 10, 64)
		refs = append(refs, refInfo{name: name, time: time.Unix(sec, 0)})
	}
	return refs, nil
}

func countCheckpoints(refs []refInfo) int {
	n := 0
	for _, r := range refs {
		if strings.HasPrefix(r.name, checkpointRefs) {
			n++
		}
	}
	return n
}

func deleteRefs(ctx context.Context, g *git, refs []refInfo) error {
	if len(refs) == 0 {
		return nil
	}
	var b strings.Builder
	for _, r := range refs {
		fmt.Fprintf(&b, "delete %s\n", r.name)
	}
	if _, err := g.run(ctx, strings.NewReader(b.String()), "update-ref", "--stdin"); err != nil {
		return fmt.Errorf("checkpoints: prune: %w", err)
	}
	return nil
}

// collect deletes the objects no ref reaches any more, except those younger than grace, and packs
// the rest. Refs are not packed: snapshots write theirs as files, which git's packing of refs could
// race with. Cancelling ctx kills git's whole process group (gc runs repack and prune).
func collect(ctx context.Context, g *git, grace time.Duration) error {
	prune := "now"
	if grace > 0 {
		prune = strconv.FormatInt(int64(grace.Seconds()), 10) + ".seconds.ago"
	}
	if _, err := g.run(ctx, nil, "-c", "gc.packRefs=false", "gc", "--prune="+prune, "--quiet"); err != nil {
		return fmt.Errorf("checkpoints: prune: %w", err)
	}
	return nil
}

// readHeadFile reads a store's head file (see Store.readHead).
func readHeadFile(dir string) (commit, tree string) {
	data, err := os.ReadFile(filepath.Join(dir, "head"))
	if err != nil {
		return "", ""
	}
	commit, tree, _ = strings.Cut(strings.TrimSpace(string(data)), " ")
	return commit, tree
}

// dirSize is the total size of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// pruneStamp is the file whose time says when the store was last pruned.
const pruneStamp = "pruned"

// PruneIfDue prunes the store when its last pruning (or its creation) is older than every; pruned
// says whether it ran.
func (s *Store) PruneIfDue(ctx context.Context, limits Limits, every time.Duration) (r PruneReport, pruned bool, err error) {
	stamp := filepath.Join(s.dir, pruneStamp)
	if info, err := os.Stat(stamp); err == nil && time.Since(info.ModTime()) < every {
		return r, false, nil
	}
	if r, err = s.Prune(ctx, limits); err != nil {
		return r, true, err
	}
	if err := os.WriteFile(stamp, nil, 0o600); err != nil {
		return r, true, fmt.Errorf("checkpoints: %w", err)
	}
	now := time.Now()
	return r, true, os.Chtimes(stamp, now, now)
}
