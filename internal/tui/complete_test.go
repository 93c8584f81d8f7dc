package tui

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestAtPrefix(t *testing.T) {
	for in, want := range map[string]string{
		"look at @src/ma": "@src/ma",
		"@":               "@",
		"mail me@home":    "",
		`read @"my fi`:    `@"my fi`,
		"no at":           "",
	} {
		if got := atPrefix(in); got != want {
			t.Errorf("atPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFileItemsRankNameMatchesFirst(t *testing.T) {
	files := []string{"docs/", "docs/main.md", "cmd/main.go", "internal/domain/x.go", "main.go", "README.md"}
	items := fileItems(files, "main", false)
	var got []string
	for _, it := range items {
		got = append(got, it.value)
	}
	// Names starting with the query first (in walk order), then paths containing it.
	want := []string{"@docs/main.md ", "@cmd/main.go ", "@main.go ", "@internal/domain/x.go "}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
	if items := fileItems([]string{"my dir/", "my dir/a b.txt"}, "a b", false); len(items) != 1 || items[0].value != `@"my dir/a b.txt" ` {
		t.Fatalf("a path with spaces is quoted: %+v", items)
	}
	if items := fileItems([]string{"my dir/"}, "my", false); items[0].value != `@"my dir/"` || !items[0].dir {
		t.Fatalf("directory with a space: %+v", items[0])
	}
}

func TestPathItemsCompleteFromTheDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"alpha.go", "alps.txt", "beta.go"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "alpine"), 0o755); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range pathItems(dir, "al") {
		got = append(got, it.value)
	}
	if want := []string{"alpine/", "alpha.go", "alps.txt"}; !slices.Equal(got, want) {
		t.Fatalf("got %q want %q (directories first)", got, want)
	}
	got = nil
	for _, it := range pathItems(dir, "./b") {
		got = append(got, it.value)
	}
	if want := []string{"./beta.go"}; !slices.Equal(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
	got = nil
	for _, it := range pathItems(dir, "alpine/") {
		got = append(got, it.value)
	}
	if len(got) != 0 {
		t.Fatalf("empty directory lists %q", got)
	}
}

func TestListProjectFilesHonoursGitignore(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.go", "build/out.bin", "node_modules/x/y.js", "src/b.go", ".git/HEAD", "debug.log"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("build/\nnode_modules\n*.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := listProjectFiles(t.Context(), dir)
	want := []string{".gitignore", "a.go", "src/", "src/b.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
}
