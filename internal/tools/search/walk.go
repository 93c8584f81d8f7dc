package search

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// The walker behind the pure-Go grep and find. It visits a tree in sorted depth-first order (the
// order of `rg --sort path` and of fd's sorted output: names compared byte-wise within a directory),
// keeps hidden files, skips .git, does not follow symbolic links, and applies ignore rules as
// ripgrep's ignore crate does: per directory a custom file (.rgignore / .fdignore), .ignore,
// .gitignore and .git/info/exclude, in that order of precedence, deeper directories first, plus the
// parents of the root and the global git excludes file. Directories are read ahead in parallel.

type walkKind uint8

const (
	walkFile walkKind = iota
	walkDir
	walkSymlink
	walkOther
)

// walkEntry is one path the walk keeps.
type walkEntry struct {
	abs  string
	name string
	kind walkKind
	node *walkNode // set for directories, which the walk descends into
}

// walkNode is a directory waiting to be read or read.
type walkNode struct {
	abs       string
	parentIgn *walkIgn
	done      chan struct{}
	entries   []walkEntry
}

// walkOptions say which ignore rules apply.
type walkOptions struct {
	// customIgnore is the tool's own ignore file name (".rgignore", ".fdignore").
	customIgnore string
	// requireGit applies .gitignore, .git/info/exclude and the global excludes only inside a git
	// repository (ripgrep's default; fd runs with --no-require-git).
	requireGit bool
	// overrides are rg's --glob rules, matched against paths relative to their directory (or the
	// absolute path outside it). They come before every ignore file.
	overrides *giMatcher
	// globalGit is core.excludesFile (git category); globalIgnore an always-on global file (fd's).
	globalGit    *giMatcher
	globalIgnore *giMatcher
	// workers reading directories; 0 means GOMAXPROCS (at least 2).
	workers int
	// maxAhead bounds the directories read ahead of the visitor; 0 means walkMaxAhead.
	maxAhead int
}

// Ignore-file categories, highest precedence first.
const (
	walkCatCustom = iota
	walkCatIgnore
	walkCatGit
	walkCatExclude
	walkCats
)

// walkIgn is the ignore state of one directory: the matchers of each category from it and its
// ancestors, deepest first.
type walkIgn struct {
	lists  [walkCats][]*giMatcher
	anyGit bool
}

// walkDirIgn is the state for dir given its parent's. names reports which ignore files dir holds.
func walkDirIgn(parent *walkIgn, dir string, has func(string) bool, opts *walkOptions) *walkIgn {
	hasGit := has(".git")
	files := [walkCats]string{opts.customIgnore, ".ignore", ".gitignore", ""}
	var own [walkCats]*giMatcher
	found := false
	for cat, name := range files {
		if name == "" || !has(name) {
			continue
		}
		if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			own[cat] = giParseFile(dir, data)
			found = true
		}
	}
	if hasGit {
		if data, err := os.ReadFile(filepath.Join(walkGitDir(dir), "info", "exclude")); err == nil {
			own[walkCatExclude] = giParseFile(dir, data)
			found = true
		}
	}
	if !found && !hasGit && parent != nil {
		return parent
	}
	ign := &walkIgn{anyGit: hasGit}
	if parent != nil {
		ign.anyGit = ign.anyGit || parent.anyGit
	}
	for cat := range walkCats {
		var inherited []*giMatcher
		if parent != nil {
			inherited = parent.lists[cat]
		}
		if own[cat] == nil {
			ign.lists[cat] = inherited
			continue
		}
		ign.lists[cat] = append(append(make([]*giMatcher, 0, len(inherited)+1), own[cat]), inherited...)
	}
	return ign
}

// walkGitDir is the git directory of a work tree root: dir/.git, or where a .git file points.
func walkGitDir(dir string) string {
	gitPath := filepath.Join(dir, ".git")
	st, err := os.Stat(gitPath)
	if err != nil || st.IsDir() {
		return gitPath
	}
	data, err := os.ReadFile(gitPath)
	if err != nil {
		return gitPath
	}
	line := strings.TrimSpace(string(data))
	if !strings.HasPrefix(line, "gitdir:") {
		return gitPath
	}
	target := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return target
}

// walkAncestorsIgn reads the ignore files of root's parents, from / down.
func walkAncestorsIgn(root string, opts *walkOptions) *walkIgn {
	var dirs []string
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == "/" || d == "." || d == filepath.Dir(d) {
			break
		}
	}
	var ign *walkIgn
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		ign = walkDirIgn(ign, d, func(name string) bool {
			_, err := os.Lstat(filepath.Join(d, name))
			return err == nil
		}, opts)
	}
	return ign
}

// walkLooseMatch matches a path against rules relative to m.dir, or, outside it, against the
// absolute path (what the ignore crate does for overrides and global rules).
func walkLooseMatch(m *giMatcher, abs string, isDir bool) giVerdict {
	rel, ok := giRel(m.dir, abs)
	if !ok {
		rel = abs
	}
	return m.matchRel(rel, isDir)
}

// ignored decides whether the walk skips abs.
func (opts *walkOptions) ignored(ign *walkIgn, abs string, isDir bool) bool {
	if ov := opts.overrides; ov != nil {
		switch walkLooseMatch(ov, abs, isDir) {
		case giWhitelist:
			return false
		case giIgnore:
			return true
		}
		if ov.hasWhitelist && !isDir {
			return true
		}
	}
	gitAllowed := ign == nil || !opts.requireGit || ign.anyGit
	if ign != nil {
		for cat := range walkCats {
			if cat >= walkCatGit && !gitAllowed {
				break
			}
			for _, m := range ign.lists[cat] {
				if v := m.match(abs, isDir); v != giNone {
					return v == giIgnore
				}
			}
		}
	}
	if m := opts.globalIgnore; m != nil {
		if v := walkLooseMatch(m, abs, isDir); v != giNone {
			return v == giIgnore
		}
	}
	if m := opts.globalGit; m != nil && gitAllowed {
		if v := walkLooseMatch(m, abs, isDir); v != giNone {
			return v == giIgnore
		}
	}
	return false
}

// walker owns the directory-reading workers of one walk.
type walker struct {
	opts    *walkOptions
	mu      sync.Mutex
	cond    *sync.Cond
	stack   []*walkNode
	stopped bool
	// ahead counts directories read but not yet visited; past walkMaxAhead the workers only read the
	// directory the visitor waits for (want), so memory stays bounded on huge trees.
	ahead    int
	maxAhead int
	want     *walkNode
}

// walkMaxAhead bounds how many directories are read ahead of the visitor.
const walkMaxAhead = 1024

func (w *walker) push(nodes ...*walkNode) {
	if len(nodes) == 0 {
		return
	}
	w.mu.Lock()
	// Reverse order so the first child is read first: reading follows the visiting order closely.
	for i := len(nodes) - 1; i >= 0; i-- {
		w.stack = append(w.stack, nodes[i])
	}
	w.mu.Unlock()
	w.cond.Broadcast()
}

func (w *walker) work() {
	for {
		w.mu.Lock()
		n := w.next()
		for n == nil && !w.stopped {
			w.cond.Wait()
			n = w.next()
		}
		if w.stopped {
			w.mu.Unlock()
			return
		}
		w.ahead++
		w.mu.Unlock()
		w.push(w.read(n)...)
		close(n.done)
	}
}

// next takes the directory to read, or nil when there is none to read now. Called with mu held.
func (w *walker) next() *walkNode {
	if len(w.stack) == 0 {
		return nil
	}
	if w.ahead < w.maxAhead {
		n := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		return n
	}
	if w.want == nil {
		return nil
	}
	for i := len(w.stack) - 1; i >= 0; i-- {
		if w.stack[i] == w.want {
			w.want = nil
			n := w.stack[i]
			w.stack = append(w.stack[:i], w.stack[i+1:]...)
			return n
		}
	}
	return nil
}

// waitFor blocks the visitor until n is read (asking the workers for it) or ctx ends.
func (w *walker) waitFor(ctx context.Context, n *walkNode) error {
	select {
	case <-n.done:
		return nil
	default:
	}
	w.mu.Lock()
	w.want = n
	w.mu.Unlock()
	w.cond.Broadcast()
	select {
	case <-n.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	w.mu.Lock()
	if w.want == n {
		w.want = nil
	}
	w.mu.Unlock()
	return nil
}

// visited releases a directory the visitor is done with.
func (w *walker) visited() {
	w.mu.Lock()
	w.ahead--
	wake := w.ahead == w.maxAhead-1
	w.mu.Unlock()
	if wake {
		w.cond.Broadcast()
	}
}

func (w *walker) stop() {
	w.mu.Lock()
	w.stopped = true
	w.stack = nil
	w.mu.Unlock()
	w.cond.Broadcast()
}

// read lists one directory, applies the ignore rules and returns the subdirectories to read next.
func (w *walker) read(n *walkNode) []*walkNode {
	ents, _ := os.ReadDir(n.abs) // unreadable directories are skipped, as ripgrep goes on past them
	ign := walkDirIgn(n.parentIgn, n.abs, func(name string) bool {
		// os.ReadDir sorts by name.
		i := sort.Search(len(ents), func(i int) bool { return ents[i].Name() >= name })
		return i < len(ents) && ents[i].Name() == name
	}, w.opts)
	prefix := n.abs + "/"
	if n.abs == "/" {
		prefix = "/"
	}
	var subdirs []*walkNode
	entries := make([]walkEntry, 0, len(ents))
	for _, e := range ents {
		name := e.Name()
		if name == ".git" {
			continue
		}
		typ := e.Type()
		kind := walkOther
		switch {
		case typ.IsRegular():
			kind = walkFile
		case typ.IsDir():
			kind = walkDir
		case typ&os.ModeSymlink != 0:
			kind = walkSymlink
		}
		abs := prefix + name
		if w.opts.ignored(ign, abs, kind == walkDir) {
			continue
		}
		entry := walkEntry{abs: abs, name: name, kind: kind}
		if kind == walkDir {
			entry.node = &walkNode{abs: abs, parentIgn: ign, done: make(chan struct{})}
			subdirs = append(subdirs, entry.node)
		}
		entries = append(entries, entry)
	}
	n.entries = entries
	return subdirs
}

// walkTree visits every entry under the directory root that the rules keep, in sorted depth-first
// order, on the caller's goroutine; visit returning false ends the walk. It returns ctx's error when
// cancelled.
func walkTree(ctx context.Context, root string, opts *walkOptions, visit func(*walkEntry) bool) error {
	w := &walker{opts: opts, maxAhead: opts.maxAhead}
	if w.maxAhead <= 0 {
		w.maxAhead = walkMaxAhead
	}
	w.cond = sync.NewCond(&w.mu)
	rootNode := &walkNode{abs: root, parentIgn: walkAncestorsIgn(root, opts), done: make(chan struct{})}
	w.push(rootNode)
	workers := opts.workers
	if workers <= 0 {
		workers = max(2, runtime.GOMAXPROCS(0))
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work()
		}()
	}
	defer func() {
		w.stop()
		wg.Wait()
	}()

	type frame struct {
		n     *walkNode
		i     int
		ready bool
	}
	stack := []frame{{n: rootNode}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if !f.ready {
			if err := w.waitFor(ctx, f.n); err != nil {
				return err
			}
			f.ready = true
		}
		if f.i >= len(f.n.entries) {
			f.n.entries = nil
			stack = stack[:len(stack)-1]
			w.visited()
			continue
		}
		e := &f.n.entries[f.i]
		f.i++
		if !visit(e) {
			return nil
		}
		if e.node != nil {
			stack = append(stack, frame{n: e.node})
		}
	}
	return ctx.Err()
}

// walkGlobalGitExcludes is the global git excludes file ripgrep and fd read: core.excludesFile from
// the git config, else $XDG_CONFIG_HOME/git/ignore (or ~/.config/git/ignore). "" when unknown.
func walkGlobalGitExcludes() string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var configs []string
	if xdg != "" {
		configs = append(configs, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	path := ""
	for _, c := range configs {
		if p := walkExcludesFromConfig(c, home); p != "" {
			path = p // later files win, as in git
		}
	}
	if path == "" && xdg != "" {
		path = filepath.Join(xdg, "git", "ignore")
	}
	return path
}

// walkExcludesFromConfig reads core.excludesFile from one git config file.
func walkExcludesFromConfig(file, home string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	inCore := false
	value := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inCore = strings.EqualFold(strings.Trim(line, "[] \t"), "core")
			continue
		}
		if !inCore {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(key), "excludesfile") {
			continue
		}
		val = strings.Trim(strings.TrimSpace(val), `"`)
		if strings.HasPrefix(val, "~/") && home != "" {
			val = filepath.Join(home, val[2:])
		}
		value = val
	}
	return value
}

// walkLoadGlobal reads an ignore file as rules relative to base ("" and nil when absent).
func walkLoadGlobal(path, base string) *giMatcher {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return giParseFile(base, data)
}
