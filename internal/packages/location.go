package packages

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Scope is where a package is declared: "user" (~/.pi/agent/settings.json) or "project"
// (.pi/settings.json, installed under the project's .pi).
type Scope string

const (
	User    Scope = "user"
	Project Scope = "project"
	// Temporary is a package named with -e: cached under <agentDir>/tmp/extensions, in pi's layout,
	// and never written to settings.
	Temporary Scope = "temporary"
)

// Dirs are the directories package locations derive from.
type Dirs struct {
	// AgentDir is ~/.pi/agent (or PI_CODING_AGENT_DIR).
	AgentDir string
	// Cwd is the project directory; its .pi holds project packages.
	Cwd string
	// Home expands "~" in local sources.
	Home string
}

// BaseDir is the directory a scope's relative local sources resolve from: the agent directory for
// the user, the project's .pi for the project.
func (d Dirs) BaseDir(scope Scope) string {
	switch scope {
	case Project:
		return filepath.Join(d.Cwd, ".pi")
	case Temporary:
		return d.Cwd
	}
	return d.AgentDir
}

// NpmRoot is the npm project packages of a scope are installed into (node_modules below it).
func (d Dirs) NpmRoot(scope Scope) string {
	if scope == Temporary {
		return d.temporaryDir("npm", "", "")
	}
	return filepath.Join(d.BaseDir(scope), "npm")
}

// temporaryDir is pi's getTemporaryDir: <agentDir>/tmp/extensions/<prefix>/<hash>/<suffix>, the
// hash naming the prefix, suffix and ref, so each pinned ref has its own checkout.
func (d Dirs) temporaryDir(prefix, suffix, ref string) string {
	key := prefix + "-" + suffix
	if ref != "" {
		key += "@" + ref
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(d.AgentDir, "tmp", "extensions", prefix, hex.EncodeToString(sum[:])[:8], filepath.FromSlash(suffix))
}

// GitRoot is the directory git packages of a scope are cloned under (<host>/<owner>/<repo>; for
// Temporary, the -e cache that holds every temporary checkout).
func (d Dirs) GitRoot(scope Scope) string {
	if scope == Temporary {
		return filepath.Join(d.AgentDir, "tmp", "extensions")
	}
	return filepath.Join(d.BaseDir(scope), "git")
}

// Resolve makes a local path absolute: "~" is the home directory, a relative path is relative to
// base, and a file: URL is its path.
func (d Dirs) Resolve(p, base string) string {
	p = strings.TrimSpace(p)
	if rest, ok := strings.CutPrefix(p, "file://"); ok {
		p = rest
	}
	if p == "~" {
		p = d.Home
	} else if strings.HasPrefix(p, "~/") {
		p = filepath.Join(d.Home, p[2:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// InstallPath is where a source of a scope is (or would be) installed: npm packages in the scope's
// npm/node_modules, git checkouts in the scope's git/<host>/<path>, local sources where they are
// (relative to the scope's base directory).
func (d Dirs) InstallPath(s Source, scope Scope) (string, error) {
	switch s.Kind {
	case Npm:
		return filepath.Join(d.NpmRoot(scope), "node_modules", filepath.FromSlash(s.Name)), nil
	case Git:
		if scope == Temporary {
			return d.temporaryDir("git-"+s.Host, s.Path, s.Ref), nil
		}
		root := d.GitRoot(scope)
		p := filepath.Join(root, s.Host, filepath.FromSlash(s.Path))
		if rel, err := filepath.Rel(root, p); err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			return "", fmt.Errorf("refusing to use path outside package install root: %s", p)
		}
		return p, nil
	}
	return d.Resolve(s.LocalPath, d.BaseDir(scope)), nil
}

// Installed is InstallPath when something is there, else "".
func (d Dirs) Installed(s Source, scope Scope) string {
	p, err := d.InstallPath(s, scope)
	if err != nil {
		return ""
	}
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}
