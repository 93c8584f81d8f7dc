package search

import (
	"os"
	"path/filepath"
	"testing"
)

// A deeper ignore file overrides a shallower one, and a sibling's rules stay its own.
func TestIgnoreFilesDescend(t *testing.T) {
	root := t.TempDir()
	for path, content := range map[string]string{
		".gitignore":     "*.tmp\nbuild/\n",
		"a/.ignore":      "!keep.tmp\n",
		"b/.fdignore":    "secret.md\n",
		"a/keep.tmp":     "",
		"a/drop.tmp":     "",
		"a/secret.md":    "",
		"b/secret.md":    "",
		"b/build/x.go":   "",
		"c/notes.md.tmp": "",
	} {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	descend := func(f IgnoreFiles, dir string) IgnoreFiles {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		return f.Descend(dir, entries)
	}
	top := descend(IgnoreFiles{}, root)
	a, b := descend(top, filepath.Join(root, "a")), descend(top, filepath.Join(root, "b"))
	for _, tc := range []struct {
		f    IgnoreFiles
		path string
		dir  bool
		want bool
	}{
		{a, "a/keep.tmp", false, false},
		{a, "a/drop.tmp", false, true},
		{a, "a/secret.md", false, false},
		{b, "b/secret.md", false, true},
		{b, "b/build", true, true},
		{top, "c/notes.md.tmp", false, true},
		{top, "c", true, false},
	} {
		if got := tc.f.Ignored(filepath.Join(root, tc.path), tc.dir); got != tc.want {
			t.Errorf("%s: ignored %v, want %v", tc.path, got, tc.want)
		}
	}
}
