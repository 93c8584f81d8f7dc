package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func contents(files []ContextFile) string {
	var got []string
	for _, f := range files {
		got = append(got, f.Content)
	}
	return strings.Join(got, "|")
}

// AGENTS.override.md comes before AGENTS.md in a directory (pi 1.6).
func TestContextFilesOverride(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "AGENTS.md"), "root")
	write(filepath.Join(root, "proj", "AGENTS.md"), "tabs")
	write(filepath.Join(root, "proj", "AGENTS.override.md"), "spaces")
	files, errs := LoadContextFiles(t.TempDir(), filepath.Join(root, "proj"))
	if len(errs) != 0 || contents(files) != "root|spaces" || filepath.Base(files[1].Path) != "AGENTS.override.md" {
		t.Errorf("files %v %v", files, errs)
	}
}

// In a linked worktree nested in its main checkout, the worktree's AGENTS.md shadows the main
// checkout's (pi 1.6); in the main checkout, and in a worktree beside it, nothing is shadowed.
func TestContextFilesWorktreeShadowing(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	main := filepath.Join(root, "repo")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(main, 0o755); err != nil {
		t.Fatal(err)
	}
	git(main, "init", "-q")
	if err := os.WriteFile(filepath.Join(main, "AGENTS.md"), []byte("repo rules"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(main, "add", ".")
	git(main, "commit", "-qm", "init")
	git(main, "worktree", "add", "-q", filepath.Join(main, "wt", "nested"))
	git(main, "worktree", "add", "-q", filepath.Join(root, "beside"))
	agent := t.TempDir()

	nested, _ := LoadContextFiles(agent, filepath.Join(main, "wt", "nested"))
	if contents(nested) != "repo rules" || !strings.HasSuffix(nested[0].Path, filepath.Join("nested", "AGENTS.md")) {
		t.Errorf("nested worktree: %v", nested)
	}
	inMain, _ := LoadContextFiles(agent, main)
	beside, _ := LoadContextFiles(agent, filepath.Join(root, "beside"))
	if contents(inMain) != "repo rules" || contents(beside) != "repo rules" || !strings.HasSuffix(beside[0].Path, filepath.Join("beside", "AGENTS.md")) {
		t.Errorf("main %v, beside %v", inMain, beside)
	}
	// A nested worktree without its own file inherits the main checkout's.
	if err := os.Remove(filepath.Join(main, "wt", "nested", "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	nested, _ = LoadContextFiles(agent, filepath.Join(main, "wt", "nested"))
	if contents(nested) != "repo rules" || nested[0].Path != filepath.Join(main, "AGENTS.md") {
		t.Errorf("nested worktree without a file: %v", nested)
	}
}
