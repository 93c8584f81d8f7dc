package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func walkCollect(t *testing.T, root string, opts *walkOptions) []string {
	t.Helper()
	var got []string
	err := walkTree(context.Background(), root, opts, func(e *walkEntry) bool {
		rel := strings.TrimPrefix(e.abs, root+"/")
		if e.kind == walkDir {
			rel += "/"
		}
		got = append(got, rel)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestWalkOrderIsSortedDepthFirst: the walk order does not depend on how many directories are read
// ahead or by how many workers, and equals a component-wise sort of the paths.
func TestWalkOrderIsSortedDepthFirst(t *testing.T) {
	isolateHome(t)
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("d%d/s%d/f%d.txt", i%7, i%3, i)] = ""
		files[fmt.Sprintf("d%d.txt", i)] = ""
		files[fmt.Sprintf("d%d-x/y", i%4)] = ""
	}
	writeFiles(t, dir, files)
	want := walkCollect(t, dir, &walkOptions{workers: 1})
	sorted := append([]string(nil), want...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return comparePaths(strings.TrimSuffix(sorted[i], "/"), strings.TrimSuffix(sorted[j], "/")) < 0
	})
	if strings.Join(sorted, "\n") != strings.Join(want, "\n") {
		t.Fatalf("walk order is not sorted:\n%s", strings.Join(want, "\n"))
	}
	for _, opts := range []*walkOptions{{workers: 4}, {maxAhead: 1}, {maxAhead: 2, workers: 3}} {
		if got := walkCollect(t, dir, opts); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("options %+v changed the order:\n%s", *opts, strings.Join(got, "\n"))
		}
	}
}

func TestWalkIgnoreRules(t *testing.T) {
	isolateHome(t)
	parent := t.TempDir()
	// A .gitignore above the searched directory applies too (ripgrep and fd read parents').
	writeFiles(t, parent, map[string]string{
		".gitignore":            "from-parent.txt\n",
		".git/info/exclude":     "from-exclude.txt\n",
		"root/from-parent.txt":  "",
		"root/from-exclude.txt": "",
		"root/kept.txt":         "",
		"root/.ignore":          "dot-ignored\n",
		"root/dot-ignored":      "",
		"root/.gitignore":       "sub/*.log\n!sub/keep.log\n",
		"root/sub/a.log":        "",
		"root/sub/keep.log":     "",
		"root/sub/.fdignore":    "fd-ignored\n",
		"root/sub/fd-ignored":   "",
		"root/.git":             "gitdir: ../.git\n",
	})
	root := filepath.Join(parent, "root")
	got := strings.Join(walkCollect(t, root, &walkOptions{customIgnore: ".fdignore"}), " ")
	want := ".gitignore .ignore kept.txt sub/ sub/.fdignore sub/keep.log"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}

	// Outside a repository ripgrep skips git rules (not .ignore); fd (requireGit false) does not.
	plain := t.TempDir()
	writeFiles(t, plain, map[string]string{".gitignore": "a\n", ".ignore": "b\n", "a": "", "b": "", "c": ""})
	if got := strings.Join(walkCollect(t, plain, &walkOptions{requireGit: true}), " "); got != ".gitignore .ignore a c" {
		t.Fatalf("requireGit outside a repository: %s", got)
	}
	if got := strings.Join(walkCollect(t, plain, &walkOptions{}), " "); got != ".gitignore .ignore c" {
		t.Fatalf("no requireGit: %s", got)
	}
}

func TestWalkGlobalExcludes(t *testing.T) {
	isolateHome(t)
	home := os.Getenv("HOME")
	writeFiles(t, home, map[string]string{
		".gitconfig":         "[user]\n\tname = x\n[core]\n\texcludesFile = ~/my-ignore\n",
		"my-ignore":          "*.swp\n",
		".config/git/ignore": "*.never-read\n",
	})
	if got := walkGlobalGitExcludes(); got != filepath.Join(home, "my-ignore") {
		t.Fatalf("excludes file %q", got)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".git/HEAD": "", "a.swp": "", "b.txt": ""})
	opts := &walkOptions{requireGit: true, globalGit: walkLoadGlobal(walkGlobalGitExcludes(), dir)}
	if got := strings.Join(walkCollect(t, dir, opts), " "); got != "b.txt" {
		t.Fatalf("got %s", got)
	}
	os.Remove(filepath.Join(home, ".gitconfig"))
	if got := walkGlobalGitExcludes(); got != filepath.Join(home, ".config", "git", "ignore") {
		t.Fatalf("default excludes file %q", got)
	}
}
