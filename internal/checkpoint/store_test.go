package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// requireGit skips when the git binary is absent (the package's only external need).
func requireGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not found: checkpoint tests need it")
	}
}

func openStore(t testing.TB, project string, opts ...func(*Options)) *Store {
	t.Helper()
	requireGit(t)
	o := Options{AgentDir: t.TempDir(), ProjectDir: project}
	for _, f := range opts {
		f(&o)
	}
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// snapshot takes a snapshot (for the session, unless sessionID is "") or fails the test.
func snapshot(t testing.TB, s *Store, sessionID string) Checkpoint {
	t.Helper()
	cp, err := s.Snapshot(context.Background(), SnapshotOptions{SessionID: sessionID})
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

func write(t testing.TB, root, rel, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// treeState describes every entry under root except .git: mode type and exec bit, bytes or link text.
func treeState(t testing.TB, root string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if info.IsDir() {
			if info.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			state[rel] = "link:" + target
		default:
			data, _ := os.ReadFile(p)
			state[rel] = info.Mode().Perm().String() + ":" + string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

func TestRestoreBringsBackBytesModesLinksAndRemovesNewFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "a.txt", "alpha\r\nwith crlf\r\n", 0o644)
	write(t, dir, "bin/run.sh", "#!/bin/sh\necho hi\n", 0o755)
	write(t, dir, "sub/deep/b.bin", "\x00\x01binary\xff", 0o644)
	write(t, dir, "gone.txt", "to be deleted\n", 0o644)
	write(t, dir, "swap", "a file that becomes a directory\n", 0o644)
	write(t, dir, ".gitattributes", "* text=auto eol=lf\n", 0o644)
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir)
	before := treeState(t, dir)
	cp := snapshot(t, s, "s1")

	// What a turn might do: edit, chmod, delete, create, retarget a link, swap a file for a dir.
	write(t, dir, "a.txt", "changed\n", 0o644)
	if err := os.Chmod(filepath.Join(dir, "bin/run.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "gone.txt"))
	os.RemoveAll(filepath.Join(dir, "sub"))
	write(t, dir, "new/file.txt", "created\n", 0o644)
	os.Remove(filepath.Join(dir, "link"))
	if err := os.Symlink("bin/run.sh", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "swap"))
	write(t, dir, "swap/inner.txt", "now a directory\n", 0o644)
	after := treeState(t, dir)
	snapshot(t, s, "s1")

	res, err := s.Restore(ctx, cp.Commit, RestoreOptions{SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := treeState(t, dir); !maps.Equal(got, before) {
		t.Fatalf("restored tree differs\n got %q\nwant %q", got, before)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the emptied folder of a created file should go, stat: %v", err)
	}
	if len(res.Changed) == 0 {
		t.Error("no changes reported")
	}
	// The restore can itself be undone.
	if _, err := s.Restore(ctx, res.Undo.Commit, RestoreOptions{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if got := treeState(t, dir); !maps.Equal(got, after) {
		t.Fatalf("undo differs\n got %q\nwant %q", got, after)
	}
}

func TestSnapshotReportsChangesAndReusesUnchanged(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "keep.txt", "k", 0o644)
	write(t, dir, "edit.txt", "1", 0o644)
	write(t, dir, "del.txt", "d", 0o644)
	s := openStore(t, dir)
	first := snapshot(t, s, "")
	if first.Changes != nil || first.Parent != "" {
		t.Errorf("first snapshot: %+v", first)
	}
	same := snapshot(t, s, "")
	if same.Commit != first.Commit || len(same.Changes) != 0 {
		t.Errorf("unchanged tree: got %+v, want commit %s reused", same, first.Commit)
	}
	write(t, dir, "edit.txt", "2", 0o644)
	os.Remove(filepath.Join(dir, "del.txt"))
	write(t, dir, "add.txt", "a", 0o644)
	next := snapshot(t, s, "")
	want := []Change{{"add.txt", "added"}, {"del.txt", "deleted"}, {"edit.txt", "modified"}}
	if next.Parent != first.Commit || !slices.Equal(next.Changes, want) {
		t.Errorf("got parent %s changes %v, want %s %v", next.Parent, next.Changes, first.Commit, want)
	}
}

func TestIgnoredAndLargeFilesAreLeftAlone(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, ".gitignore", "build/\n*.log\n", 0o644)
	write(t, dir, "src.go", "package x\n", 0o644)
	write(t, dir, "build/out", "artifact v1", 0o644)
	write(t, dir, "debug.log", "log v1", 0o644)
	write(t, dir, "big.dat", string(bytes.Repeat([]byte("x"), 2048)), 0o644)
	s := openStore(t, dir, func(o *Options) { o.MaxFileSize = 1024 })
	cp := snapshot(t, s, "")
	if !slices.Equal(cp.Skipped, []string{"big.dat"}) {
		t.Errorf("skipped = %v, want [big.dat]", cp.Skipped)
	}
	write(t, dir, "build/out", "artifact v2", 0o644)
	write(t, dir, "debug.log", "log v2", 0o644)
	write(t, dir, "big.dat", "now small", 0o644)
	write(t, dir, "src.go", "package y\n", 0o644)
	if _, err := s.Restore(ctx, cp.Commit, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"build/out": "artifact v2", "debug.log": "log v2", "src.go": "package x\n"} {
		if got, _ := os.ReadFile(filepath.Join(dir, rel)); string(got) != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
	// big.dat is small now, so the restore's undo snapshot holds it, and cp lacks it: like any file
	// that appeared after the snapshot, the restore removes it (and the undo brings it back).
	if _, err := os.Stat(filepath.Join(dir, "big.dat")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("big.dat: %v", err)
	}
}

func TestOutsideChangeIsAConflict(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "a.txt", "v1", 0o644)
	write(t, dir, "b.txt", "v1", 0o644)
	s := openStore(t, dir)
	cp := snapshot(t, s, "sess")
	write(t, dir, "a.txt", "v2 by the agent", 0o644)
	snapshot(t, s, "sess")
	write(t, dir, "b.txt", "v2 by the user", 0o644)
	write(t, dir, "c.txt", "created by the user", 0o644)
	conflicts, err := s.Conflicts(ctx, "sess", cp.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(conflicts, []string{"b.txt", "c.txt"}) {
		t.Errorf("conflicts = %v", conflicts)
	}
	_, err = s.Restore(ctx, cp.Commit, RestoreOptions{SessionID: "sess"})
	var ce *ConflictError
	if !errors.As(err, &ce) || !slices.Equal(ce.Paths, []string{"b.txt", "c.txt"}) {
		t.Fatalf("restore err = %v, want a conflict on b.txt and c.txt", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "v2 by the agent" {
		t.Errorf("a refused restore changed a.txt to %q", got)
	}
	if _, err := s.Restore(ctx, cp.Commit, RestoreOptions{SessionID: "sess", Force: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(got) != "v1" {
		t.Errorf("forced restore: b.txt = %q", got)
	}
	// After the restore the session knows the state again: no conflicts with itself.
	if conflicts, err := s.Conflicts(ctx, "sess", cp.Commit); err != nil || len(conflicts) != 0 {
		t.Errorf("after restore: conflicts %v, %v", conflicts, err)
	}
}

// gitState is what a user could see of their repository: status, refs, stash, index bytes, config.
func gitState(t testing.TB, repo string) string {
	t.Helper()
	var b bytes.Buffer
	for _, args := range [][]string{
		{"status", "--porcelain", "--untracked-files=all"},
		{"for-each-ref"},
		{"stash", "list"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_OPTIONAL_LOCKS=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		b.Write(out)
	}
	for _, f := range []string{"index", "config", "HEAD"} {
		data, _ := os.ReadFile(filepath.Join(repo, ".git", f))
		b.WriteString(f + ":")
		b.Write(data)
	}
	hooks, _ := os.ReadDir(filepath.Join(repo, ".git", "hooks"))
	for _, h := range hooks {
		b.WriteString("hook:" + h.Name())
	}
	return b.String()
}

func gitCmd(t testing.TB, repo string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestUserRepositoryIsNeverTouched(t *testing.T) {
	requireGit(t)
	ctx := context.Background()
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q")
	write(t, dir, "tracked.txt", "v1\n", 0o644)
	write(t, dir, "staged.txt", "staged\n", 0o644)
	gitCmd(t, dir, "add", "tracked.txt")
	gitCmd(t, dir, "commit", "-q", "-m", "init")
	gitCmd(t, dir, "add", "staged.txt")
	write(t, dir, "tracked.txt", "v2 unstaged\n", 0o644)
	// A hook that would leave a trace if anything ran it.
	write(t, dir, ".git/hooks/post-index-change", "#!/bin/sh\ntouch "+filepath.Join(dir, "HOOK-RAN")+"\n", 0o755)
	// The user's environment points git at their repository: the store must not follow it.
	t.Setenv("GIT_DIR", filepath.Join(dir, ".git"))
	t.Setenv("GIT_INDEX_FILE", filepath.Join(dir, ".git", "index"))
	t.Setenv("GIT_WORK_TREE", dir)
	before := gitStateClean(t, dir)

	s := openStore(t, dir)
	cp := snapshot(t, s, "u")
	write(t, dir, "tracked.txt", "v3 by the agent\n", 0o644)
	write(t, dir, "new.txt", "new\n", 0o644)
	snapshot(t, s, "u")
	if _, err := s.Restore(ctx, cp.Commit, RestoreOptions{SessionID: "u"}); err != nil {
		t.Fatal(err)
	}
	if after := gitStateClean(t, dir); after != before {
		t.Errorf("user's repository changed\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if _, err := os.Stat(filepath.Join(dir, "HOOK-RAN")); err == nil {
		t.Error("a hook of the user's repository ran")
	}
}

// gitStateClean is gitState with the test's GIT_* variables out of the way.
func gitStateClean(t testing.TB, dir string) string {
	saved := map[string]string{}
	for _, k := range []string{"GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"} {
		saved[k] = os.Getenv(k)
		os.Unsetenv(k)
	}
	defer func() {
		for k, v := range saved {
			os.Setenv(k, v)
		}
	}()
	return gitState(t, dir)
}

func TestMissingGitIsOneClearError(t *testing.T) {
	_, err := Open(context.Background(), Options{AgentDir: t.TempDir(), ProjectDir: t.TempDir(), Git: "/nonexistent/git"})
	if !errors.Is(err, ErrGitMissing) {
		t.Fatalf("err = %v, want ErrGitMissing", err)
	}
}

func TestPruneByAgeAndSize(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	agent := t.TempDir()
	requireGit(t)
	s, err := Open(ctx, Options{AgentDir: agent, ProjectDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var cps []Checkpoint
	for i := range 4 {
		// Incompressible content, so sizes are real.
		data := make([]byte, 64<<10)
		for j := range data {
			data[j] = byte((j*7919 + i*104729) >> 3)
		}
		write(t, dir, "f.bin", string(data)+string(rune('a'+i)), 0o644)
		cp := snapshot(t, s, "")
		cps = append(cps, cp)
	}
	// Nothing is old yet.
	reports, err := Prune(ctx, agent, Limits{MaxAge: time.Hour, MaxStoreSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 1 || reports[0].Deleted != 0 || reports[0].Kept != 4 {
		t.Fatalf("reports = %+v", reports)
	}
	// Two days later every checkpoint but the head is old.
	later := func() time.Time { return time.Now().Add(48 * time.Hour) }
	reports, err = Prune(ctx, agent, Limits{MaxAge: 24 * time.Hour, MaxStoreSize: -1, Now: later})
	if err != nil {
		t.Fatal(err)
	}
	if reports[0].Deleted != 3 || reports[0].Kept != 1 {
		t.Fatalf("age prune: %+v", reports[0])
	}
	held, err := s.Held(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if held[cps[0].Commit] {
		t.Error("an old checkpoint survived pruning")
	}
	if !held[cps[3].Commit] || !s.Has(ctx, cps[3].Commit) {
		t.Error("the head checkpoint was pruned")
	}
	// The store still works after pruning.
	write(t, dir, "g.txt", "g", 0o644)
	snapshot(t, s, "")
	// Size: a limit below the store's size drops checkpoints down to the head.
	reports, err = Prune(ctx, agent, Limits{MaxAge: -1, MaxStoreSize: 1, Grace: -1})
	if err != nil {
		t.Fatal(err)
	}
	if reports[0].Kept != 1 || reports[0].After >= reports[0].Before {
		t.Errorf("size prune: %+v", reports[0])
	}
}

func TestNonGitDirectoryAndNestedRepository(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "plain.txt", "p", 0o644)
	nested := filepath.Join(dir, "vendor/lib")
	write(t, nested, "x.go", "x", 0o644)
	requireGit(t)
	gitCmd(t, nested, "init", "-q")
	s := openStore(t, dir)
	cp := snapshot(t, s, "")
	write(t, dir, "plain.txt", "q", 0o644)
	if _, err := s.Restore(ctx, cp.Commit, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "plain.txt")); string(got) != "p" {
		t.Errorf("plain.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(nested, ".git", "HEAD")); err != nil {
		t.Errorf("nested repository damaged: %v", err)
	}
}

func TestPruneIfDue(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "a.txt", "a", 0o644)
	s := openStore(t, dir)
	snapshot(t, s, "")
	if _, pruned, err := s.PruneIfDue(ctx, Limits{}, time.Hour); err != nil || pruned {
		t.Fatalf("a new store was pruned (%v, %v)", pruned, err)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(s.Dir(), pruneStamp), old, old); err != nil {
		t.Fatal(err)
	}
	if r, pruned, err := s.PruneIfDue(ctx, Limits{}, time.Hour); err != nil || !pruned || r.Kept != 1 {
		t.Fatalf("a due store: pruned %v, %+v, %v", pruned, r, err)
	}
	if _, pruned, _ := s.PruneIfDue(ctx, Limits{}, time.Hour); pruned {
		t.Error("pruned again within the interval")
	}
}

func TestHeldAndDiffOfUnknown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "a.txt", "a", 0o644)
	s := openStore(t, dir)
	cp := snapshot(t, s, "")
	held, err := s.Held(ctx)
	if err != nil || !held[cp.Commit] || len(held) != 1 {
		t.Fatalf("held = %v, %v", held, err)
	}
	if _, err := s.Diff(ctx, cp.Commit, "0123456789abcdef0123456789abcdef01234567"); err == nil {
		t.Error("a diff against an unknown snapshot succeeded")
	}
	if _, err := s.Diff(ctx, cp.Commit, "--output=/tmp/x"); err == nil {
		t.Error("an option passed as a snapshot id was accepted")
	}
}

func TestDiffPairsMatchesDiff(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, dir, "a.txt", "a", 0o644)
	write(t, dir, "b.txt", "b", 0o644)
	s := openStore(t, dir)
	first := snapshot(t, s, "")
	write(t, dir, "a.txt", "a2", 0o644)
	os.Remove(filepath.Join(dir, "b.txt"))
	write(t, dir, "c d.txt", "c", 0o644)
	write(t, dir, "M", "a one-letter name, like a status", 0o644)
	second := snapshot(t, s, "")
	write(t, dir, "b.txt", "b", 0o644)
	third := snapshot(t, s, "")
	pairs := [][2]string{
		{first.Commit, second.Commit},
		{second.Commit, second.Commit}, // no changes
		{second.Commit, third.Commit},
		{third.Commit, first.Commit},
		{first.Commit, second.Commit}, // a pair asked again
	}
	diffs, err := s.DiffPairs(ctx, pairs)
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) != len(pairs) {
		t.Fatalf("%d diffs for %d pairs: %v", len(diffs), len(pairs), diffs)
	}
	for i, p := range pairs {
		want, err := s.Diff(ctx, p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(diffs[i], want) {
			t.Errorf("pair %d: DiffPairs %v, Diff %v", i, diffs[i], want)
		}
	}
	if len(diffs[0]) != 4 || len(diffs[1]) != 0 {
		t.Errorf("diffs = %v", diffs)
	}
	if _, err := s.DiffPairs(ctx, [][2]string{{first.Commit, "--output=/tmp/x"}}); err == nil {
		t.Error("an option passed as a snapshot id was accepted")
	}
}
