package checkpoint

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A nested repository's files (not its .git) are taken under its own ignore rules, so what bash did
// in it is restored; its .git is never touched, and a repository nested in it gets the same.
func TestNestedRepositoryFilesAreTakenAndRestored(t *testing.T) {
	requireGit(t)
	ctx := t.Context()
	dir := t.TempDir()
	write(t, dir, ".gitignore", "*.log\n", 0o644)
	write(t, dir, "main.go", "package main\n", 0o644)
	lib := filepath.Join(dir, "vendor/lib")
	write(t, lib, ".gitignore", "*.tmp\n", 0o644)
	write(t, lib, "lib.go", "package lib\n", 0o644)
	write(t, lib, "notes.log", "the project's *.log does not reach into another repository\n", 0o644)
	write(t, lib, "scratch.tmp", "its own rule does\n", 0o644)
	write(t, lib, "deep/inner/in.txt", "a repository in the repository\n", 0o644)
	write(t, lib, "deep/inner/.gitignore", "*.out\n", 0o644)
	write(t, lib, "deep/inner/x.out", "ignored by the inner repository\n", 0o644)
	gitCmd(t, lib, "init", "-q")
	gitCmd(t, lib, "add", "-A")
	gitCmd(t, lib, "commit", "-q", "-m", "lib")
	gitCmd(t, filepath.Join(lib, "deep/inner"), "init", "-q")
	s := openStore(t, dir)
	cp := snapshot(t, s, "s")
	want := []string{"100644 .gitignore", "100644 main.go", "100644 vendor/lib/.gitignore",
		"100644 vendor/lib/deep/inner/.gitignore", "100644 vendor/lib/deep/inner/in.txt",
		"100644 vendor/lib/lib.go", "100644 vendor/lib/notes.log"}
	if got := lsTree(t, s, cp.Commit); !slices.Equal(got, want) {
		t.Fatalf("snapshot holds %v, want %v", got, want)
	}
	before, beforeInner := gitState(t, lib), gitState(t, filepath.Join(lib, "deep/inner"))
	nestedState := treeState(t, lib)

	// What a turn's bash does in it: edit, delete, create (new ignored files stay out).
	write(t, lib, "lib.go", "package lib // changed\n", 0o644)
	os.Remove(filepath.Join(lib, "deep/inner/in.txt"))
	write(t, lib, "added.go", "package lib\n", 0o644)
	write(t, lib, "more.tmp", "ignored\n", 0o644)
	write(t, lib, "deep/inner/y.out", "ignored\n", 0o644)
	turn := snapshot(t, s, "s")
	wantChanges := []Change{{"vendor/lib/added.go", "added"}, {"vendor/lib/deep/inner/in.txt", "deleted"}, {"vendor/lib/lib.go", "modified"}}
	if !slices.Equal(turn.Changes, wantChanges) {
		t.Fatalf("changes %v, want %v", turn.Changes, wantChanges)
	}
	if _, err := s.Restore(ctx, cp.Commit, RestoreOptions{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(lib, "more.tmp"))
	os.Remove(filepath.Join(lib, "deep/inner/y.out"))
	if got := treeState(t, lib); !maps.Equal(got, nestedState) {
		t.Errorf("after the restore the nested repository holds %v, want %v", got, nestedState)
	}
	if after := gitState(t, lib); after != before {
		t.Errorf("the nested repository's git state changed:\n%s\nwas\n%s", after, before)
	}
	if after := gitState(t, filepath.Join(lib, "deep/inner")); after != beforeInner {
		t.Errorf("the inner repository's git state changed")
	}
	// A snapshot taken from scratch agrees with the one the manifest built.
	write(t, lib, "deep/inner/new.txt", "n", 0o644)
	next := snapshot(t, s, "")
	fresh := openStore(t, dir)
	if got, w := lsTreeRoot(t, s, next.Commit), lsTreeRoot(t, fresh, snapshot(t, fresh, "").Commit); got != w {
		t.Fatalf("snapshot %v differs from a new store's", lsTree(t, s, next.Commit))
	}
	fsck(t, s)
}

// A folder already taken that becomes a repository (git init in it) switches to that repository's
// ignore rules: what the project's rules left out and its own do not is taken.
func TestFolderBecomingANestedRepositorySwitchesRules(t *testing.T) {
	requireGit(t)
	dir := t.TempDir()
	write(t, dir, ".gitignore", "*.log\n", 0o644)
	write(t, dir, "tool/main.go", "package main\n", 0o644)
	write(t, dir, "tool/run.log", "left out by the project's rules\n", 0o644)
	s := openStore(t, dir)
	s.racyWindow = 0
	cp := snapshot(t, s, "")
	if got := lsTree(t, s, cp.Commit); slices.Contains(got, "100644 tool/run.log") {
		t.Fatalf("run.log taken before tool/ is a repository: %v", got)
	}
	gitCmd(t, filepath.Join(dir, "tool"), "init", "-q")
	cp = snapshot(t, s, "")
	if !slices.Equal(cp.Changes, []Change{{"tool/run.log", "added"}}) {
		t.Fatalf("after git init in tool/: changes %v", cp.Changes)
	}
	if got := lsTree(t, s, cp.Commit); slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, ".git/") }) {
		t.Fatalf("a .git file was taken: %v", got)
	}
}

// Rewinding to before a clone deletes the clone's files and leaves its .git, from which git can
// check them out again.
func TestRewindingACloneLeavesItsGitFolder(t *testing.T) {
	requireGit(t)
	dir := t.TempDir()
	write(t, dir, "a.txt", "a", 0o644)
	s := openStore(t, dir)
	before := snapshot(t, s, "")
	clone := filepath.Join(dir, "clone")
	write(t, clone, "src/x.go", "package x\n", 0o644)
	gitCmd(t, clone, "init", "-q")
	gitCmd(t, clone, "add", "-A")
	gitCmd(t, clone, "commit", "-q", "-m", "x")
	snapshot(t, s, "")
	if _, err := s.Restore(t.Context(), before.Commit, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(clone, "src")); !os.IsNotExist(err) {
		t.Errorf("the clone's files are still there: %v", err)
	}
	gitCmd(t, clone, "checkout", "--", ".")
	if got, err := os.ReadFile(filepath.Join(clone, "src/x.go")); err != nil || string(got) != "package x\n" {
		t.Errorf("checked out again from the clone's .git: %q, %v", got, err)
	}
}
