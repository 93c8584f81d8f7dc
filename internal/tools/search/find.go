package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode"
)

// FindRequest is one find search.
type FindRequest struct {
	Path string // absolute, cleaned
	// Pattern is what fd is given: a pattern with a slash is matched against the full path
	// (FullPath), pi 1.6 putting the escaped search path before a relative one.
	Pattern  string
	FullPath bool
	// IgnoreCase matches case-insensitively whatever the pattern's letters (fd --ignore-case); without
	// it fd's smart case applies.
	IgnoreCase bool
	// Limit is --max-results; 0 means none (as fd takes it).
	Limit float64
	Cwd   string
}

// Finder runs find searches: with fd (or Debian's fdfind) when the backend allows and it gives pi's
// results, else with the pure-Go walk, which gives the same paths. It probes fd once.
type Finder struct {
	backend   Backend
	probeOnce sync.Once
	fd        fdBinary
}

// NewFinder returns a Finder using backend.
func NewFinder(backend Backend) *Finder { return &Finder{backend: backend} }

// Find returns the matching paths relative to req.Path, directories with a trailing "/", in sorted
// order.
func (f *Finder) Find(ctx context.Context, req *FindRequest) ([]string, error) {
	if fd := f.fdFor(req.Path); fd.path != "" {
		return findWithFd(ctx, fd, req)
	}
	return findNative(ctx, req)
}

// UsesFd reports whether a search of searchPath runs fd rather than the pure-Go walk.
func (f *Finder) UsesFd(searchPath string) bool { return f.fdFor(searchPath).path != "" }

// findNotADirectory is fd's complaint about a search path that is missing or not a directory.
func findNotADirectory(path string) error {
	return fmt.Errorf("[fd error]: Search path '%s' is not a directory.\n[fd error]: No valid search paths given.", path)
}

// findMatcher matches entries as fd --glob does: against the file name, or with a slash in the
// pattern against the absolute path; smart case (case-insensitive unless the pattern has an upper-case
// letter).
type findMatcher struct {
	all      bool
	none     bool
	fullPath bool
	fold     bool
	rule     giRule
}

func findNewMatcher(req *FindRequest) (*findMatcher, error) {
	m := &findMatcher{fullPath: req.FullPath, fold: req.IgnoreCase || !findHasUpper(req.Pattern)}
	if req.Pattern == "" || req.Pattern == "**" {
		m.all = true
		return m, nil
	}
	pattern := req.Pattern
	if m.fold {
		pattern = strings.ToLower(pattern) // the subject is lowered too (fd --ignore-case)
	}
	rule, err := findCompileGlob(pattern, !req.FullPath)
	if err != nil {
		return nil, fmt.Errorf("[fd error]: error parsing glob '%s': %s", req.Pattern, err.Error())
	}
	m.rule = rule
	// fd matches paths without a trailing slash, so "dir/" matches nothing.
	m.none = strings.HasSuffix(req.Pattern, "/")
	return m, nil
}

// findCompileGlob compiles a glob with the gitignore machinery, without gitignore's line syntax.
func findCompileGlob(pattern string, basename bool) (giRule, error) {
	rule := giRule{basename: basename}
	alts, err := giExpandBraces(pattern)
	if err != nil {
		return rule, err
	}
	for _, alt := range alts {
		g, err := giCompile(alt, basename)
		if err != nil {
			return rule, err
		}
		rule.alts = append(rule.alts, g)
	}
	return rule, nil
}

func (m *findMatcher) match(e *walkEntry) bool {
	if m.all || m.none {
		return m.all
	}
	subject := e.name
	if m.fullPath {
		subject = e.abs
	}
	if m.fold {
		subject = strings.ToLower(subject)
	}
	if m.rule.basename {
		return m.rule.matches(subject, subject)
	}
	return m.rule.matches(subject, "")
}

func findHasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// findNative walks searchPath as `fd --glob --hidden --no-require-git` does (minus .git) and
// returns the matching paths relative to it, directories with a trailing "/", in sorted order.
func findNative(ctx context.Context, req *FindRequest) ([]string, error) {
	if st, err := os.Stat(req.Path); err != nil || !st.IsDir() {
		return nil, findNotADirectory(req.Path)
	}
	m, err := findNewMatcher(req)
	if err != nil {
		return nil, err
	}
	opts := &walkOptions{
		customIgnore: ".fdignore",
		globalGit:    walkLoadGlobal(walkGlobalGitExcludes(), req.Cwd),
		globalIgnore: walkLoadGlobal(findGlobalIgnore(), req.Cwd),
	}
	var paths []string
	err = walkTree(ctx, req.Path, opts, func(e *walkEntry) bool {
		if !m.match(e) {
			return true
		}
		rel := findRel(req.Path, e.abs)
		if e.kind == walkDir {
			rel += "/"
		}
		paths = append(paths, rel)
		return req.Limit <= 0 || float64(len(paths)) < req.Limit
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		return nil, err
	}
	return paths, nil
}

// findRel is path relative to root (forward slashes).
func findRel(root, path string) string {
	if root == "/" {
		return strings.TrimPrefix(path, "/")
	}
	if strings.HasPrefix(path, root+"/") {
		return path[len(root)+1:]
	}
	if rel, err := filepath.Rel(root, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}

// findGlobalIgnore is fd's own global ignore file ($XDG_CONFIG_HOME/fd/ignore).
func findGlobalIgnore() string {
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		xdg = home + "/.config"
	}
	return xdg + "/fd/ignore"
}
