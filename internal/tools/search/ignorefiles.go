package search

import (
	"os"
	"path/filepath"
	"slices"
)

// IgnoreFiles are the .gitignore, .ignore and .fdignore files met on a walk down from a root, for
// walkers outside this package (pi's skill and prompt discovery honours them too). The zero value
// ignores nothing; Descend returns a copy with one more directory's files, so siblings do not see
// each other's rules.
type IgnoreFiles struct {
	matchers []*giMatcher
}

// ignoreFileNames are the files pi's resource discovery reads in each directory.
var ignoreFileNames = []string{".gitignore", ".ignore", ".fdignore"}

// Descend adds the ignore files of dir (an absolute path) to a copy; entries are dir's entries, which
// the caller has read, so only the ignore files present are opened.
func (f IgnoreFiles) Descend(dir string, entries []os.DirEntry) IgnoreFiles {
	out := IgnoreFiles{matchers: slices.Clip(f.matchers)}
	for _, name := range ignoreFileNames {
		for _, e := range entries {
			if e.Name() != name {
				continue
			}
			if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				out.matchers = append(out.matchers, giParseFile(filepath.ToSlash(dir), data))
			}
		}
	}
	return out
}

// Ignored reports whether abs is ignored: the deepest file with a matching rule decides, and within
// a file the last matching rule.
func (f IgnoreFiles) Ignored(abs string, isDir bool) bool {
	abs = filepath.ToSlash(abs)
	for i := len(f.matchers) - 1; i >= 0; i-- {
		switch f.matchers[i].match(abs, isDir) {
		case giIgnore:
			return true
		case giWhitelist:
			return false
		}
	}
	return false
}
