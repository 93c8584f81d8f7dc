package pkgpath

import (
	"path/filepath"
	"testing"
)

// Sources are read as pi 1.6's package manager reads them, and installed where it installs them.
func TestParseAndInstallDir(t *testing.T) {
	const root = "/home/u/.pi/agent"
	for _, tc := range []struct {
		src  string
		want Source
		dir  string
	}{
		{"npm:@scope/themes@1.2.3", Source{Kind: NPM, Name: "@scope/themes", Version: "1.2.3"}, "npm/node_modules/@scope/themes"},
		{"npm:plain", Source{Kind: NPM, Name: "plain"}, "npm/node_modules/plain"},
		{"npm:plain@^2", Source{Kind: NPM, Name: "plain", Version: "^2"}, "npm/node_modules/plain"},
		{"git:github.com/user/repo@v1", Source{Kind: Git, Host: "github.com", Path: "user/repo", Ref: "v1"}, "git/github.com/user/repo"},
		{"git:user/repo", Source{Kind: Git, Host: "github.com", Path: "user/repo"}, "git/github.com/user/repo"},
		{"git:git@gitlab.com:group/sub/repo.git@main", Source{Kind: Git, Host: "gitlab.com", Path: "group/sub/repo", Ref: "main"}, "git/gitlab.com/group/sub/repo"},
		{"https://github.com/user/repo", Source{Kind: Git, Host: "github.com", Path: "user/repo"}, "git/github.com/user/repo"},
		{"https://github.com/user/repo.git@abc123", Source{Kind: Git, Host: "github.com", Path: "user/repo", Ref: "abc123"}, "git/github.com/user/repo"},
		{"ssh://git@example.org:2222/team/tools", Source{Kind: Git, Host: "example.org", Path: "team/tools"}, "git/example.org/team/tools"},
		{"git:localhost/a/b", Source{Kind: Git, Host: "localhost", Path: "a/b"}, "git/localhost/a/b"},
		{"./local-pkg", Source{Kind: Local}, ""},
		{"github.com/user/repo", Source{Kind: Local}, ""}, // without git: only a URL is git
		{"git:github.com/../../etc", Source{Kind: Local}, ""},
		{"git:github.com/only", Source{Kind: Local}, ""},
		{"git:evil%2F..%2Fhost/a/b", Source{Kind: Local}, ""},
		{"npm:../../escape", Source{Kind: NPM, Name: "../../escape"}, ""},
	} {
		got := Parse(tc.src)
		tc.want.Raw = tc.src
		if got != tc.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.src, got, tc.want)
		}
		dir := ""
		if tc.dir != "" {
			dir = filepath.Join(root, filepath.FromSlash(tc.dir))
		}
		if d := got.InstallDir(root); d != dir {
			t.Errorf("%q installs in %q, want %q", tc.src, d, dir)
		}
	}
}
