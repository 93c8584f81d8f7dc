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

// Descend adds the ignore files of dir (an absolute path).
func (f IgnoreFiles) Descend(dir string) IgnoreFiles {
	// Clipped, so an append never writes into the parent's backing array.
	out := IgnoreFiles{matchers: slices.Clip(f.matchers)}
	for _, name := range ignoreFileNames {
		if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			out.matchers = append(out.matchers, giParseFile(filepath.ToSlash(dir), data))
		}
	}
	return out
}

// DescendEntries is Descend for a directory whose entries the caller has read: only the ignore files
// among them are opened.
func (f IgnoreFiles) DescendEntries(dir string, entries []os.DirEntry) IgnoreFiles {
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
