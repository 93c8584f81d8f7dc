package checkpoint

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// userGitEnv points git's user configuration at folders of the test's own.
func userGitEnv(t *testing.T) (home, xdg string) {
	home, xdg = t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return home, xdg
}

// The default global excludes file ($XDG_CONFIG_HOME/git/ignore) applies, and a change to it (or its
// removal) is noticed by the next snapshot: the paths it no longer ignores are taken.
func TestGlobalExcludesFileAppliesAndItsChangesAreNoticed(t *testing.T) {
	_, xdg := userGitEnv(t)
	dir := t.TempDir()
	write(t, xdg, "git/ignore", "*.secret\n", 0o644)
	write(t, dir, "a.txt", "a", 0o644)
	write(t, dir, "key.secret", "k", 0o644)
	s := openStore(t, dir)
	s.racyWindow = 0
	cp := snapshot(t, s, "")
	if got := lsTree(t, s, cp.Commit); !slices.Equal(got, []string{"100644 a.txt"}) {
		t.Fatalf("with *.secret excluded globally the snapshot holds %v", got)
	}
	write(t, dir, "new.secret", "n", 0o644)
	if cp = snapshot(t, s, ""); cp.Changes != nil {
		t.Fatalf("a new globally excluded file: changes %v", cp.Changes)
	}
	// The rules change: *.secret files come in, *.other ones stay out.
	write(t, xdg, "git/ignore", "*.other\n", 0o644)
	write(t, dir, "b.other", "b", 0o644)
	cp = snapshot(t, s, "")
	want := []Change{{"key.secret", "added"}, {"new.secret", "added"}}
	if !slices.Equal(cp.Changes, want) {
		t.Fatalf("after the excludes file changed: changes %v, want %v", cp.Changes, want)
	}
	// Another store (another pi-go process) reads the excludes file's state from the manifest.
	again, err := Open(t.Context(), Options{AgentDir: filepath.Dir(filepath.Dir(s.dir)), ProjectDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	again.racyWindow = 0
	os.Remove(filepath.Join(xdg, "git/ignore"))
	cp = snapshot(t, again, "")
	if !slices.Equal(cp.Changes, []Change{{"b.other", "added"}}) {
		t.Fatalf("after the excludes file was removed: changes %v", cp.Changes)
	}
	fsck(t, again)
}

// core.excludesFile from the global configuration (GIT_CONFIG_GLOBAL, with ~ expanded) is used
// instead of the default file.
func TestCoreExcludesFileFromTheGlobalConfiguration(t *testing.T) {
	home, xdg := userGitEnv(t)
	write(t, home, "gitconfig", "[core]\n\texcludesFile = ~/my-ignore\n", 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
	write(t, home, "my-ignore", "*.log\n", 0o644)
	write(t, xdg, "git/ignore", "*.txt\n", 0o644) // not read: the configuration names another file
	dir := t.TempDir()
	write(t, dir, "a.txt", "a", 0o644)
	write(t, dir, "trace.log", "noise", 0o644)
	s := openStore(t, dir)
	cp := snapshot(t, s, "")
	if got := lsTree(t, s, cp.Commit); !slices.Equal(got, []string{"100644 a.txt"}) {
		t.Fatalf("with core.excludesFile = ~/my-ignore the snapshot holds %v", got)
	}
}
