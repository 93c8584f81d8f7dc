// Package pkgpath reads the sources of settings.json "packages" entries (npm:, git:, URLs, local
// paths) and says where pi 1.6 installs each: npm packages under <root>/npm/node_modules/<name>,
// git clones under <root>/git/<host>/<path>, where root is the agent directory (~/.pi/agent) for
// the user's settings and the project's .pi directory for the project's. It installs nothing and
// touches no file: the resource loaders (themes, extensions) and pi install share it.
package pkgpath

import (
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
)

// Kind is what a source names.
type Kind int

const (
	// Local is a path on disk, loaded where it is (relative to the settings file's directory).
	Local Kind = iota
	// NPM is an npm package ("npm:@scope/name@1.2.3").
	NPM
	// Git is a git repository ("git:github.com/user/repo@v1", "https://host/user/repo").
	Git
)

// Source is one parsed package source.
type Source struct {
	Kind Kind
	// Raw is the source as written.
	Raw string
	// Name and Version: an npm package's name ("@scope/name") and version or range ("" for none).
	Name, Version string
	// Host, Path and Ref: a git repository's host, its path on the host without ".git"
	// ("user/repo") and the ref after "@" ("" for the default branch).
	Host, Path, Ref string
}

// npmSpec is pi's split of an npm specification into the name and the version after its "@".
var npmSpec = regexp.MustCompile(`^(@?[^@]+(?:/[^@]+)?)(?:@(.+))?$`)

// explicitGitURL: without "git:" only a URL with one of these schemes is a git source.
var explicitGitURL = regexp.MustCompile(`(?i)^(https?|ssh|git)://`)

// Parse reads a source as pi does: "npm:" is npm; "git:" or an http(s), ssh or git URL is git;
// anything else is a local path. A git source pi could not install (no "user/repo" path, a ".."
// in it) is reported as Local, which names no installed directory.
func Parse(src string) Source {
	s := strings.TrimSpace(src)
	if spec, ok := strings.CutPrefix(s, "npm:"); ok {
		spec = strings.TrimSpace(spec)
		out := Source{Kind: NPM, Raw: src, Name: spec}
		if m := npmSpec.FindStringSubmatch(spec); m != nil {
			out.Name, out.Version = m[1], m[2]
		}
		return out
	}
	rest, prefixed := strings.CutPrefix(s, "git:")
	rest = strings.TrimSpace(rest)
	if !prefixed && !explicitGitURL.MatchString(rest) {
		return Source{Kind: Local, Raw: src}
	}
	host, path, ref, ok := splitGit(rest)
	if !ok {
		return Source{Kind: Local, Raw: src}
	}
	return Source{Kind: Git, Raw: src, Host: host, Path: path, Ref: ref}
}

// splitGit finds the host, the repository path and the ref of a git address: scp-like
// (git@host:user/repo@ref), a URL (https://host/user/repo@ref) or host/user/repo@ref, where a host
// has a dot or is localhost (otherwise "user/repo" is GitHub's shorthand, as npm's hosted-git-info
// reads it).
func splitGit(addr string) (host, path, ref string, ok bool) {
	switch {
	case strings.HasPrefix(addr, "git@") && strings.Contains(addr, ":") && !strings.Contains(addr, "://"):
		host, path, _ = strings.Cut(strings.TrimPrefix(addr, "git@"), ":")
	case strings.Contains(addr, "://"):
		u, err := url.Parse(addr)
		if err != nil {
			return "", "", "", false
		}
		host, path = u.Hostname(), u.Path
		if u.Fragment != "" {
			ref = u.Fragment
		}
	default:
		first, after, found := strings.Cut(addr, "/")
		if !found {
			return "", "", "", false
		}
		if strings.Contains(first, ".") || first == "localhost" {
			host, path = first, after
		} else {
			host, path = "github.com", addr
		}
	}
	path = strings.TrimLeft(path, "/")
	if p, r, found := strings.Cut(path, "@"); found && ref == "" {
		path, ref = p, r
	}
	path = strings.TrimSuffix(path, ".git")
	if !safePart(host, false) || !safePart(path, true) || len(strings.Split(path, "/")) < 2 {
		return "", "", "", false
	}
	return host, path, ref, true
}

// safePart refuses what would lead an install path out of its root (as pi does): "..", a
// backslash, a NUL, a leading slash, and in a host any slash, also once percent-decoded.
func safePart(v string, slashes bool) bool {
	if v == "" {
		return false
	}
	decoded, err := url.PathUnescape(v)
	if err != nil {
		return false
	}
	for _, c := range []string{v, decoded} {
		if strings.ContainsAny(c, "\\\x00") || strings.HasPrefix(c, "/") || !slashes && strings.Contains(c, "/") {
			return false
		}
		for _, seg := range strings.Split(c, "/") {
			if seg == ".." || seg == "" {
				return false
			}
		}
	}
	return true
}

// InstallDir is where pi installs the source for a scope whose root is root (the agent directory
// for the user's settings, <project>/.pi for the project's); "" for a local source, which is not
// installed.
func (s Source) InstallDir(root string) string {
	switch s.Kind {
	case NPM:
		if !safePart(s.Name, true) {
			return ""
		}
		return filepath.Join(root, "npm", "node_modules", filepath.FromSlash(s.Name))
	case Git:
		return filepath.Join(root, "git", s.Host, filepath.FromSlash(s.Path))
	}
	return ""
}
