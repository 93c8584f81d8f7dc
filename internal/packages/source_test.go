package packages

import "testing"

func TestParseSourcesAsPi(t *testing.T) {
	cases := []struct {
		in   string
		want Source
	}{
		{"npm:@foo/bar@1.2.3", Source{Kind: Npm, Spec: "@foo/bar@1.2.3", Name: "@foo/bar", Version: "1.2.3", Pinned: true}},
		{"npm:pkg", Source{Kind: Npm, Spec: "pkg", Name: "pkg"}},
		{"npm:pkg@^2", Source{Kind: Npm, Spec: "pkg@^2", Name: "pkg", Version: "^2"}},
		{"git:github.com/user/repo@v1", Source{Kind: Git, Repo: "https://github.com/user/repo", Host: "github.com", Path: "user/repo", Ref: "v1"}},
		{"git:git@github.com:user/repo", Source{Kind: Git, Repo: "git@github.com:user/repo", Host: "github.com", Path: "user/repo"}},
		{"git:git@github.com:user/repo.git@main", Source{Kind: Git, Repo: "git@github.com:user/repo.git", Host: "github.com", Path: "user/repo", Ref: "main"}},
		{"https://github.com/user/repo", Source{Kind: Git, Repo: "https://github.com/user/repo", Host: "github.com", Path: "user/repo"}},
		{"https://gitlab.example.com/group/sub/repo.git@abc1234", Source{Kind: Git, Repo: "https://gitlab.example.com/group/sub/repo.git", Host: "gitlab.example.com", Path: "group/sub/repo", Ref: "abc1234"}},
		{"ssh://git@github.com/user/repo", Source{Kind: Git, Repo: "ssh://git@github.com/user/repo", Host: "github.com", Path: "user/repo"}},
		{"http://127.0.0.1:8080/user/repo", Source{Kind: Git, Repo: "http://127.0.0.1:8080/user/repo", Host: "127.0.0.1", Path: "user/repo"}},
		{"./local/path", Source{Kind: Local, LocalPath: "./local/path"}},
		{"~/pkgs/x", Source{Kind: Local, LocalPath: "~/pkgs/x"}},
		// Without "git:" a bare host/path is a local path; git: needs a dotted host and owner/repo.
		{"github.com/user/repo", Source{Kind: Local, LocalPath: "github.com/user/repo"}},
		{"git:nohost/repo", Source{Kind: Local, LocalPath: "git:nohost/repo"}},
		{"git:github.com/../../etc", Source{Kind: Local, LocalPath: "git:github.com/../../etc"}},
	}
	for _, c := range cases {
		got := Parse(c.in)
		c.want.Raw = c.in
		if got != c.want {
			t.Errorf("Parse(%q)\n got %+v\nwant %+v", c.in, got, c.want)
		}
	}
}

func TestIdentityJoinsEquivalentSources(t *testing.T) {
	abs := func(p string) string { return "/base/" + p }
	same := [][2]string{
		{"npm:foo@1.0.0", "npm:foo"},
		{"git:github.com/u/r@v1", "https://github.com/u/r.git"},
		{"git:git@github.com:u/r", "ssh://git@github.com/u/r"},
	}
	for _, s := range same {
		if a, b := Parse(s[0]).Identity(abs), Parse(s[1]).Identity(abs); a != b {
			t.Errorf("%s (%s) and %s (%s) differ", s[0], a, s[1], b)
		}
	}
	if Parse("npm:foo").Identity(abs) == Parse("npm:foobar").Identity(abs) {
		t.Error("different names share an identity")
	}
}
