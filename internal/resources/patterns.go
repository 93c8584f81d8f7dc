package resources

import (
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// This file is pi's filtering of resource entries in settings: "!glob" excludes, "+path" forces a
// path in and "-path" forces it out (exact paths), any other glob selects. A skill is matched by its
// SKILL.md and by its directory.

// isPattern: an entry that filters rather than names a path.
func isPattern(s string) bool {
	return strings.HasPrefix(s, "!") || strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-") ||
		strings.ContainsAny(s, "*?")
}

// candidates are the forms a pattern may match of file: relative to base, its name, its absolute
// path, and for a SKILL.md the same of its directory.
func candidates(file, base string) []string {
	rel, _ := filepath.Rel(base, file)
	out := []string{filepath.ToSlash(rel), filepath.Base(file), filepath.ToSlash(file)}
	if filepath.Base(file) == "SKILL.md" {
		dir := filepath.Dir(file)
		drel, _ := filepath.Rel(base, dir)
		out = append(out, filepath.ToSlash(drel), filepath.Base(dir), filepath.ToSlash(dir))
	}
	return out
}

func matchesAny(file string, patterns []string, base, home string) bool {
	c := candidates(file, base)
	for _, p := range patterns {
		p = filepath.ToSlash(expandTilde(p, home))
		for _, s := range c {
			if ok, _ := doublestar.Match(p, s); ok {
				return true
			}
		}
	}
	return false
}

func matchesAnyExact(file string, patterns []string, base, home string) bool {
	c := candidates(file, base)
	for _, p := range patterns {
		p = filepath.ToSlash(expandTilde(strings.TrimPrefix(p, "./"), home))
		for i, s := range c {
			if i%3 == 1 { // exact paths do not match bare names
				continue
			}
			if p == s {
				return true
			}
		}
	}
	return false
}

func expandTilde(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// splitOverrides sorts the pattern entries by their prefix.
func splitOverrides(patterns []string) (includes, excludes, forceIn, forceOut []string) {
	for _, p := range patterns {
		switch {
		case strings.HasPrefix(p, "+"):
			forceIn = append(forceIn, p[1:])
		case strings.HasPrefix(p, "-"):
			forceOut = append(forceOut, p[1:])
		case strings.HasPrefix(p, "!"):
			excludes = append(excludes, p[1:])
		default:
			includes = append(includes, p)
		}
	}
	return
}

// applyPatterns says which of the files of a settings list are enabled: those the plain globs select
// (all when there are none), less the excluded, plus the forced in, less the forced out.
func applyPatterns(files, patterns []string, base, home string) map[string]bool {
	includes, excludes, forceIn, forceOut := splitOverrides(patterns)
	out := map[string]bool{}
	for _, f := range files {
		on := len(includes) == 0 || matchesAny(f, includes, base, home)
		if on && len(excludes) > 0 && matchesAny(f, excludes, base, home) {
			on = false
		}
		if !on && len(forceIn) > 0 && matchesAnyExact(f, forceIn, base, home) {
			on = true
		}
		if on && len(forceOut) > 0 && matchesAnyExact(f, forceOut, base, home) {
			on = false
		}
		out[f] = on
	}
	return out
}

// enabledByOverrides says whether a discovered file stays enabled under the !, + and - entries of
// the settings list of its scope (plain entries name more files, they do not filter these).
func enabledByOverrides(file string, patterns []string, base, home string) bool {
	_, excludes, forceIn, forceOut := splitOverrides(patterns)
	on := true
	if len(excludes) > 0 && matchesAny(file, excludes, base, home) {
		on = false
	}
	if len(forceIn) > 0 && matchesAnyExact(file, forceIn, base, home) {
		on = true
	}
	if len(forceOut) > 0 && matchesAnyExact(file, forceOut, base, home) {
		on = false
	}
	return on
}
