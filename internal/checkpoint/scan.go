package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// racyWindow: a file whose last change is this close to the moment it was read is read again at the
// next snapshot (file systems with coarse timestamps could hide a second change in the same tick).
const racyWindow = 2 * time.Second

// maxPathspecs bounds the paths one ignore query names; beyond it the whole tree is queried.
const maxPathspecs = 256

// scan brings a manifest up to the working tree: the files whose stat changed are read and stored as
// blobs, new paths are checked against git's ignore rules, and the changes are collected.
type scan struct {
	s       *Store
	m       *manifest
	w       *objectWriter
	start   time.Time
	changes []Change
	skipped []string
	jobs    []*hashJob
	pending []pendingPath
	// gitignore: a .gitignore file was added, changed or removed, so what is ignored must be asked
	// again for the whole tree.
	gitignore bool
	// dirty: the manifest changed (its file must be written again).
	dirty bool
	// queriedRoots are the repositories (the project "", nested ones by their path) whose whole
	// tree the ignored set covers since this scan's whole-tree query: new paths in them are taken
	// at once. Written only between walks.
	queriedRoots map[string]bool
	// excludes and excludesStat are the global excludes file now (see excludesState).
	excludes     string
	excludesStat fileStat

	// mu guards changes, jobs, pending, gitignore and dirty while folders are walked on several
	// goroutines (each folder's node belongs to the one goroutine walking it).
	mu sync.Mutex
	// fan holds a token per extra goroutine a walk may start (GOMAXPROCS-1 of them).
	fan chan struct{}
	// walking counts the walks running on goroutines of their own; walkErr is the first error.
	walking sync.WaitGroup
	walkErr error
}

// hashJob is a file to read and store: new (old nil) or with a changed stat.
type hashJob struct {
	node *dirNode
	name string
	rel  string
	old  *fileEntry
	// results
	entry fileEntry
	gone  bool // vanished or became something git does not store
	err   error
}

// pendingPath is a path not seen before, waiting for git to say whether it is ignored.
type pendingPath struct {
	node  *dirNode
	name  string
	rel   string
	isDir bool
}

// run updates the manifest; afterwards the scan's changes and skipped are set and every folder's
// tree is stored.
func (sc *scan) run(ctx context.Context) error {
	first := sc.m.commit == ""
	sc.excludes, sc.excludesStat = sc.excludesState(ctx)
	if !first && (sc.excludes != sc.m.excludes || sc.excludesStat != sc.m.excludesStat) {
		// The user's global excludes changed: as for a .gitignore change, ask for the whole tree.
		sc.gitignore = true
	}
	if first {
		sc.dirty = true
		// Nothing is known: ask git once for everything ignored, then take every other file.
		if err := sc.queryIgnored(ctx, nil, true); err != nil {
			return err
		}
	}
	if err := sc.walkTree(ctx, func() { sc.walk(ctx, sc.m.root, "", false, first) }); err != nil {
		return err
	}
	if err := sc.hashAll(ctx); err != nil {
		return err
	}
	for _, p := range sc.pending {
		if p.name == ".gitignore" {
			sc.gitignore = true
		}
	}
	if sc.gitignore && !first {
		// The rules changed: ask again for the whole tree, and walk it again so that paths ignored
		// until now are taken.
		if err := sc.queryIgnored(ctx, nil, true); err != nil {
			return err
		}
		// The walk lists every folder again, the pending paths' too: it takes them.
		sc.pending = nil
		if err := sc.walkTree(ctx, func() { sc.walk(ctx, sc.m.root, "", false, true) }); err != nil {
			return err
		}
	}
	// New paths wait for git's word on them; a nested repository met on the way adds a round, as
	// git answers for its paths only from inside it.
	for len(sc.pending) > 0 {
		pending := sc.pending
		sc.pending = nil
		paths := make([]string, len(pending))
		for i, p := range pending {
			paths[i] = p.rel
		}
		if err := sc.queryIgnored(ctx, paths, false); err != nil {
			return err
		}
		if err := sc.resolve(ctx, pending); err != nil {
			return err
		}
	}
	if err := sc.hashAll(ctx); err != nil {
		return err
	}
	slices.SortFunc(sc.changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(sc.skipped)
	return nil
}

// walkTree runs walk (the walk of the root) and every walk it hands to other goroutines, and returns
// the first error. Folders are walked on up to GOMAXPROCS goroutines: a turn's snapshot is one lstat
// per file, and the kernel's part of each is the cost, so the processors share it.
func (sc *scan) walkTree(ctx context.Context, walk func()) error {
	if sc.fan == nil {
		sc.fan = make(chan struct{}, max(runtime.GOMAXPROCS(0)-1, 0))
	}
	sc.walkErr = nil
	walk()
	sc.walking.Wait()
	if sc.walkErr == nil {
		sc.walkErr = ctx.Err()
	}
	return sc.walkErr
}

// walkChild walks the folder child of n: on a goroutine of its own when one is free, otherwise at once.
func (sc *scan) walkChild(ctx context.Context, child *dirNode, rel string, underIgnored, queried bool) {
	select {
	case sc.fan <- struct{}{}:
		sc.walking.Add(1)
		go func() {
			defer sc.walking.Done()
			defer func() { <-sc.fan }()
			sc.walk(ctx, child, rel, underIgnored, queried)
		}()
	default:
		sc.walk(ctx, child, rel, underIgnored, queried)
	}
}

// fail records the first error of the walks.
func (sc *scan) fail(err error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.walkErr == nil {
		sc.walkErr = err
	}
}

func (sc *scan) failed() bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.walkErr != nil
}

// walk compares the folder n (at rel) with the disk, recursively. underIgnored: n itself is ignored
// (known only because it held files before it was), so new paths in it are ignored too. queried:
// the ignored set already covers new paths under n, so they are taken at once instead of pending.
// A folder whose content may have changed gets treeOK false (settle passes that up to its parents).
// Errors go to fail.
func (sc *scan) walk(ctx context.Context, n *dirNode, rel string, underIgnored, queried bool) {
	if err := ctx.Err(); err != nil || sc.failed() {
		return
	}
	d, err := os.Open(filepath.Join(sc.s.project, filepath.FromSlash(rel)))
	var entries []fs.DirEntry
	var dirStat fileStat
	statOK := false
	if err == nil {
		defer d.Close()
		if st, ok := statDir(d); ok {
			dirStat = st
			// A folder changed within the racy window may change again unseen: list it next time.
			statOK = max(dirStat.mtime, dirStat.ctime) < sc.start.Add(-sc.s.racyWindow).UnixNano()
		}
		if statOK && n.statOK && dirStat == n.stat && !queried {
			sc.walkKnown(ctx, d, n, rel, underIgnored)
			return
		}
		entries, err = d.ReadDir(-1)
	}
	listedBefore := n.stat != (fileStat{})
	n.stat, n.statOK, n.relist = dirStat, false, true
	if err == nil {
		// Trusted from the next walk on (its entries are all taken, dropped or pending by then).
		defer func() { n.statOK = statOK }()
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) && !isNotDir(err) {
		sc.fail(fmt.Errorf("checkpoints: read %s: %w", rel, err))
		return
	}
	// A nested repository (a folder holding a .git folder or file): its files are taken like any
	// others, but under its own ignore rules, which git applies only from inside it; its .git is
	// never read. A folder that becomes one or stops being one changes the rules under it, so
	// what is ignored is asked again for the whole tree.
	if root := rel != "" && slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == ".git" }); root != n.nested {
		n.nested, n.treeOK = root, false
		if listedBefore {
			sc.mu.Lock()
			sc.gitignore = true
			sc.mu.Unlock()
		}
	}
	if n.nested && !sc.queriedRoots[rel] {
		// The ignored set does not cover it yet: its new paths wait for a query of its own.
		queried = false
	}
	present := make(map[string]bool, len(entries))
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		present[name] = true
		childRel := joinRel(rel, name)
		ignored := underIgnored || sc.m.ignored[childRel]
		if e.IsDir() {
			if f := n.files[name]; f != nil {
				sc.dropFile(n, name, childRel) // a file became a folder
			}
			child := n.dirs[name]
			if child == nil {
				if ignored {
					continue
				}
				if !queried {
					sc.addPending(pendingPath{node: n, name: name, rel: childRel, isDir: true})
					n.treeOK = false
					continue
				}
				child = newDirNode()
				n.dirs[name] = child
			}
			sc.walkChild(ctx, child, childRel, ignored, queried)
			continue
		}
		if d := n.dirs[name]; d != nil {
			sc.dropDir(n, name, childRel) // a folder became a file
		}
		f := n.files[name]
		if f == nil {
			if ignored {
				continue
			}
			if !queried {
				sc.addPending(pendingPath{node: n, name: name, rel: childRel})
				n.treeOK = false
				continue
			}
		}
		if sc.check(d, n, name, rel, f) {
			n.treeOK = false
		}
	}
	for name := range n.files {
		if !present[name] {
			sc.dropFile(n, name, joinRel(rel, name))
		}
	}
	for name := range n.dirs {
		if !present[name] {
			sc.dropDir(n, name, joinRel(rel, name))
		}
	}
}

// walkKnown is walk for a folder whose entries are the ones known (its stat is unchanged): only
// their stat is checked.
func (sc *scan) walkKnown(ctx context.Context, d *os.File, n *dirNode, rel string, underIgnored bool) {
	for name, f := range n.files {
		if sc.check(d, n, name, rel, f) {
			n.treeOK = false
		}
	}
	for name, child := range n.dirs {
		childRel := joinRel(rel, name)
		sc.walkChild(ctx, child, childRel, underIgnored || sc.m.ignored[childRel], false)
	}
}

// settle passes "its tree must be computed again" (treeOK false) from folders up to their parents,
// once the walks (which ran on several goroutines) are done.
func settle(n *dirNode) bool {
	for _, child := range n.dirs {
		if !settle(child) {
			n.treeOK = false
		}
	}
	return n.treeOK
}

func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

// check (d: the open folder of the file, nil for none; dir: the folder's path) queues the file for
// reading when it is new (f nil), racy, or its stat or mode changed; it reports whether it did. The
// file's path is built only then: an unchanged file costs its lstat and nothing else.
func (sc *scan) check(d *os.File, n *dirNode, name, dir string, f *fileEntry) bool {
	if f != nil && !f.racy && d != nil {
		if st, mode, ok, err := statAt(d, name); err == nil && ok && mode == f.mode && st == f.stat {
			return false
		}
	}
	j := &hashJob{node: n, name: name, rel: joinRel(dir, name), old: f}
	sc.mu.Lock()
	sc.jobs = append(sc.jobs, j)
	sc.mu.Unlock()
	return true
}

func (sc *scan) addPending(p pendingPath) {
	sc.mu.Lock()
	sc.pending = append(sc.pending, p)
	sc.mu.Unlock()
}

// modeOf is git's mode for a file, and false for what git does not store (devices, sockets, pipes).
func modeOf(info fs.FileInfo) (uint32, bool) {
	switch m := info.Mode(); {
	case m&fs.ModeSymlink != 0:
		return modeSymlink, true
	case m.IsRegular():
		if m&0o100 != 0 {
			return modeExec, true
		}
		return modeFile, true
	}
	return 0, false
}

// dropFile removes a known file, recording it as deleted unless it was skipped (then it never was in
// a snapshot).
func (sc *scan) dropFile(n *dirNode, name, rel string) {
	f := n.files[name]
	delete(n.files, name)
	n.treeOK = false
	n.touch(name)
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.dirty = true
	if !f.skipped {
		sc.changes = append(sc.changes, Change{Path: rel, Status: "deleted"})
	}
	if name == ".gitignore" {
		sc.gitignore = true
	}
}

// dropDir removes a known folder and everything under it.
func (sc *scan) dropDir(n *dirNode, name, rel string) {
	sc.dropAll(n.dirs[name], rel)
	delete(n.dirs, name)
	n.treeOK = false
}

// dropAll removes everything under n.
func (sc *scan) dropAll(n *dirNode, rel string) {
	for name := range n.files {
		sc.dropFile(n, name, joinRel(rel, name))
	}
	for name := range n.dirs {
		sc.dropDir(n, name, joinRel(rel, name))
	}
}

// resolve takes the pending paths git did not report as ignored.
func (sc *scan) resolve(ctx context.Context, pending []pendingPath) error {
	return sc.walkTree(ctx, func() {
		for _, p := range pending {
			if sc.m.ignored[p.rel] {
				continue
			}
			if !p.isDir {
				sc.check(nil, p.node, p.name, path.Dir("/" + p.rel)[1:], nil)
				continue
			}
			child := newDirNode()
			p.node.dirs[p.name] = child
			sc.walkChild(ctx, child, p.rel, false, true)
		}
	})
}

// hashAll reads and stores the queued files, on as many goroutines as there are processors (a first
// snapshot reads every file), then applies the results in queue order.
func (sc *scan) hashAll(ctx context.Context) error {
	jobs := sc.jobs
	sc.jobs = nil
	if len(jobs) == 0 {
		return nil
	}
	sc.dirty = true
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	next := make(chan *hashJob)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				sc.hash(j)
			}
		}()
	}
	var err error
	for _, j := range jobs {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- j
	}
	close(next)
	wg.Wait()
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if j.err != nil {
			return fmt.Errorf("checkpoints: %s: %w", j.rel, j.err)
		}
		sc.apply(j)
	}
	return nil
}

// hash reads one file (its stat first, so a change while it is read shows next time) and stores it
// as a blob, unless it is above the size limit. A file that changes size while read is tried again.
func (sc *scan) hash(j *hashJob) {
	full := filepath.Join(sc.s.project, filepath.FromSlash(j.rel))
	for attempt := 0; ; attempt++ {
		st, mode, ok, err := statPath(full)
		if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
			j.gone = true
			return
		}
		if err != nil {
			j.err = err
			return
		}
		if !ok {
			j.gone = true
			return
		}
		j.entry = fileEntry{stat: st, mode: mode, racy: max(st.mtime, st.ctime) >= sc.start.Add(-sc.s.racyWindow).UnixNano()}
		if mode == modeSymlink {
			target, err := os.Readlink(full)
			if err != nil {
				j.err = err
				return
			}
			j.entry.id, j.err = sc.w.write("blob", []byte(filepath.ToSlash(target)))
			return
		}
		if sc.s.maxFileSize >= 0 && st.size > sc.s.maxFileSize {
			j.entry.skipped = true
			return
		}
		j.entry.id, err = sc.w.writeFileBlob(full, st.size)
		if errors.Is(err, errChangedWhileRead) && attempt < 3 {
			continue
		}
		if errors.Is(err, fs.ErrNotExist) {
			j.gone = true
			return
		}
		j.err = err
		return
	}
}

// apply records a hashed file in its folder and the change it is.
func (sc *scan) apply(j *hashJob) {
	n := j.node
	if j.gone {
		if j.old != nil && n.files[j.name] == j.old {
			sc.dropFile(n, j.name, j.rel)
		}
		return
	}
	e := j.entry
	n.files[j.name] = &e
	n.touch(j.name)
	old := j.old
	status := ""
	switch {
	case e.skipped:
		sc.skipped = append(sc.skipped, j.rel)
		if old != nil && !old.skipped {
			status = "deleted"
		}
	case old == nil || old.skipped:
		status = "added"
	case old.id != e.id || old.mode != e.mode:
		status = "modified"
	}
	if status != "" {
		// Otherwise the file was read again (racy, or its stat changed) and is what it was: the
		// folder's tree stands.
		n.treeOK = false
		sc.changes = append(sc.changes, Change{Path: j.rel, Status: status})
		if j.name == ".gitignore" {
			sc.gitignore = true
		}
	}
}

// storeTrees stores the tree of n and of every folder under it whose content changed, and returns
// n's tree (empty: n stores nothing).
func (sc *scan) storeTrees(n *dirNode) (objectID, bool, error) {
	if n.treeOK {
		return n.tree, n.empty, nil
	}
	entries := make([]treeEntry, 0, len(n.files)+len(n.dirs))
	for name, f := range n.files {
		if !f.skipped {
			entries = append(entries, treeEntry{name: name, mode: f.mode, id: f.id})
		}
	}
	for name, d := range n.dirs {
		id, empty, err := sc.storeTrees(d)
		if err != nil {
			return id, false, err
		}
		if !empty {
			entries = append(entries, treeEntry{name: name, mode: modeTree, id: id})
		}
	}
	n.tree, n.empty, n.unsaved = objectID{}, len(entries) == 0, true
	if !n.empty {
		id, err := sc.w.writeTree(entries)
		if err != nil {
			return id, false, err
		}
		n.tree = id
	}
	n.treeOK = true
	return n.tree, n.empty, nil
}

// queryIgnored asks git which of paths (nil: the whole tree) its ignore rules leave out, with replace
// the answer replacing the ignored set, otherwise added to it. Git answers for a nested repository's
// paths only from inside it, so each repository (the project, nested ones) gets its own query, with
// the paths under it: a whole-tree query asks every repository the manifest knows.
func (sc *scan) queryIgnored(ctx context.Context, paths []string, replace bool) error {
	groups := map[string][]string{} // repository → paths relative to it (nil: all of it)
	if paths == nil {
		var roots func(n *dirNode, rel string)
		roots = func(n *dirNode, rel string) {
			if rel == "" || n.nested {
				groups[rel] = nil
			}
			for name, child := range n.dirs {
				roots(child, joinRel(rel, name))
			}
		}
		roots(sc.m.root, "")
		if replace {
			sc.queriedRoots = map[string]bool{}
			for root := range groups {
				sc.queriedRoots[root] = true
			}
		}
	} else {
		for _, p := range paths {
			root := sc.rootOf(p)
			groups[root] = append(groups[root], strings.TrimPrefix(p[len(root):], "/"))
		}
	}
	var ignored []string
	for root, paths := range groups {
		if len(paths) > maxPathspecs {
			paths, replace = nil, false
		}
		found, err := sc.queryRepository(ctx, root, paths)
		if err != nil {
			return err
		}
		ignored = append(ignored, found...)
	}
	sc.dirty, sc.m.ignoredUnsaved = true, true
	if replace {
		sc.m.ignored = map[string]bool{}
		sc.m.excludes, sc.m.excludesStat = sc.excludes, sc.excludesStat
	}
	for _, p := range ignored {
		sc.m.ignored[p] = true
	}
	return nil
}

// rootOf is the repository holding the path p: the deepest nested repository among its parent
// folders, "" for the project's own.
func (sc *scan) rootOf(p string) string {
	root := ""
	n := sc.m.root
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		if n = n.dirs[p[strings.LastIndexByte(p[:i], '/')+1:i]]; n == nil {
			break
		}
		if n.nested {
			root = p[:i]
		}
	}
	return root
}

// queryRepository asks git which of paths (relative to the repository at root; nil: all of it) are
// ignored, in a scratch repository of the store's with no index and no commit, so every file counts
// as untracked. The answer is relative to the project.
func (sc *scan) queryRepository(ctx context.Context, root string, paths []string) ([]string, error) {
	g, err := sc.s.scanGit(ctx)
	if err != nil {
		return nil, err
	}
	if root != "" {
		g = newGit(g.path, g.gitDir, filepath.Join(sc.s.project, filepath.FromSlash(root)), g.index)
	}
	args := []string{"-c", excludesConfig(sc.excludes), "status", "--porcelain=v2", "-z", "--untracked-files=all",
		"--ignored=matching", "--ignore-submodules=all", "--no-renames"}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	out, err := g.runEnv(ctx, []string{"GIT_LITERAL_PATHSPECS=1", "GIT_OPTIONAL_LOCKS=0"}, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: ignore rules: %w", err)
	}
	var ignored []string
	for _, rec := range splitNul(out) {
		if p, ok := strings.CutPrefix(rec, "! "); ok {
			ignored = append(ignored, joinRel(root, strings.TrimSuffix(p, "/")))
		}
	}
	return ignored, nil
}

// touched reports whether the scan changed the manifest (a file read, dropped, or ignore rules asked).
func (sc *scan) touched() bool { return sc.dirty }
