package checkpoint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fsck runs git's strictest check on the store: the objects pi-go writes itself must be git's.
func fsck(t *testing.T, s *Store) {
	t.Helper()
	if out, err := s.git.run(context.Background(), nil, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("git fsck: %v\n%s", err, out)
	}
}

// lsTree lists a snapshot's files as "mode path" lines, by git's reading of it.
func lsTree(t *testing.T, s *Store, commit string) []string {
	t.Helper()
	out, err := s.git.run(context.Background(), nil, "ls-tree", "-r", "-z", "--format=%(objectmode) %(path)", commit)
	if err != nil {
		t.Fatal(err)
	}
	return splitNul(out)
}

func TestSnapshotObjectsAreGitsAndMatchGitAdd(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.txt", "alpha\n", 0o644)
	write(t, dir, "x.sh", "#!/bin/sh\n", 0o755)
	write(t, dir, "d/e/f.txt", "deep\n", 0o644)
	write(t, dir, "d-e.txt", "sorts between d and d/ in git's tree order\n", 0o644)
	write(t, dir, "empty", "", 0o644)
	if err := os.MkdirAll(filepath.Join(dir, "nothing/here"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d/e", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir)
	cp := snapshot(t, s, "")
	fsck(t, s)
	// git's own write-tree of the same files, in a repository of its own, gives the same tree.
	ref := t.TempDir()
	env := append(os.Environ(), "GIT_DIR="+ref, "GIT_WORK_TREE="+dir, "GIT_INDEX_FILE="+filepath.Join(ref, "idx"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Env, cmd.Dir = env, dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q", ref)
	run("add", "-A")
	want := run("write-tree")
	if got := lsTreeRoot(t, s, cp.Commit); got != want {
		t.Errorf("tree %s, git's write-tree %s", got, want)
	}
}

func lsTreeRoot(t *testing.T, s *Store, commit string) string {
	t.Helper()
	out, err := s.git.runLine(context.Background(), nil, "rev-parse", commit+"^{tree}")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestManifestSurvivesReopenAndCatchesSameStatRewrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	agent := t.TempDir()
	write(t, dir, "a.txt", "one", 0o644)
	write(t, dir, "b.txt", "two", 0o644)
	open := func() *Store {
		s, err := Open(ctx, Options{AgentDir: agent, ProjectDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	first := snapshot(t, s, "")
	// Another process (a second Store) takes the next snapshot from the manifest file.
	write(t, dir, "a.txt", "ONE", 0o644)
	s2 := open()
	next := snapshot(t, s2, "")
	if !slices.Equal(next.Changes, []Change{{"a.txt", "modified"}}) || next.Parent != first.Commit {
		t.Fatalf("second store: %+v", next)
	}
	// The first store sees that the head moved and reads the manifest again.
	write(t, dir, "b.txt", "TWO", 0o644)
	third := snapshot(t, s, "")
	if !slices.Equal(third.Changes, []Change{{"b.txt", "modified"}}) || third.Parent != next.Commit {
		t.Fatalf("first store after the second: %+v", third)
	}
	// A rewrite keeping size and times (within the file system's time resolution) is still seen:
	// the file was read within the racy window, so it is read again.
	p := filepath.Join(dir, "b.txt")
	info, _ := os.Stat(p)
	write(t, dir, "b.txt", "2WO", 0o644)
	if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	fourth := snapshot(t, s, "")
	if !slices.Equal(fourth.Changes, []Change{{"b.txt", "modified"}}) {
		t.Fatalf("same-stat rewrite: %+v", fourth)
	}
	fsck(t, s)
}

func TestIgnoreRulesNewPathsAndNestedRepositories(t *testing.T) {
	userGitEnv(t)
	dir := t.TempDir()
	write(t, dir, ".gitignore", "build/\n*.log\n", 0o644)
	write(t, dir, "src/a.go", "package a\n", 0o644)
	write(t, dir, "build/out.bin", "artifact", 0o644)
	s := openStore(t, dir)
	cp := snapshot(t, s, "")
	if got := lsTree(t, s, cp.Commit); !slices.Equal(got, []string{"100644 .gitignore", "100644 src/a.go"}) {
		t.Fatalf("first snapshot holds %v", got)
	}
	// New paths: an ignored file, a new folder with an ignored and a kept file, a nested repository.
	write(t, dir, "src/debug.log", "noise", 0o644)
	write(t, dir, "pkg/b.go", "package b\n", 0o644)
	write(t, dir, "pkg/trace.log", "noise", 0o644)
	write(t, dir, "vendor/lib/.git/HEAD", "ref: refs/heads/main\n", 0o644)
	write(t, dir, "vendor/lib/lib.go", "package lib\n", 0o644)
	write(t, dir, "build/more.bin", "artifact", 0o644)
	cp = snapshot(t, s, "")
	if !slices.Equal(cp.Changes, []Change{{"pkg/b.go", "added"}, {"vendor/lib/lib.go", "added"}}) {
		t.Fatalf("new paths: changes %v", cp.Changes)
	}
	// Un-ignoring build/ brings its files in; ignoring *.go keeps the files already taken.
	write(t, dir, ".gitignore", "*.log\n*.go\n", 0o644)
	write(t, dir, "src/new.go", "package a\n", 0o644)
	cp = snapshot(t, s, "")
	want := []Change{{".gitignore", "modified"}, {"build/more.bin", "added"}, {"build/out.bin", "added"}}
	if !slices.Equal(cp.Changes, want) {
		t.Fatalf("after the .gitignore change: changes %v, want %v", cp.Changes, want)
	}
	// The nested repository stops being one: the project's rules apply in it from now on.
	if err := os.RemoveAll(filepath.Join(dir, "vendor/lib/.git")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "vendor/lib/README", "hi\n", 0o644)
	cp = snapshot(t, s, "")
	if !slices.Equal(cp.Changes, []Change{{"vendor/lib/README", "added"}}) {
		t.Fatalf("former nested repository: changes %v", cp.Changes)
	}
	fsck(t, s)
}

func TestSnapshotFollowsShellLikeChanges(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "conf.txt", "a=1\n", 0o644)
	write(t, dir, "tool", "#!/bin/sh\n", 0o644)
	write(t, dir, "old/name.txt", "moved\n", 0o644)
	if err := os.Symlink("conf.txt", filepath.Join(dir, "ln")); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir)
	snapshot(t, s, "")
	// sed -i: a new file renamed over the old one, same size.
	tmp := filepath.Join(dir, "conf.tmp")
	write(t, dir, "conf.tmp", "a=2\n", 0o644)
	if err := os.Rename(tmp, filepath.Join(dir, "conf.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "old"), filepath.Join(dir, "new")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "ln"))
	if err := os.Symlink("tool", filepath.Join(dir, "ln")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cp := snapshot(t, s, "")
	want := []Change{{"conf.txt", "modified"}, {"ln", "modified"}, {"new/name.txt", "added"}, {"old/name.txt", "deleted"}, {"tool", "modified"}}
	if !slices.Equal(cp.Changes, want) {
		t.Fatalf("changes %v, want %v (in %v)", cp.Changes, want, time.Since(start))
	}
	if got := lsTree(t, s, cp.Commit); !slices.Contains(got, "100755 tool") || !slices.Contains(got, "120000 ln") {
		t.Errorf("modes: %v", got)
	}
}

func TestRestoreKeepsPermissionBitsOtherThanExecutable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "secret.env", "TOKEN=1\n", 0o600)
	write(t, dir, "run.sh", "#!/bin/sh\n", 0o700)
	s := openStore(t, dir)
	cp := snapshot(t, s, "")
	write(t, dir, "secret.env", "TOKEN=2\n", 0o600)
	write(t, dir, "run.sh", "echo changed\n", 0o600)
	if _, err := s.Restore(ctx, cp.Commit, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]os.FileMode{"secret.env": 0o600, "run.sh": 0o700} {
		info, err := os.Stat(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s restored with mode %o, want %o", rel, got, want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "secret.env")); string(got) != "TOKEN=1\n" {
		t.Errorf("secret.env = %q", got)
	}
}

// With no racy window, folders whose stat is unchanged are not listed again: every snapshot must
// still equal a snapshot taken from scratch by a new store.
func TestUnchangedFoldersAreNotListedYetNothingIsMissed(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a/one.txt", "1", 0o644)
	write(t, dir, "a/b/two.txt", "2", 0o644)
	write(t, dir, "c/three.txt", "3", 0o644)
	write(t, dir, ".gitignore", "*.tmp\n", 0o644)
	s := openStore(t, dir)
	s.racyWindow = 0
	snapshot(t, s, "")
	steps := []func(){
		func() { write(t, dir, "a/one.txt", "changed in place", 0o644) },
		func() { write(t, dir, "a/b/new.txt", "new", 0o644) },
		func() { os.Remove(filepath.Join(dir, "c/three.txt")) },
		func() { write(t, dir, "a/x.tmp", "ignored", 0o644) },
		func() { os.Chmod(filepath.Join(dir, "a/b/two.txt"), 0o755) },
		func() { os.Rename(filepath.Join(dir, "a/b"), filepath.Join(dir, "c/b")) },
		func() { write(t, dir, ".gitignore", "", 0o644) },
		func() { write(t, dir, "c/b/.git/HEAD", "ref: refs/heads/main\n", 0o644) },
	}
	for i, step := range steps {
		step()
		cp := snapshot(t, s, "")
		fresh := openStore(t, dir)
		want := snapshot(t, fresh, "")
		if got, w := lsTreeRoot(t, s, cp.Commit), lsTreeRoot(t, fresh, want.Commit); got != w {
			t.Fatalf("step %d: snapshot holds %v (tree %s), a new store's %v (tree %s)", i,
				lsTree(t, s, cp.Commit), got, lsTree(t, fresh, want.Commit), w)
		}
	}
}
