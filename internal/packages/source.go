package packages

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Kind is a source's kind.
type Kind int

const (
	Local Kind = iota
	Npm
	Git
)

// Source is a parsed package source, as pi's parseSource makes it.
type Source struct {
	// Raw is the source as given.
	Raw  string
	Kind Kind

	// npm: Spec is what follows "npm:" (name and version), Name the package name, Version the part
	// after the name's "@" (empty: none), Pinned whether Version is one exact version.
	Spec, Name, Version string
	Pinned              bool

	// git: Repo is what git clones, Host and Path (owner/repo, no .git) name the checkout directory,
	// Ref the tag, branch or commit after "@" (empty: the remote's default branch).
	Repo, Host, Path, Ref string

	// LocalPath is a local source's path, unresolved ("~", relative or absolute).
	LocalPath string
}

// Parse parses a source as pi does: "npm:<spec>", then anything that is not a URL-like prefix is a
// local path, then git ("git:" with any shorthand, or an explicit https/http/ssh/git URL); what is
// neither is a local path too.
func Parse(raw string) Source {
	src := strings.TrimSpace(raw)
	if spec, ok := strings.CutPrefix(src, "npm:"); ok {
		spec = strings.TrimSpace(spec)
		name, version := splitNpmSpec(spec)
		return Source{Raw: raw, Kind: Npm, Spec: spec, Name: name, Version: version, Pinned: exactVersion.MatchString(version)}
	}
	if isLocalPath(src) {
		return Source{Raw: raw, Kind: Local, LocalPath: src}
	}
	if g, ok := parseGit(src); ok {
		g.Raw = raw
		return g
	}
	return Source{Raw: raw, Kind: Local, LocalPath: src}
}

// Validate says what is wrong with a source that cannot be installed: an npm source without a
// name, a git URL that names no owner/repository.
func (s Source) Validate() error {
	switch s.Kind {
	case Npm:
		if s.Name == "" || strings.ContainsAny(s.Name, " \t") {
			return fmt.Errorf("invalid npm source %q: expected npm:<name>[@<version>]", s.Raw)
		}
	case Local:
		if s.LocalPath == "" {
			return fmt.Errorf("invalid source %q: empty path", s.Raw)
		}
		if !isLocalPath(s.LocalPath) {
			return fmt.Errorf("invalid git source %q: expected git:<host>/<owner>/<repo>[@<ref>], git:git@<host>:<owner>/<repo>, or an https, ssh or git URL naming <owner>/<repo>", s.Raw)
		}
	}
	return nil
}

// exactVersion is a full semantic version (semver's valid()), which pi treats as pinned.
var exactVersion = regexp.MustCompile(`^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$`)

// splitNpmSpec splits "name@version" and "@scope/name@version".
func splitNpmSpec(spec string) (name, version string) {
	m := npmSpec.FindStringSubmatch(spec)
	if m == nil {
		return spec, ""
	}
	return m[1], m[2]
}

var npmSpec = regexp.MustCompile(`^(@?[^@]+(?:/[^@]+)?)(?:@(.+))?$`)

// isLocalPath: anything without a known remote prefix (file: URLs are paths too).
func isLocalPath(s string) bool {
	for _, p := range []string{"npm:", "git:", "github:", "http:", "https:", "ssh:", "builtin:"} {
		if strings.HasPrefix(s, p) {
			return false
		}
	}
	return true
}

var (
	scpLike     = regexp.MustCompile(`^git@([^:]+):(.+)$`)
	explicitURL = regexp.MustCompile(`(?i)^(https?|ssh|git)://`)
)

// parseGit is pi's parseGitUrl for the forms it documents: with "git:" any of host/owner/repo[@ref],
// git@host:owner/repo[@ref] and the URLs; without it only https, http, ssh and git URLs.
func parseGit(src string) (Source, bool) {
	u, hasPrefix := strings.CutPrefix(src, "git:")
	u = strings.TrimSpace(u)
	if !hasPrefix && !explicitURL.MatchString(u) {
		return Source{}, false
	}
	repo, ref := splitRef(u)
	var host, path string
	switch {
	case scpLike.MatchString(repo):
		m := scpLike.FindStringSubmatch(repo)
		host, path = m[1], m[2]
	case hasScheme(repo):
		parsed, err := url.Parse(repo)
		if err != nil {
			return Source{}, false
		}
		host, path = parsed.Hostname(), strings.TrimLeft(parsed.Path, "/")
	default:
		i := strings.Index(repo, "/")
		if i < 0 {
			return Source{}, false
		}
		host, path = repo[:i], repo[i+1:]
		if !strings.Contains(host, ".") && host != "localhost" {
			return Source{}, false
		}
		repo = "https://" + repo
	}
	path = strings.TrimLeft(strings.TrimSuffix(path, ".git"), "/")
	if host == "" || len(strings.Split(path, "/")) < 2 || unsafePart(host, false) || unsafePart(path, true) {
		return Source{}, false
	}
	return Source{Kind: Git, Repo: repo, Host: host, Path: path, Ref: ref}, true
}

func hasScheme(s string) bool {
	for _, p := range []string{"https://", "http://", "ssh://", "git://"} {
		if strings.HasPrefix(strings.ToLower(s), p) {
			return true
		}
	}
	return false
}

// splitRef takes "@ref" off the repository part (not off the user of git@host: or a URL's user).
func splitRef(u string) (repo, ref string) {
	if m := scpLike.FindStringSubmatch(u); m != nil {
		p, r, ok := strings.Cut(m[2], "@")
		if !ok || p == "" || r == "" {
			return u, ""
		}
		return "git@" + m[1] + ":" + p, r
	}
	if strings.Contains(u, "://") {
		parsed, err := url.Parse(u)
		if err != nil {
			return u, ""
		}
		p, r, ok := strings.Cut(strings.TrimLeft(parsed.Path, "/"), "@")
		if !ok || p == "" || r == "" {
			return u, ""
		}
		parsed.Path = "/" + p
		return strings.TrimSuffix(parsed.String(), "/"), r
	}
	i := strings.Index(u, "/")
	if i < 0 {
		return u, ""
	}
	p, r, ok := strings.Cut(u[i+1:], "@")
	if !ok || p == "" || r == "" {
		return u, ""
	}
	return u[:i] + "/" + p, r
}

// unsafePart rejects what could lead a checkout outside the install root.
func unsafePart(s string, allowSlash bool) bool {
	dec, err := url.PathUnescape(s)
	if err != nil {
		return true
	}
	for _, c := range []string{s, dec} {
		if strings.ContainsAny(c, "\x00\\") || strings.HasPrefix(c, "/") || (!allowSlash && strings.Contains(c, "/")) {
			return true
		}
		for _, seg := range strings.Split(c, "/") {
			if seg == ".." {
				return true
			}
		}
	}
	return false
}

// Identity is how pi tells two sources are one package: npm by name, git by host and path (ssh and
// https forms are the same), local by resolved path (resolve turns a local path absolute).
func (s Source) Identity(resolve func(string) string) string {
	switch s.Kind {
	case Npm:
		return "npm:" + s.Name
	case Git:
		return "git:" + s.Host + "/" + s.Path
	}
	return "local:" + resolve(s.LocalPath)
}
