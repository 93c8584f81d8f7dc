package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/tools/output"
	"github.com/pi-go/pi-go/internal/tools/search"
)

// writeFiles creates files (a trailing "/" makes a directory) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// isolateHome points HOME and XDG_CONFIG_HOME at an empty directory so no global ignore file of
// the machine changes results (for this process and the rg / fd it starts).
func isolateHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
}

func grepRun(t *testing.T, tool loop.Tool, args string) (string, any, error) {
	t.Helper()
	res, err := tool.Execute(context.Background(), loop.ToolCall{Args: json.RawMessage(args)}, nil)
	return bashText(res), res.Details, err
}

func TestGrepDefinitionMatchesPi(t *testing.T) {
	def := NewGrep(t.TempDir()).Definition()
	want := "Search file contents for a pattern. Returns matching lines with file paths and line numbers. Respects .gitignore. Output is truncated to 100 matches or 50KB (whichever is hit first). Long lines are truncated to 500 chars."
	if def.Name != "grep" || def.Description != want {
		t.Fatalf("%q %q", def.Name, def.Description)
	}
	var schema map[string]any
	if err := json.Unmarshal(def.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
}

func TestGrepOutputs(t *testing.T) {
	isolateHome(t)
	dir := t.TempDir()
	long := strings.Repeat("x", 600)
	var big strings.Builder
	for i := range 200 {
		big.WriteString("needle " + strings.Repeat("y", 400) + " " + string(rune('a'+i%26)) + "\n")
	}
	writeFiles(t, dir, map[string]string{
		"example.txt":   "first line\nmatch line\nlast line\n",
		"context.txt":   "before\nmatch one\nafter\nmatch two\nend\n",
		"long.txt":      "short match\n" + long + " match\n",
		"crlf.txt":      "one\r\nmatch crlf\r\nthree\r\n",
		"case.txt":      "Hello World\nhello there\n",
		"regex.txt":     "func main() {\nfunc helper(x int) {\n",
		"sub/deep.go":   "package sub // match deep\n",
		"big/many.txt":  big.String(),
		"dots.txt":      "a.b\naxb\n",
		"trailing.txt":  "match at end",
		"unicode.txt":   "Ünïcödé match\n",
		"adjacent.txt":  "match 1\nmatch 2\nmatch 3\n",
		"lastline.txt":  "x\nmatch\n",
		"cr.txt":        "a\rmatch lone\r\nb\n",
		"nonutf8.txt":   "ok\nbad \xff match\n",
		"binary.bin":    "match before\x00binary match\n",
		".hidden/h.txt": "hidden match\n",
	})
	tool := &grepTool{cwd: dir, backend: search.PureGo}
	tests := []struct {
		name, args, want, wantErr, details string
	}{
		{name: "single file", args: `{"pattern":"match","path":"example.txt"}`, want: "example.txt:2: match line"},
		{name: "context and limit", args: `{"pattern":"match","path":"context.txt","limit":1,"context":1}`,
			want:    "context.txt-1- before\ncontext.txt:2: match one\ncontext.txt-3- after\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]",
			details: `{"matchLimitReached":1}`},
		// The outputs of pi 1.6.0's grep tool for these files and arguments: context windows merge,
		// each line once, nothing past the end of the file (0.73.1 repeated lines and added one).
		{name: "context blocks merge", args: `{"pattern":"match","path":"adjacent.txt","context":1}`,
			want: "adjacent.txt:1: match 1\nadjacent.txt:2: match 2\nadjacent.txt:3: match 3"},
		{name: "context past the end", args: `{"pattern":"match","path":"lastline.txt","context":5}`,
			want: "lastline.txt-1- x\nlastline.txt:2: match"},
		{name: "overlapping windows", args: `{"pattern":"match","path":"context.txt","context":3}`,
			want: "context.txt-1- before\ncontext.txt:2: match one\ncontext.txt-3- after\ncontext.txt:4: match two\ncontext.txt-5- end"},
		{name: "a match past the limit is context", args: `{"pattern":"match","path":"context.txt","limit":1,"context":2}`,
			want:    "context.txt-1- before\ncontext.txt:2: match one\ncontext.txt-3- after\ncontext.txt-4- match two\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]",
			details: `{"matchLimitReached":1}`},
		{name: "a lone CR is content", args: `{"pattern":"match","path":"cr.txt"}`, want: "cr.txt:1: a\rmatch lone"},
		{name: "no matches", args: `{"pattern":"zzz_nothing"}`, want: "No matches found"},
		{name: "missing path", args: `{"pattern":"x","path":"nope"}`, wantErr: "Path not found: " + filepath.Join(dir, "nope")},
		{name: "regex error", args: `{"pattern":"hel(lo"}`, wantErr: "regex parse error:\n    hel(lo\nerror: missing closing )"},
		{name: "glob error", args: `{"pattern":"x","glob":"{a,b"}`,
			wantErr: "error parsing glob '{a,b': unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)"},
		{name: "long lines", args: `{"pattern":"match","path":"long.txt"}`,
			want:    "long.txt:1: short match\nlong.txt:2: " + strings.Repeat("x", 500) + "... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]",
			details: `{"linesTruncated":true}`},
		{name: "crlf", args: `{"pattern":"crlf","path":"crlf.txt"}`, want: "crlf.txt:2: match crlf"},
		{name: "crlf context", args: `{"pattern":"crlf","path":"crlf.txt","context":1}`, want: "crlf.txt-1- one\ncrlf.txt:2: match crlf\ncrlf.txt-3- three"},
		{name: "case sensitive", args: `{"pattern":"hello","path":"case.txt"}`, want: "case.txt:2: hello there"},
		{name: "ignore case", args: `{"pattern":"HELLO","path":"case.txt","ignoreCase":true}`, want: "case.txt:1: Hello World\ncase.txt:2: hello there"},
		{name: "regex", args: `{"pattern":"func \\w+\\(x","path":"regex.txt"}`, want: "regex.txt:2: func helper(x int) {"},
		{name: "regex anchor", args: `{"pattern":"^func m","path":"regex.txt"}`, want: "regex.txt:1: func main() {"},
		{name: "literal", args: `{"pattern":"a.b","path":"dots.txt","literal":true}`, want: "dots.txt:1: a.b"},
		{name: "regex dot", args: `{"pattern":"a.b","path":"dots.txt"}`, want: "dots.txt:1: a.b\ndots.txt:2: axb"},
		{name: "no trailing newline", args: `{"pattern":"end$","path":"trailing.txt"}`, want: "trailing.txt:1: match at end"},
		{name: "unicode ignore case", args: `{"pattern":"ÜNÏCÖDÉ","path":"unicode.txt","ignoreCase":true,"literal":true}`, want: "unicode.txt:1: Ünïcödé match"},
		{name: "not utf-8 is read back", args: `{"pattern":"match","path":"nonutf8.txt"}`, want: "nonutf8.txt:2: bad \uFFFD match"},
		{name: "named binary file is searched", args: `{"pattern":"match","path":"binary.bin"}`, want: "binary.bin:1: match before\x00binary match"},
		{name: "glob", args: `{"pattern":"match","glob":"*.go"}`, want: "sub/deep.go:1: package sub // match deep"},
		{name: "glob with path", args: `{"pattern":"match","glob":"sub/*.go"}`, want: "sub/deep.go:1: package sub // match deep"},
		// pi 1.6: the glob is relative to the searched directory; a leading "./" is dropped.
		{name: "glob relative to path", args: `{"pattern":"match","glob":"*.go","path":"sub"}`, want: "deep.go:1: package sub // match deep"},
		{name: "glob with ./", args: `{"pattern":"match","glob":"./sub/*.go"}`, want: "sub/deep.go:1: package sub // match deep"},
		{name: "glob is not relative to the session", args: `{"pattern":"match","glob":"sub/*.go","path":"sub"}`, want: "No matches found"},
		{name: "negated glob", args: `{"pattern":"match","glob":"!*.txt","path":"sub"}`, want: "deep.go:1: package sub // match deep"},
		{name: "hidden included", args: `{"pattern":"hidden"}`, want: ".hidden/h.txt:1: hidden match"},
		{name: "byte limit", args: `{"pattern":"needle","path":"big","limit":1000}`},
		{name: "fractional limit", args: `{"pattern":"match","path":"adjacent.txt","limit":1.5}`,
			want:    "adjacent.txt:1: match 1\nadjacent.txt:2: match 2\n\n[1.5 matches limit reached. Use limit=3 for more, or refine pattern]",
			details: `{"matchLimitReached":1.5}`},
		{name: "limit below one", args: `{"pattern":"match","path":"adjacent.txt","limit":0}`,
			want:    "adjacent.txt:1: match 1\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]",
			details: `{"matchLimitReached":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, details, err := grepRun(t, tool, tc.args)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "byte limit" {
				if !strings.HasSuffix(text, "\n\n[50.0KB limit reached]") || len(text) > output.DefaultMaxBytes+100 {
					t.Fatalf("text ends %q", text[max(0, len(text)-80):])
				}
				if d := details.(*GrepDetails); d.Truncation == nil || !d.Truncation.Truncated {
					t.Fatalf("details %s", bashJSON(t, d))
				}
				return
			}
			if text != tc.want {
				t.Fatalf("text\n%q\nwant\n%q", text, tc.want)
			}
			if tc.details == "" {
				if details != nil {
					t.Fatalf("details %s", bashJSON(t, details))
				}
			} else if got := bashJSON(t, details); got != tc.details {
				t.Fatalf("details %s, want %s", got, tc.details)
			}
		})
	}
}

func TestGrepAborted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewGrep(t.TempDir()).Execute(ctx, loop.ToolCall{Args: json.RawMessage(`{"pattern":"x"}`)}, nil)
	if err == nil || err.Error() != "Operation aborted" {
		t.Fatalf("error %v", err)
	}
}

// parityTree is a tree with every rule the walk must get right: nested .gitignore files,
// negation, directory patterns, anchoring, "**", .ignore, .rgignore, .git/info/exclude, hidden
// files, binary files, symbolic links and odd bytes.
func parityTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".gitignore":                   "*.log\n/build/\nnode_modules\n!keep.log\ndocs/**/draft.md\n**/tmp/\n",
		"keep.log":                     "needle kept log\n",
		"drop.log":                     "needle dropped log\n",
		"build/out.txt":                "needle in build\n",
		"src/build/ok.txt":             "needle in nested build (not anchored)\n",
		"node_modules/pkg/index.js":    "needle in node_modules\n",
		"src/main.go":                  "package main\n// needle in main\nfunc main() {}\n",
		"src/util.go":                  "package main\nfunc util() string { return \"needle\" }\n",
		"src/.gitignore":               "generated/\n*.gen.go\n!important.gen.go\n",
		"src/generated/x.go":           "needle generated\n",
		"src/a.gen.go":                 "needle gen\n",
		"src/important.gen.go":         "needle important gen\n",
		"src/deeper/.gitignore":        "!*.log\n",
		"src/deeper/again.log":         "needle re-included log\n",
		"src/deeper/tmp/t.txt":         "needle tmp\n",
		"docs/a/b/draft.md":            "needle draft\n",
		"docs/a/b/final.md":            "needle final\n",
		".hidden/secret.txt":           "needle hidden\n",
		".env":                         "NEEDLE=1\nneedle env\n",
		".ignore":                      "ignored-by-dot-ignore.txt\n",
		"ignored-by-dot-ignore.txt":    "needle dot ignore\n",
		".rgignore":                    "rg-only.txt\n",
		"rg-only.txt":                  "needle rgignore\n",
		".fdignore":                    "fd-only.txt\n",
		"fd-only.txt":                  "needle fdignore\n",
		"excluded.txt":                 "needle excluded by info/exclude\n",
		".git/info/exclude":            "excluded.txt\n",
		".git/config":                  "needle in .git\n",
		"bin/data.bin":                 "needle\x00binary\n",
		"crlf.txt":                     "first\r\nneedle crlf\r\nlast\r\n",
		"weird/space name.txt":         "needle with space\n",
		"weird/ünï.txt":                "needle unicode name\n",
		"weird/bad utf8.txt":           "needle \xff\xfe bytes\n",
		"Upper/CASE.TXT":               "NEEDLE upper\nneedle lower\n",
		"a.txt":                        "needle a\n",
		"a/b.txt":                      "needle a/b\n",
		"a-b.txt":                      "needle a-b\n",
		"long/line.txt":                strings.Repeat("z", 700) + " needle\n",
		"many/1.txt":                   strings.Repeat("needle line\n", 30),
		"many/2.txt":                   strings.Repeat("needle line\n", 30),
		"empty.txt":                    "",
		"src/deeper/tmp-not-dir/x.txt": "needle tmp-not-dir\n",
		"bom/utf8.txt":                 "\xef\xbb\xbfneedle after a BOM\nneedle two\n",
		"bom/utf16le.txt":              "\xff\xfen\x00e\x00e\x00d\x00l\x00e\x00 \x00\xe9\x00\n\x00",
		"bom/utf16be.txt":              "\xfe\xff\x00n\x00e\x00e\x00d\x00l\x00e\x00\n",
		"unicode/words.txt":            "héllo wörld\nplain words\n١٢٣ digits\nno break\n[x] y\n",
		"bin/late-nul.txt":             "needle early\n" + strings.Repeat("x", 70000) + "\nneedle middle\n\x00needle late\n",
	})
	if err := os.Symlink("src/main.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestGrepPureGoMatchesRipgrep runs the same searches through rg and the pure-Go search and expects
// the very same output.
func TestGrepPureGoMatchesRipgrep(t *testing.T) {
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("rg is not installed")
	}
	isolateHome(t)
	dir := parityTree(t)
	queries := []string{
		`{"pattern":"needle"}`,
		`{"pattern":"needle","limit":1000}`,
		`{"pattern":"NEEDLE","ignoreCase":true,"limit":1000}`,
		`{"pattern":"needle","literal":true,"path":"src"}`,
		`{"pattern":"needle","glob":"*.go"}`,
		`{"pattern":"needle","glob":"src/**/*.go"}`,
		`{"pattern":"needle","path":"src","glob":"deeper/*"}`,
		`{"pattern":"needle","glob":"./src/*.go","context":2}`,
		`{"pattern":"needle","glob":"!*.txt","limit":1000}`,
		`{"pattern":"needle","glob":"*.log"}`,
		`{"pattern":"needle","context":1,"limit":1000}`,
		`{"pattern":"need(le|ed) [a-z]+$","limit":1000}`,
		`{"pattern":"^needle","path":"crlf.txt","context":2}`,
		`{"pattern":"needle","path":"bin/data.bin"}`,
		`{"pattern":"needle","path":"weird"}`,
		`{"pattern":"nothing-matches-this"}`,
		`{"pattern":"needle","path":"long"}`,
		`{"pattern":"line","path":"many","limit":1000}`,
		`{"pattern":"needle","path":"src/deeper"}`,
		`{"pattern":"needle","path":"bom"}`,
		`{"pattern":"needle","path":"bin"}`,
		`{"pattern":"needle","path":"bom/utf16le.txt"}`,
		`{"pattern":"^\\w+ \\w+$","path":"unicode"}`,
		`{"pattern":"^\\d+","path":"unicode"}`,
		`{"pattern":"no\\sbreak","path":"unicode"}`,
		`{"pattern":"^[\\w]+\\W","path":"unicode"}`,
		`{"pattern":"[]x]","path":"unicode"}`,
	}
	native := &grepTool{cwd: dir, backend: search.PureGo}
	rg := &grepTool{cwd: dir, backend: search.Auto}
	for _, q := range queries {
		want, wantDetails, wantErr := grepRun(t, rg, q)
		got, gotDetails, gotErr := grepRun(t, native, q)
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s: rg error %v, pure Go error %v", q, wantErr, gotErr)
			continue
		}
		if got != want {
			t.Errorf("%s:\nrg:\n%s\npure Go:\n%s", q, want, got)
		}
		if bashJSON(t, gotDetails) != bashJSON(t, wantDetails) {
			t.Errorf("%s: details rg %s, pure Go %s", q, bashJSON(t, wantDetails), bashJSON(t, gotDetails))
		}
	}
}

// TestGrepGitignoreOnlyInsideARepository: like ripgrep, .gitignore rules apply inside a git
// repository; .ignore files apply everywhere.
func TestGrepGitignoreOnlyInsideARepository(t *testing.T) {
	isolateHome(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".gitignore": "a.txt\n",
		".ignore":    "b.txt\n",
		"a.txt":      "needle\n",
		"b.txt":      "needle\n",
		"c.txt":      "needle\n",
	})
	tool := &grepTool{cwd: dir, backend: search.PureGo}
	text, _, err := grepRun(t, tool, `{"pattern":"needle"}`)
	if err != nil || text != "a.txt:1: needle\nc.txt:1: needle" {
		t.Fatalf("outside a repository: %q %v", text, err)
	}
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	text, _, err = grepRun(t, tool, `{"pattern":"needle"}`)
	if err != nil || text != "c.txt:1: needle" {
		t.Fatalf("inside a repository: %q %v", text, err)
	}
	// Searching a subdirectory still honours the repository root's .gitignore.
	writeFiles(t, dir, map[string]string{"sub/a.txt": "needle\n", "sub/d.txt": "needle\n"})
	text, _, err = grepRun(t, tool, `{"pattern":"needle","path":"sub"}`)
	if err != nil || text != "d.txt:1: needle" {
		t.Fatalf("subdirectory: %q %v", text, err)
	}
}

// TestSearchToolErrorsFromTheBinaries puts fake rg and fd on PATH to check how their failures read.
func TestSearchToolErrorsFromTheBinaries(t *testing.T) {
	bin := t.TempDir()
	script := func(name, body string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	dir := t.TempDir()
	tests := []struct {
		name, rg, fd string
		tool         loop.Tool
		args, want   string
	}{
		{name: "rg exit code", rg: "exit 2", tool: NewGrep(dir), args: `{"pattern":"x"}`, want: "ripgrep exited with code 2"},
		{name: "rg stderr", rg: "echo 'rg: bad things' >&2; exit 2", tool: NewGrep(dir), args: `{"pattern":"x"}`, want: "rg: bad things"},
		{name: "rg no match is fine", rg: "exit 1", tool: NewGrep(dir), args: `{"pattern":"x"}`, want: ""},
		{name: "fd exit code", fd: `case "$*" in *--version*) exit 0;; esac; exit 3`, tool: NewFind(dir), args: `{"pattern":"x"}`, want: "fd exited with code 3"},
		{name: "fd stderr", fd: `case "$*" in *--version*) exit 0;; esac; echo '[fd error]: nope' >&2; exit 1`, tool: NewFind(dir), args: `{"pattern":"x"}`, want: "[fd error]: nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(filepath.Join(bin, "rg"))
			os.Remove(filepath.Join(bin, "fd"))
			if tc.rg != "" {
				script("rg", tc.rg)
			}
			if tc.fd != "" {
				script("fd", tc.fd)
			}
			text, _, err := grepRun(t, tc.tool, tc.args)
			if tc.want == "" {
				if err != nil || text != "No matches found" {
					t.Fatalf("text %q error %v", text, err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
