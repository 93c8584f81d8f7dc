package config

import (
	"path/filepath"
	"testing"
)

func envMap(m map[string]string) Getenv {
	return func(k string) string { return m[k] }
}

func TestAgentDir(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"default", map[string]string{"HOME": "/home/u"}, "/home/u/.pi/agent"},
		{"env absolute", map[string]string{"HOME": "/home/u", EnvAgentDir: "/opt/pi"}, "/opt/pi"},
		{"env tilde", map[string]string{"HOME": "/home/u", EnvAgentDir: "~"}, "/home/u"},
		{"env tilde slash", map[string]string{"HOME": "/home/u", EnvAgentDir: "~/cfg/pi"}, "/home/u/cfg/pi"},
		{"env ~user untouched", map[string]string{"HOME": "/home/u", EnvAgentDir: "~other/pi"}, "~other/pi"},
		{"env relative kept", map[string]string{"HOME": "/home/u", EnvAgentDir: "rel/dir"}, "rel/dir"},
		{"env absolute without HOME", map[string]string{EnvAgentDir: "/opt/pi"}, "/opt/pi"},
	}
	for _, tt := range tests {
		got, err := AgentDir(envMap(tt.env))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got != filepath.FromSlash(tt.want) && got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestSessionDirOverride(t *testing.T) {
	env := envMap(map[string]string{"HOME": "/home/u", EnvSessionDir: "~/sessions"})
	if got := SessionDirOverride("/flag", env); got != "/flag" {
		t.Errorf("flag wins: %q", got)
	}
	if got := SessionDirOverride("", env); got != "/home/u/sessions" {
		t.Errorf("env with ~: %q", got)
	}
	if got := SessionDirOverride("", envMap(nil)); got != "" {
		t.Errorf("nothing set: %q", got)
	}
}

func TestAgentPaths(t *testing.T) {
	p, err := NewAgentPaths(envMap(map[string]string{"HOME": "/h", EnvAgentDir: "/a"}))
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]string{
		p.Models():   "/a/models.json",
		p.Auth():     "/a/auth.json",
		p.Sessions(): "/a/sessions",
		p.Bin():      "/a/bin",
	}
	for got, want := range checks {
		if got != filepath.FromSlash(want) {
			t.Errorf("%q, want %q", got, want)
		}
	}
}

func TestEncodeSessionDirName(t *testing.T) {
	tests := map[string]string{
		"/home/u/project":    "--home-u-project--",
		"/":                  "----",
		`C:\Users\me\proj`:   "--C--Users-me-proj--",
		`\\server\share`:     "---server-share--",
		"/tmp/a:b/c":         "--tmp-a-b-c--",
		"relative/dir":       "--relative-dir--",
		"/home/u/with space": "--home-u-with space--",
	}
	for in, want := range tests {
		if got := EncodeSessionDirName(in); got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}
	p := AgentPaths{Dir: "/a"}
	if got := p.SessionDirFor("/home/u/x"); got != filepath.FromSlash("/a/sessions/--home-u-x--") {
		t.Errorf("SessionDirFor: %q", got)
	}
}
