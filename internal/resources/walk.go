package resources

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/internal/tools/search"
)

// entryKind is what a directory entry is, following a symlink (a broken one is neither).
func entryKind(dir string, e os.DirEntry) (isDir, isFile bool) {
	if e.Type()&os.ModeSymlink != 0 {
		info, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil {
			return false, false
		}
		return info.IsDir(), info.Mode().IsRegular()
	}
	return e.IsDir(), e.Type().IsRegular()
}

// skipName: discovery never enters hidden entries or node_modules.
func skipName(name string) bool { return strings.HasPrefix(name, ".") || name == "node_modules" }

// skillMode is how markdown files beside skill directories count: in pi's own skills directories a
// root-level .md file may be a skill, in an .agents/skills directory .md files below the root may.
type skillMode int

const (
	modePi skillMode = iota
	modeAgents
)

// skillEntries finds the skill files under root: a directory with a SKILL.md is one skill (its
// subdirectories are not searched); other directories are searched on, skipping hidden ones,
// node_modules and whatever .gitignore, .ignore or .fdignore files exclude.
func skillEntries(root string, mode skillMode) []string {
	var out []string
	var walk func(dir string, ign search.IgnoreFiles)
	walk = func(dir string, ign search.IgnoreFiles) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		ign = ign.Descend(dir, entries)
		for _, e := range entries {
			if e.Name() != "SKILL.md" {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if _, isFile := entryKind(dir, e); isFile && !ign.Ignored(p, false) {
				out = append(out, p)
				return
			}
		}
		for _, e := range entries {
			if skipName(e.Name()) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			isDir, isFile := entryKind(dir, e)
			if isFile && strings.HasSuffix(e.Name(), ".md") && !ign.Ignored(p, false) &&
				(mode == modePi && dir == root || mode == modeAgents && dir != root) {
				out = append(out, p)
				continue
			}
			if isDir && !ign.Ignored(p, true) {
				walk(p, ign)
			}
		}
	}
	walk(root, search.IgnoreFiles{})
	return out
}

// promptEntries are the .md files directly in dir (a conventional prompts directory), skipping hidden
// ones and ignored ones.
func promptEntries(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	ign := search.IgnoreFiles{}.Descend(dir, entries)
	var out []string
	for _, e := range entries {
		if skipName(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if _, isFile := entryKind(dir, e); isFile && strings.HasSuffix(e.Name(), ".md") && !ign.Ignored(p, false) {
			out = append(out, p)
		}
	}
	return out
}

// markdownFiles are the .md files anywhere under dir (a directory named in settings), skipping hidden
// entries, node_modules and ignored paths.
func markdownFiles(dir string) []string {
	var out []string
	var walk func(dir string, ign search.IgnoreFiles)
	walk = func(dir string, ign search.IgnoreFiles) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		ign = ign.Descend(dir, entries)
		for _, e := range entries {
			if skipName(e.Name()) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			isDir, isFile := entryKind(dir, e)
			switch {
			case isDir && !ign.Ignored(p, true):
				walk(p, ign)
			case isFile && strings.HasSuffix(e.Name(), ".md") && !ign.Ignored(p, false):
				out = append(out, p)
			}
		}
	}
	walk(dir, search.IgnoreFiles{})
	return out
}

// templatesIn are the .md files directly in dir (a directory given with --prompt-template), hidden
// ones included, as pi reads such a directory.
func templatesIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if _, isFile := entryKind(dir, e); isFile && strings.HasSuffix(e.Name(), ".md") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
