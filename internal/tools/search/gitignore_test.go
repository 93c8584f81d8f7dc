package search

import (
	"strings"
	"testing"
)

func TestGitignorePatterns(t *testing.T) {
	tests := []struct {
		patterns string
		path     string
		dir      bool
		want     giVerdict
	}{
		{"*.log", "a.log", false, giIgnore},
		{"*.log", "deep/down/a.log", false, giIgnore},
		{"*.log", "a.log.txt", false, giNone},
		{"build", "build", true, giIgnore},
		{"build", "src/build", false, giIgnore},
		{"build/", "src/build", true, giIgnore},
		{"build/", "src/build", false, giNone},
		{"/build", "build", true, giIgnore},
		{"/build", "src/build", true, giNone},
		{"doc/frotz", "doc/frotz", true, giIgnore},
		{"doc/frotz", "a/doc/frotz", true, giNone},
		{"**/foo", "foo", false, giIgnore},
		{"**/foo", "a/b/foo", false, giIgnore},
		{"**/foo/bar", "x/foo/bar", false, giIgnore},
		{"abc/**", "abc", true, giNone},
		{"abc/**", "abc/x", false, giIgnore},
		{"abc/**", "abc/x/y", false, giIgnore},
		{"a/**/b", "a/b", false, giIgnore},
		{"a/**/b", "a/x/y/b", false, giIgnore},
		{"a/**/b", "a/x/y/c", false, giNone},
		{"a/*/b", "a/x/b", false, giIgnore},
		{"a/*/b", "a/x/y/b", false, giNone},
		{"*.txt\n!keep.txt", "keep.txt", false, giWhitelist},
		{"*.txt\n!keep.txt", "drop.txt", false, giIgnore},
		{"!keep.txt\n*.txt", "keep.txt", false, giIgnore},
		{"# comment\n\n  \nfoo", "foo", false, giIgnore},
		{"\\#hash", "#hash", false, giIgnore},
		{"\\!bang", "!bang", false, giIgnore},
		{"trailing   ", "trailing", false, giIgnore},
		{"space\\ ", "space ", false, giIgnore},
		{"crlf\r", "crlf", false, giIgnore},
		{"fo?", "foo", false, giIgnore},
		{"fo?", "fooo", false, giNone},
		{"[abc].go", "b.go", false, giIgnore},
		{"[!abc].go", "b.go", false, giNone},
		{"[!abc].go", "d.go", false, giIgnore},
		{"[a-c]x", "bx", false, giIgnore},
		{"[]a]", "]", false, giIgnore},
		{"*.{js,ts}", "x.ts", false, giIgnore},
		{"*.{js,ts}", "x.go", false, giNone},
		{"a**", "abc", false, giIgnore},
		{"***", "anything", false, giIgnore},
		{"*a*b*", "xxaxxbxx", false, giIgnore},
		{"*a*b*", "xxbxxaxx", false, giNone},
		{"ü*", "über", false, giIgnore},
		{"?ber", "über", false, giIgnore},
		{"[z-a]\nok", "ok", false, giIgnore}, // a bad line is skipped, not fatal
	}
	for _, tc := range tests {
		m := giParseFile("/root", []byte(tc.patterns))
		if got := m.match("/root/"+tc.path, tc.dir); got != tc.want {
			t.Errorf("patterns %q path %q dir=%v: got %d want %d", tc.patterns, tc.path, tc.dir, got, tc.want)
		}
	}
}

func TestGitignoreOutsideItsDirectory(t *testing.T) {
	m := giParseFile("/root/sub", []byte("*"))
	if m.match("/root/other/x", false) != giNone || m.match("/root/subx", false) != giNone {
		t.Fatal("rules leaked outside their directory")
	}
	if m.match("/root/sub/x", false) != giIgnore {
		t.Fatal("rule did not apply inside its directory")
	}
	if m := giParseFile("/", []byte("/tmp")); m.match("/tmp", true) != giIgnore {
		t.Fatal("rules of / did not apply")
	}
}

func TestGitignoreGlobErrorsMatchRipgrep(t *testing.T) {
	tests := map[string]string{
		"{a,{b,c}}": "error parsing glob '{a,{b,c}}': nested alternate groups are not allowed",
		"[z-a]":     "error parsing glob '[z-a]': invalid range; 'z' > 'a'",
		`a\`:        `error parsing glob 'a\': dangling '\'`,
		"[]":        "error parsing glob '[]': unclosed character class; missing ']'",
		"[!]":       "error parsing glob '[!]': unclosed character class; missing ']'",
		"{a,b":      "error parsing glob '{a,b': unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)",
	}
	for glob, want := range tests {
		_, err := giParseGlobs("/", []string{glob})
		if err == nil || err.Error() != want {
			t.Errorf("%q: got %v want %q", glob, err, want)
		}
	}
	for _, ok := range []string{"a}", "a**", "*.ts", "!*.md", "src/**/*.go"} {
		if _, err := giParseGlobs("/", []string{ok}); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestGitignoreOverridesReverseNegation(t *testing.T) {
	m, err := giParseGlobs("/w", []string{"*.ts", "!gen.ts"})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]giVerdict{"a.ts": giWhitelist, "x/gen.ts": giIgnore, "a.go": giNone} {
		if got := m.match("/w/"+path, false); got != want {
			t.Errorf("%s: got %d want %d", path, got, want)
		}
	}
	if !m.hasWhitelist {
		t.Fatal("whitelist not recorded")
	}
	if m, _ := giParseGlobs("/w", []string{strings.Repeat("{a,b}", 11)}); m != nil {
		t.Fatal("brace explosion accepted")
	}
}
