package packages

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/resources"
)

// Resource kinds a package carries, as pi names its manifest fields and directories.
const (
	Extensions = "extensions"
	Skills     = "skills"
	Prompts    = "prompts"
	Themes     = "themes"
)

// Package is one configured package.
type Package struct {
	// Source is the settings entry's source as written.
	Source string
	Parsed Source
	Scope  Scope
	// Filter is the object form's filters (nil for a plain string entry).
	Filter *config.PackageFilter
	// Root is the installed directory (a local source's file or directory); "" when nothing is
	// installed there yet.
	Root string
}

// Configured lists the packages of the settings, project entries first (their resources win
// collisions), one per package identity: a project entry replaces the user's entry of the same
// package.
func Configured(d Dirs, global, project []config.PackageSource) []Package {
	var out []Package
	seen := map[string]int{}
	add := func(e config.PackageSource, scope Scope) {
		src := Parse(e.Source)
		id := src.Identity(func(p string) string { return d.Resolve(p, d.BaseDir(scope)) })
		if _, dup := seen[id]; dup {
			return // the project's entry came first and wins
		}
		seen[id] = len(out)
		out = append(out, Package{Source: e.Source, Parsed: src, Scope: scope, Filter: e.Filter, Root: d.Installed(src, scope)})
	}
	for _, e := range project {
		add(e, Project)
	}
	for _, e := range global {
		add(e, User)
	}
	return out
}

// Resources are the files of one kind the package contributes, enabled ones only: a local file
// source is one extension; otherwise the settings entry's filter for the kind narrows what the
// package offers (omitted: everything, []: nothing), and what it offers is its package.json "pi"
// manifest's entries (paths and globs, "!", "+" and "-" patterns) or, without a manifest, its
// conventional directory (extensions/, skills/, prompts/, themes/). A local directory with neither
// is itself one extension. home expands "~" in patterns.
func (p Package) Resources(kind, home string) []string {
	if p.Root == "" {
		return nil
	}
	st, err := os.Stat(p.Root)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		if kind == Extensions {
			return []string{p.Root}
		}
		return nil
	}
	m := readManifest(p.Root)
	entries, listed := m[kind]
	if p.Filter != nil {
		patterns := filterFor(p.Filter, kind)
		if patterns == nil { // omitted: what the package offers
			if listed {
				return p.manifestFiles(entries, kind, home)
			}
			return collectResourceFiles(filepath.Join(p.Root, kind), kind)
		}
		if len(*patterns) == 0 {
			return nil
		}
		var all []string
		if len(entries) > 0 {
			all = p.manifestFiles(entries, kind, home)
		} else {
			all = collectResourceFiles(filepath.Join(p.Root, kind), kind)
		}
		on := resources.ApplyPatterns(all, *patterns, p.Root, home)
		return slices.DeleteFunc(all, func(f string) bool { return !on[f] })
	}
	if m.hasResources() { // a manifest that lists resources is the whole list
		return p.manifestFiles(entries, kind, home)
	}
	files := collectResourceFiles(filepath.Join(p.Root, kind), kind)
	if p.Parsed.Kind == Local && kind == Extensions && !hasConventionalDir(p.Root) {
		return []string{p.Root} // a plain directory is one extension (its index or its manifest)
	}
	return files
}

func hasConventionalDir(root string) bool {
	for _, k := range []string{Extensions, Skills, Prompts, Themes} {
		if _, err := os.Stat(filepath.Join(root, k)); err == nil {
			return true
		}
	}
	return false
}

// manifestFiles are the files a manifest's entries name: paths and globs relative to the package
// root (a directory stands for its files of the kind), less what its "!", "+" and "-" patterns
// exclude.
func (p Package) manifestFiles(entries []string, kind, home string) []string {
	var paths, overrides []string
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e, "!"), strings.HasPrefix(e, "+"), strings.HasPrefix(e, "-"):
			overrides = append(overrides, e)
		case strings.ContainsAny(e, "*?"):
			paths = append(paths, expandGlob(p.Root, e)...)
		default:
			paths = append(paths, filepath.Join(p.Root, e))
		}
	}
	var files []string
	for _, path := range paths {
		st, err := os.Stat(path)
		switch {
		case err != nil:
		case st.Mode().IsRegular():
			files = append(files, path)
		case st.IsDir():
			files = append(files, collectResourceFiles(path, kind)...)
		}
	}
	if len(overrides) == 0 {
		return files
	}
	on := resources.ApplyPatterns(files, overrides, p.Root, home)
	return slices.DeleteFunc(files, func(f string) bool { return !on[f] })
}

func filterFor(f *config.PackageFilter, kind string) *[]string {
	var list []string
	switch kind {
	case Extensions:
		list = f.Extensions
	case Skills:
		list = f.Skills
	case Prompts:
		list = f.Prompts
	case Themes:
		list = f.Themes
	}
	if list == nil {
		return nil
	}
	return &list
}

// manifest is package.json's "pi" object: the resource lists it gives (a kind absent from the map
// is not listed).
type manifest map[string][]string

func (m manifest) hasResources() bool { return len(m) > 0 }

func readManifest(root string) manifest {
	data, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err != nil {
		return nil
	}
	var pkg struct {
		Pi map[string]json.RawMessage `json:"pi"`
	}
	if json.Unmarshal(data, &pkg) != nil || pkg.Pi == nil {
		return nil
	}
	m := manifest{}
	for _, k := range []string{Extensions, Skills, Prompts, Themes} {
		var list []string
		if raw, ok := pkg.Pi[k]; ok && json.Unmarshal(raw, &list) == nil && list != nil {
			m[k] = list
		}
	}
	return m
}

// expandGlob matches a manifest glob below root, leaving out paths through hidden entries (list
// those directly), sorted.
func expandGlob(root, pattern string) []string {
	pattern = strings.TrimPrefix(filepath.ToSlash(pattern), "./")
	matches, err := doublestar.Glob(os.DirFS(root), pattern, doublestar.WithFailOnIOErrors())
	if err != nil {
		matches, _ = doublestar.Glob(os.DirFS(root), pattern)
	}
	var out []string
	for _, m := range matches {
		hidden := false
		for _, seg := range strings.Split(m, "/") {
			if strings.HasPrefix(seg, ".") && seg != "." && seg != ".." {
				hidden = true
			}
		}
		if !hidden {
			out = append(out, filepath.Join(root, filepath.FromSlash(m)))
		}
	}
	slices.Sort(out)
	return out
}

var filePatterns = map[string]*regexp.Regexp{
	Prompts: regexp.MustCompile(`\.md$`),
	Themes:  regexp.MustCompile(`\.json$`),
}

// collectResourceFiles is a package directory's files of a kind: skills as pi's skills directory,
// extensions as an extensions directory (one level: *.ts and *.js, subdirectories with an index or a
// manifest), prompts and themes every .md or .json file below it.
func collectResourceFiles(dir, kind string) []string {
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	switch kind {
	case Skills:
		return resources.SkillFiles(dir)
	case Extensions:
		return extensionEntries(dir)
	}
	var out []string
	_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if path != dir && (strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules") {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.IsDir() && filePatterns[kind].MatchString(e.Name()) {
			if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
				out = append(out, path)
			}
		}
		return nil
	})
	return out
}

// extensionEntries is pi's discovery in an extensions directory: the directory's own entries (its
// manifest's or index.ts/index.js), else its *.ts and *.js files and the entries of its
// subdirectories.
func extensionEntries(dir string) []string {
	if e := DirExtensionEntries(dir); e != nil {
		return e
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		switch {
		case err != nil:
		case st.Mode().IsRegular() && (strings.HasSuffix(name, ".ts") || strings.HasSuffix(name, ".js")):
			out = append(out, p)
		case st.IsDir():
			out = append(out, DirExtensionEntries(p)...)
		}
	}
	return out
}

// DirExtensionEntries is pi's resolveExtensionEntries for one directory: its package.json
// "pi.extensions" files that exist, else its index.ts or index.js; nil when it has none.
func DirExtensionEntries(dir string) []string {
	if m := readManifest(dir); len(m[Extensions]) > 0 {
		var out []string
		for _, rel := range m[Extensions] {
			p := filepath.Join(dir, rel)
			if _, err := os.Stat(p); err == nil {
				out = append(out, p)
			}
		}
		if out != nil {
			return out
		}
	}
	for _, name := range []string{"index.ts", "index.js"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return []string{p}
		}
	}
	return nil
}
