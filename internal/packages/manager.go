package packages

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/jsonx"
)

// ErrUntrusted is returned for project-scope work in a project that is not trusted.
var ErrUntrusted = errors.New("Project is not trusted; refusing to access project package storage")

// Manager installs, updates and removes packages and keeps the settings' "packages" lists, as pi's
// DefaultPackageManager with its command-line callers.
type Manager struct {
	Dirs     Dirs
	Settings *config.SettingsManager
	// ProjectTrusted allows project (-l) packages.
	ProjectTrusted bool
	// NpmCommand is the npmCommand setting (argv; empty: "npm").
	NpmCommand []string
	// Stdout and Stderr receive npm's and git's own output (pi lets them write to the terminal).
	Stdout, Stderr io.Writer
	// Progress gets a line before each install, update or removal ("Installing npm:foo...").
	Progress func(msg string)
	// Env is the environment of npm and git (nil: this process's).
	Env []string
}

func (m *Manager) progress(format string, a ...any) {
	if m.Progress != nil {
		m.Progress(fmt.Sprintf(format, a...))
	}
}

func scopeOf(local bool) Scope {
	if local {
		return Project
	}
	return User
}

// Install installs a source and adds it to the scope's settings (pi's installAndPersist): an npm
// package with npm into the scope's npm directory, a git repository cloned (and its dependencies
// installed) under the scope's git directory, a local path only checked to exist.
func (m *Manager) Install(ctx context.Context, raw string, local bool) error {
	src := Parse(raw)
	if err := src.Validate(); err != nil {
		return err
	}
	scope := scopeOf(local)
	if scope == Project && !m.ProjectTrusted {
		return ErrUntrusted
	}
	m.progress("Installing %s...", raw)
	switch src.Kind {
	case Npm:
		if err := m.installNpm(ctx, []string{src.Spec}, scope); err != nil {
			return err
		}
	case Git:
		if err := m.installGit(ctx, src, scope); err != nil {
			return err
		}
	default:
		p := m.Dirs.Resolve(src.LocalPath, m.Dirs.Cwd)
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("Path does not exist: %s", p)
		}
	}
	_, err := m.addToSettings(raw, src, scope)
	return err
}

// Temporary returns the package a -e source names, installing an npm or git source into the -e
// cache first when it is not there (a local source is its resolved path). Nothing is written to
// settings. A cached package is used as it is: pi-go does not look for a newer version at start.
func (m *Manager) Temporary(ctx context.Context, raw string) (Package, error) {
	src := Parse(raw)
	if err := src.Validate(); err != nil {
		return Package{}, err
	}
	pkg := Package{Source: raw, Parsed: src, Scope: Temporary}
	dir, err := m.Dirs.InstallPath(src, Temporary)
	if err != nil {
		return pkg, err
	}
	if _, err := os.Stat(dir); err == nil || src.Kind == Local {
		pkg.Root = m.Dirs.Installed(src, Temporary)
		return pkg, nil
	}
	if offline() {
		return pkg, fmt.Errorf("%s is not cached and PI_OFFLINE is set", raw)
	}
	if err := os.MkdirAll(filepath.Join(m.Dirs.AgentDir, "tmp", "extensions"), 0o700); err != nil {
		return pkg, fmt.Errorf("create the -e package cache: %w", err)
	}
	m.progress("Installing %s...", raw)
	if src.Kind == Npm {
		err = m.installNpm(ctx, []string{src.Spec}, Temporary)
	} else {
		err = m.installGit(ctx, src, Temporary)
	}
	if err != nil {
		return pkg, err
	}
	pkg.Root = m.Dirs.Installed(src, Temporary)
	return pkg, nil
}

// Remove uninstalls a source and removes its settings entry; false when no entry matched (the
// package's files are removed all the same, as pi does).
func (m *Manager) Remove(ctx context.Context, raw string, local bool) (bool, error) {
	src := Parse(raw)
	scope := scopeOf(local)
	if scope == Project && !m.ProjectTrusted {
		return false, ErrUntrusted
	}
	m.progress("Removing %s...", raw)
	switch src.Kind {
	case Npm:
		root := m.Dirs.NpmRoot(scope)
		if _, err := os.Stat(root); err == nil {
			if real, err := filepath.EvalSymlinks(root); err == nil {
				root = real
			}
			args := []string{"uninstall", src.Name, "--prefix", root, "--legacy-peer-deps", "--no-audit", "--no-fund"}
			if err := m.npm(ctx, "", args...); err != nil {
				return false, err
			}
		}
	case Git:
		dir, err := m.Dirs.InstallPath(src, scope)
		if err != nil {
			return false, err
		}
		if err := os.RemoveAll(dir); err != nil {
			return false, fmt.Errorf("remove %s: %w", dir, err)
		}
		os.Remove(updateMarker(dir))
		pruneEmptyParents(dir, m.Dirs.GitRoot(scope))
	}
	return m.removeFromSettings(src, scope)
}

// Updated is one package an update changed, with its version (npm) or commit (git) before and after.
type Updated struct {
	Source   string
	Scope    Scope
	From, To string
}

// String is pi's report line: "npm:foo 1.2.0 -> 1.3.0", "git:host/o/r (project) 1a2b3c4 -> 5d6e7f8".
func (u Updated) String() string {
	scope := ""
	if u.Scope == Project {
		scope = " (project)"
	}
	from, to := orNone(u.From), orNone(u.To)
	return fmt.Sprintf("%s%s %s -> %s", u.Source, scope, from, to)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Update brings configured packages up to date (all, or the one whose identity raw names): npm
// packages that are not pinned to one version are reinstalled at their range's newest (or
// @latest), git checkouts are fetched and reset to their ref or their upstream branch. Local
// packages are left as they are. With PI_OFFLINE set nothing is done.
func (m *Manager) Update(ctx context.Context, raw string) ([]Updated, error) {
	global, project := m.Settings.PackageEntries()
	type target struct {
		e     config.PackageSource
		scope Scope
	}
	var targets []target
	var want string
	if raw != "" {
		want = Parse(raw).Identity(func(p string) string { return m.Dirs.Resolve(p, m.Dirs.Cwd) })
	}
	configured := 0
	for _, group := range []struct {
		list  []config.PackageSource
		scope Scope
	}{{global, User}, {project, Project}} {
		for _, e := range group.list {
			id := Parse(e.Source).Identity(func(p string) string { return m.Dirs.Resolve(p, m.Dirs.BaseDir(group.scope)) })
			if want != "" && id != want {
				continue
			}
			configured++
			targets = append(targets, target{e, group.scope})
		}
	}
	if raw != "" && configured == 0 {
		return nil, errors.New(noMatchMessage(raw, append(global, project...)))
	}
	if offline() {
		return nil, nil
	}
	var updated []Updated
	for _, t := range targets {
		src := Parse(t.e.Source)
		dir, err := m.Dirs.InstallPath(src, t.scope)
		if err != nil {
			return updated, err
		}
		switch src.Kind {
		case Npm:
			if src.Pinned {
				continue
			}
			from := npmVersion(dir)
			spec := src.Spec
			if src.Version == "" {
				spec = src.Name + "@latest"
			}
			m.progress("Updating %s...", t.e.Source)
			if err := m.installNpm(ctx, []string{spec}, t.scope); err != nil {
				return updated, err
			}
			if to := npmVersion(dir); to != from {
				updated = append(updated, Updated{Source: t.e.Source, Scope: t.scope, From: from, To: to})
			}
		case Git:
			m.progress("Updating %s...", t.e.Source)
			from := m.gitHead(ctx, dir)
			if err := m.updateGit(ctx, src, t.scope); err != nil {
				return updated, err
			}
			if to := m.gitHead(ctx, dir); to != from {
				updated = append(updated, Updated{Source: t.e.Source, Scope: t.scope, From: short(from), To: short(to)})
			}
		}
	}
	return updated, nil
}

func short(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}

// offline is PI_OFFLINE: package installs and updates then skip the network.
func offline() bool {
	v := strings.ToLower(os.Getenv("PI_OFFLINE"))
	return v == "1" || v == "true" || v == "yes"
}

// Listed is one configured package as `pi list` shows it.
type Listed struct {
	Source string
	Scope  Scope
	// Filtered: the entry is the object form.
	Filtered bool
	// Path is where it is installed ("" when nothing is there).
	Path string
}

// List is the configured packages, the user's then the project's, in settings order.
func (m *Manager) List() []Listed {
	global, project := m.Settings.PackageEntries()
	var out []Listed
	for _, e := range global {
		out = append(out, Listed{Source: e.Source, Scope: User, Filtered: e.Filter != nil, Path: m.Dirs.Installed(Parse(e.Source), User)})
	}
	for _, e := range project {
		out = append(out, Listed{Source: e.Source, Scope: Project, Filtered: e.Filter != nil, Path: m.Dirs.Installed(Parse(e.Source), Project)})
	}
	return out
}

// settingsSource is how a source is written to settings: local paths relative to the scope's base
// directory (pi's normalizePackageSourceForSettings), anything else as given.
func (m *Manager) settingsSource(raw string, src Source, scope Scope) string {
	if src.Kind != Local {
		return raw
	}
	abs := m.Dirs.Resolve(src.LocalPath, m.Dirs.Cwd)
	rel, err := filepath.Rel(m.Dirs.BaseDir(scope), abs)
	if err != nil {
		return abs
	}
	if rel == "" {
		return "."
	}
	return filepath.ToSlash(rel)
}

// entrySource is the source of a settings entry as written (a string, or an object's "source").
func entrySource(raw json.RawMessage) (string, bool) {
	var p config.PackageSource
	if json.Unmarshal(raw, &p) != nil {
		var obj struct {
			Source string `json:"source"`
		}
		if json.Unmarshal(raw, &obj) != nil || obj.Source == "" {
			return "", false
		}
		return obj.Source, true
	}
	return p.Source, p.Source != ""
}

func (m *Manager) sameIdentity(entry string, scope Scope, src Source) bool {
	left := Parse(entry).Identity(func(p string) string { return m.Dirs.Resolve(p, m.Dirs.BaseDir(scope)) })
	right := src.Identity(func(p string) string { return m.Dirs.Resolve(p, m.Dirs.Cwd) })
	return left == right
}

// addToSettings appends the source, or replaces the source of the entry of the same package
// (keeping an object entry's filters).
func (m *Manager) addToSettings(raw string, src Source, scope Scope) (bool, error) {
	normalized := m.settingsSource(raw, src, scope)
	quoted := jsonx.AppendString(nil, normalized)
	return m.Settings.UpdatePackages(scope == Project, func(entries []json.RawMessage) ([]json.RawMessage, bool) {
		for i, e := range entries {
			s, ok := entrySource(e)
			if !ok || !m.sameIdentity(s, scope, src) {
				continue
			}
			if s == normalized {
				return nil, false
			}
			next := append([]json.RawMessage(nil), entries...)
			if obj, err := jsonx.ParseObject(e); err == nil {
				obj.Set("source", quoted)
				if data, err := obj.MarshalJSON(); err == nil {
					next[i] = data
					return next, true
				}
			}
			next[i] = quoted
			return next, true
		}
		return append(entries, quoted), true
	})
}

func (m *Manager) removeFromSettings(src Source, scope Scope) (bool, error) {
	return m.Settings.UpdatePackages(scope == Project, func(entries []json.RawMessage) ([]json.RawMessage, bool) {
		var next []json.RawMessage
		for _, e := range entries {
			if s, ok := entrySource(e); ok && m.sameIdentity(s, scope, src) {
				continue
			}
			next = append(next, e)
		}
		if len(next) == len(entries) {
			return nil, false
		}
		if next == nil {
			next = []json.RawMessage{}
		}
		return next, true
	})
}

// noMatchMessage is pi's error for an update of an unknown package, with a suggestion when the
// input is a configured package's name or git shorthand.
func noMatchMessage(raw string, configured []config.PackageSource) string {
	in := strings.TrimSpace(raw)
	for _, e := range configured {
		p := Parse(e.Source)
		switch p.Kind {
		case Npm:
			if in == p.Name || in == p.Spec {
				return fmt.Sprintf("No matching package found for %s. Did you mean %s?", raw, e.Source)
			}
		case Git:
			short := p.Host + "/" + p.Path
			if in == short || (p.Ref != "" && in == short+"@"+p.Ref) {
				return fmt.Sprintf("No matching package found for %s. Did you mean %s?", raw, e.Source)
			}
		}
	}
	return "No matching package found for " + raw
}

func npmVersion(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &pkg) != nil {
		return ""
	}
	return pkg.Version
}
