package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandAndResolvePath(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	cases := []struct{ in, cwd, want string }{
		{"~", "/cwd", home},
		{"~/Documents/file.txt", "/cwd", filepath.Join(home, "Documents/file.txt")},
		{"@src/a.go", "/cwd", "/cwd/src/a.go"},
		{"file\u00A0name.txt", "/cwd", "/cwd/file name.txt"},
		{"/absolute/path/file.txt", "/some/cwd", "/absolute/path/file.txt"},
		{"relative/file.txt", "/some/cwd", "/some/cwd/relative/file.txt"},
		{"~user/x", "/cwd", "/cwd/~user/x"},
	}
	for _, c := range cases {
		if got := ResolvePath(c.in, c.cwd); got != c.want {
			t.Errorf("ResolvePath(%q, %q) = %q, want %q", c.in, c.cwd, got, c.want)
		}
	}
}

func TestResolveReadPathFallbacks(t *testing.T) {
	cases := []struct {
		name    string
		onDisk  string // the name the file really has
		typed   string // what the user or model typed
		wantHit bool
	}{
		{"existing file", "test-file.txt", "test-file.txt", true},
		{"NFD on disk, NFC typed", "file\u0065\u0301.txt", "file\u00e9.txt", true},
		{"curly apostrophe on disk", "Capture d\u2019cran.txt", "Capture d'cran.txt", true},
		{"NFC with curly apostrophe on disk", "Capture d\u2019\u00e9cran.txt", "Capture d'\u00e9cran.txt", true},
		{"NFD with curly apostrophe on disk", "Capture d\u2019e\u0301cran.txt", "Capture d'\u00e9cran.txt", true},
		{"macOS screenshot AM", "Screenshot 2024-01-01 at 10.00.00\u202FAM.png", "Screenshot 2024-01-01 at 10.00.00 AM.png", true},
		{"macOS screenshot pm lower case", "Shot at 1.02.03\u202Fpm.png", "Shot at 1.02.03 pm.png", true},
		{"no variant matches", "other.txt", "missing.txt", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, c.onDisk), []byte("content"), 0o644); err != nil {
				t.Fatal(err)
			}
			got := ResolveReadPath(c.typed, dir)
			if c.wantHit {
				if got != filepath.Join(dir, c.onDisk) {
					t.Fatalf("ResolveReadPath(%q) = %q, want %q", c.typed, got, filepath.Join(dir, c.onDisk))
				}
				return
			}
			if got != filepath.Join(dir, c.typed) {
				t.Fatalf("ResolveReadPath(%q) = %q, want the plain resolution", c.typed, got)
			}
		})
	}
}

func TestReadScreenshotVariant(t *testing.T) {
	cases := map[string]string{
		"a 1 AM.png":         "a 1\u202FAM.png",
		"a 1 am. b 2 PM.png": "a 1\u202Fam. b 2\u202FPM.png",
		"AMPM.png":           "AMPM.png",
		" AMx":               " AMx",
		"x AM":               "x AM",
	}
	for in, want := range cases {
		if got := readScreenshotVariant(in); got != want {
			t.Errorf("readScreenshotVariant(%q) = %q, want %q", in, got, want)
		}
	}
	if strings.Contains(readCurlyVariant("d'a'b"), "'") {
		t.Error("readCurlyVariant left a straight apostrophe")
	}
}
