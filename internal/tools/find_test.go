package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/tools/search"
)

func TestFindDefinitionMatchesPi(t *testing.T) {
	def := NewFind(t.TempDir()).Definition()
	want := "Search for files by glob pattern. Returns matching file paths relative to the search directory. Respects .gitignore. Output is truncated to 1000 results or 50KB (whichever is hit first)."
	if def.Name != "find" || def.Description != want {
		t.Fatalf("%q %q", def.Name, def.Description)
	}
	var schema map[string]any
	if err := json.Unmarshal(def.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
}

func TestFindOutputs(t *testing.T) {
	isolateHome(t)
	dir := t.TempDir()
	files := map[string]string{
		".gitignore":             "ignored.txt\nbuild/\n",
		"ignored.txt":            "",
		"build/out.js":           "",
		".secret/hidden.txt":     "",
		"visible.txt":            "",
		"README.MD":              "",
		"src/main.go":            "",
		"src/pkg/util.go":        "",
		"src/pkg/util_test.go":   "",
		"lib/src/other.go":       "",
		"empty/":                 "",
		"many/":                  "",
		"src/.gitignore":         "*.tmp\n",
		"src/x.tmp":              "",
		"deep/a/b/c/target.json": "",
	}
	for i := range 30 {
		files[fmt.Sprintf("many/f%02d.txt", i)] = ""
	}
	for i := range 600 {
		files[fmt.Sprintf("long/%s%03d.dat", strings.Repeat("n", 90), i)] = ""
	}
	writeFiles(t, dir, files)
	if err := os.Symlink("src", filepath.Join(dir, "srclink")); err != nil {
		t.Fatal(err)
	}
	tool := newFindTool(dir, search.PureGo)
	tests := []struct {
		name, args, want, wantErr, details string
	}{
		{name: "hidden included, gitignore respected", args: `{"pattern":"*i*.txt","path":"."}`,
			want: ".secret/hidden.txt\nvisible.txt"},
		{name: "many", args: `{"pattern":"*.txt","path":"many","limit":3}`,
			want:    "f00.txt\nf01.txt\nf02.txt\n\n[3 results limit reached. Use limit=6 for more, or refine pattern]",
			details: `{"resultLimitReached":3}`},
		{name: "limit equal to count", args: `{"pattern":"f0*","path":"many","limit":10}`,
			want:    "f00.txt\nf01.txt\nf02.txt\nf03.txt\nf04.txt\nf05.txt\nf06.txt\nf07.txt\nf08.txt\nf09.txt\n\n[10 results limit reached. Use limit=20 for more, or refine pattern]",
			details: `{"resultLimitReached":10}`},
		{name: "limit zero is none", args: `{"pattern":"f2*","path":"many","limit":0}`,
			want:    "f20.txt\nf21.txt\nf22.txt\nf23.txt\nf24.txt\nf25.txt\nf26.txt\nf27.txt\nf28.txt\nf29.txt\n\n[0 results limit reached. Use limit=0 for more, or refine pattern]",
			details: `{"resultLimitReached":0}`},
		{name: "basename match at any depth", args: `{"pattern":"*.go"}`,
			want: "lib/src/other.go\nsrc/main.go\nsrc/pkg/util.go\nsrc/pkg/util_test.go"},
		// pi 1.6 anchors a relative path pattern at the search path (0.73.1 put "**/" before it).
		{name: "path pattern", args: `{"pattern":"src/**/*.go"}`,
			want: "src/main.go\nsrc/pkg/util.go\nsrc/pkg/util_test.go"},
		{name: "path pattern one level", args: `{"pattern":"src/*.go"}`, want: "src/main.go"},
		{name: "path pattern at any depth", args: `{"pattern":"**/src/*.go"}`, want: "lib/src/other.go\nsrc/main.go"},
		{name: "leading ./ dropped", args: `{"pattern":"./src/*.go"}`, want: "src/main.go"},
		{name: "path pattern in a subdirectory", args: `{"pattern":"src/*.go","path":"lib"}`, want: "src/other.go"},
		{name: "smart case of a path pattern is the pattern's", args: `{"pattern":"DEEP/**/*.json"}`, want: "No files found matching pattern"},
		{name: "lower-case path pattern ignores case", args: `{"pattern":"readme.md"}`, want: "README.MD"},
		{name: "double star", args: `{"pattern":"**/*.json"}`, want: "deep/a/b/c/target.json"},
		{name: "directories get a slash", args: `{"pattern":"*"}`,
			want: ".gitignore\n.secret/\n.secret/hidden.txt\nREADME.MD\ndeep/\ndeep/a/\ndeep/a/b/\ndeep/a/b/c/\ndeep/a/b/c/target.json\nempty/\nlib/"},
		{name: "smart case insensitive", args: `{"pattern":"*.md"}`, want: "README.MD"},
		{name: "smart case sensitive", args: `{"pattern":"*.Md"}`, want: "No files found matching pattern"},
		{name: "braces", args: `{"pattern":"*.{go,json}","path":"deep"}`, want: "a/b/c/target.json"},
		{name: "symlink listed not followed", args: `{"pattern":"src*"}`, want: "lib/src/\nsrc/\nsrclink"},
		{name: "nested gitignore", args: `{"pattern":"*.tmp"}`, want: "No files found matching pattern"},
		{name: "no results", args: `{"pattern":"*.nothing"}`, want: "No files found matching pattern"},
		{name: "trailing slash matches nothing", args: `{"pattern":"src/"}`, want: "No files found matching pattern"},
		{name: "missing path", args: `{"pattern":"*","path":"nope"}`,
			wantErr: "[fd error]: Search path '" + filepath.Join(dir, "nope") + "' is not a directory.\n[fd error]: No valid search paths given."},
		{name: "file path", args: `{"pattern":"*","path":"visible.txt"}`,
			wantErr: "[fd error]: Search path '" + filepath.Join(dir, "visible.txt") + "' is not a directory.\n[fd error]: No valid search paths given."},
		{name: "glob error", args: `{"pattern":"[z-a]"}`, wantErr: "[fd error]: error parsing glob '[z-a]': invalid range; 'z' > 'a'"},
		{name: "glob error with prefix", args: `{"pattern":"a/\\"}`, wantErr: `[fd error]: error parsing glob '` + dir + `/a/\': dangling '\'`},
		{name: "bad limit", args: `{"pattern":"*","limit":2.5}`,
			wantErr: "error: Invalid value '2.5' for '--max-results <count>': invalid digit found in string\n\nFor more information try '--help'"},
		{name: "byte limit", args: `{"pattern":"*.dat","path":"long"}`},
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
			if tc.name == "directories get a slash" {
				text = strings.Join(strings.Split(text, "\n")[:11], "\n")
				details = nil
			}
			if tc.name == "byte limit" {
				if !strings.HasSuffix(text, "\n\n[50.0KB limit reached]") {
					t.Fatalf("text ends %q", text[max(0, len(text)-80):])
				}
				return
			}
			if text != tc.want {
				t.Fatalf("text\n%.2000q\nwant\n%q", text, tc.want)
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

func TestFindAborted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewFind(t.TempDir()).Execute(ctx, loop.ToolCall{Args: json.RawMessage(`{"pattern":"*"}`)}, nil)
	if err == nil || err.Error() != "Operation aborted" {
		t.Fatalf("error %v", err)
	}
}

// TestFindPureGoMatchesFd runs the same patterns through fd and the pure-Go walk.
func TestFindPureGoMatchesFd(t *testing.T) {
	isolateHome(t)
	dir := parityTree(t)
	rgTool := newFindTool(dir, search.Auto)
	if !rgTool.finder.UsesFd(dir) {
		t.Skip("fd is not installed")
	}
	queries := []string{
		`{"pattern":"*"}`,
		`{"pattern":"*.txt"}`,
		`{"pattern":"*.go"}`,
		`{"pattern":"**/*.go"}`,
		`{"pattern":"src/**/*.go"}`,
		`{"pattern":"src/*"}`,
		`{"pattern":"*.TXT"}`,
		`{"pattern":"*.log"}`,
		`{"pattern":"{a,b}*"}`,
		`{"pattern":"?.txt"}`,
		`{"pattern":"[a-c]*.txt"}`,
		`{"pattern":"link*"}`,
		`{"pattern":"*","path":"src"}`,
		`{"pattern":"*","path":"weird"}`,
		`{"pattern":"*.md","path":"docs"}`,
		`{"pattern":"*.nothing"}`,
		`{"pattern":"*","path":"nope"}`,
		`{"pattern":"[z-a]"}`,
		`{"pattern":"**"}`,
		`{"pattern":""}`,
	}
	native := newFindTool(dir, search.PureGo)
	for _, q := range queries {
		want, wantDetails, wantErr := grepRun(t, rgTool, q)
		got, gotDetails, gotErr := grepRun(t, native, q)
		if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
			t.Errorf("%s: fd error %v, pure Go error %v", q, wantErr, gotErr)
			continue
		}
		if got != want {
			t.Errorf("%s:\nfd:\n%s\npure Go:\n%s", q, want, got)
		}
		if bashJSON(t, gotDetails) != bashJSON(t, wantDetails) {
			t.Errorf("%s: details fd %s, pure Go %s", q, bashJSON(t, wantDetails), bashJSON(t, gotDetails))
		}
	}
}
