package checkpoint

import (
	"crypto/sha1"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// diffManifests describes how two manifests differ ("" when they hold the same).
func diffManifests(a, b *manifest) string {
	if a.commit != b.commit {
		return fmt.Sprintf("commit %s / %s", a.commit, b.commit)
	}
	if a.excludes != b.excludes || a.excludesStat != b.excludesStat {
		return fmt.Sprintf("excludes %s %+v / %s %+v", a.excludes, a.excludesStat, b.excludes, b.excludesStat)
	}
	if !maps.Equal(a.ignored, b.ignored) {
		return fmt.Sprintf("ignored %v / %v", a.ignored, b.ignored)
	}
	var diff func(x, y *dirNode, rel string) string
	diff = func(x, y *dirNode, rel string) string {
		if x.tree != y.tree || x.empty != y.empty || x.treeOK != y.treeOK || x.nested != y.nested ||
			x.stat != y.stat || x.statOK != y.statOK {
			return fmt.Sprintf("folder %q: %+v / %+v", rel, *x, *y)
		}
		if !maps.EqualFunc(x.files, y.files, func(f, g *fileEntry) bool { return *f == *g }) {
			return fmt.Sprintf("files of %q differ", rel)
		}
		if !slices.Equal(slices.Sorted(maps.Keys(x.dirs)), slices.Sorted(maps.Keys(y.dirs))) {
			return fmt.Sprintf("subfolders of %q: %v / %v", rel, slices.Sorted(maps.Keys(x.dirs)), slices.Sorted(maps.Keys(y.dirs)))
		}
		for name, child := range x.dirs {
			if d := diff(child, y.dirs[name], joinRel(rel, name)); d != "" {
				return d
			}
		}
		return ""
	}
	return diff(a.root, b.root, "")
}

// After every snapshot, the manifest read back from the base file and its log is the one the store
// holds in memory; most turns append to the log; a log block cut short (a crash while writing it)
// makes the next store rebuild from scratch, and its snapshot is still the tree's.
func TestManifestLogReadsBackAsWritten(t *testing.T) {
	dir := t.TempDir()
	// Enough folders that a turn's block is smaller than the base.
	for i := range 100 {
		write(t, dir, fmt.Sprintf("d%d/f%d.txt", i%10, i), "x", 0o644)
	}
	write(t, dir, ".gitignore", "*.tmp\nout/\n", 0o644)
	s := openStore(t, dir)
	s.racyWindow = 0
	snapshot(t, s, "")
	base, logPath := filepath.Join(s.dir, manifestName), filepath.Join(s.dir, manifestLogName)
	steps := []func(){
		func() { write(t, dir, "d0/f0.txt", "changed", 0o644) },
		func() { write(t, dir, "d1/new/deep/g.txt", "new folders", 0o644) },
		func() { os.RemoveAll(filepath.Join(dir, "d2")) },
		func() { os.Remove(filepath.Join(dir, "d3/f3.txt")) },
		func() { write(t, dir, "d1/x.tmp", "ignored", 0o644); write(t, dir, "out/o.bin", "ignored", 0o644) },
		func() { os.Rename(filepath.Join(dir, "d1/new"), filepath.Join(dir, "d0/moved")) },
		func() { write(t, dir, ".gitignore", "*.tmp\n", 0o644) },
		func() { os.Chmod(filepath.Join(dir, "d0/f3.txt"), 0o755) },
		func() { write(t, dir, "d0/moved/.git/HEAD", "ref: refs/heads/main\n", 0o644) },
	}
	appended := 0
	for i, step := range steps {
		step()
		snapshot(t, s, "")
		m, err := loadManifest(base, logPath)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if d := diffManifests(s.man, m); d != "" {
			t.Fatalf("step %d: the manifest read back differs from the one in memory: %s", i, d)
		}
		if m.logSize > 0 {
			appended++
		}
	}
	if appended == 0 {
		t.Fatal("no snapshot appended to the log: every one wrote the whole manifest")
	}
	// Cut the last block short.
	write(t, dir, "d0/f10.txt", "one more", 0o644)
	last := snapshot(t, s, "")
	info, err := os.Stat(logPath)
	if err != nil {
		t.Fatalf("the last snapshot wrote no log: %v", err)
	}
	if err := os.Truncate(logPath, info.Size()-3); err != nil {
		t.Fatal(err)
	}
	if m, err := loadManifest(base, logPath); err != nil || m.commit == last.Commit {
		t.Fatalf("a log cut short: %v, commit %s (the last one is %s)", err, m.commit, last.Commit)
	}
	write(t, dir, "d0/f20.txt", "after the crash", 0o644)
	again, err := Open(t.Context(), Options{AgentDir: filepath.Dir(filepath.Dir(s.dir)), ProjectDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	cp := snapshot(t, again, "")
	if !slices.Equal(cp.Changes, []Change{{"d0/f20.txt", "modified"}}) {
		t.Errorf("changes after a rebuild: %v", cp.Changes)
	}
	fresh := openStore(t, dir)
	want := snapshot(t, fresh, "")
	if got, w := lsTreeRoot(t, again, cp.Commit), lsTreeRoot(t, fresh, want.Commit); got != w {
		t.Fatalf("after the rebuild the snapshot holds %v, a new store's %v", lsTree(t, again, cp.Commit), lsTree(t, fresh, want.Commit))
	}
	m, err := loadManifest(base, logPath)
	if err != nil || diffManifests(again.man, m) != "" {
		t.Fatalf("after the rebuild: %v %s", err, diffManifests(again.man, m))
	}
	fsck(t, again)
}

// A manifest written by the previous version (2: whole paths in file records) is read, not rebuilt.
func TestManifestVersion2IsRead(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a/b/c.txt", "c", 0o644)
	write(t, dir, "top.txt", "t", 0o644)
	s := openStore(t, dir)
	s.racyWindow = 0
	snapshot(t, s, "")
	p := filepath.Join(t.TempDir(), "v2")
	if err := saveVersion2(s.man, p); err != nil {
		t.Fatal(err)
	}
	m, err := loadManifest(p, p+".log")
	if err != nil {
		t.Fatal(err)
	}
	if m.excludes != "" {
		t.Errorf("version 2 had no excludes record, read %q", m.excludes)
	}
	m.excludes, m.excludesStat = s.man.excludes, s.man.excludesStat
	if d := diffManifests(s.man, m); d != "" {
		t.Fatal(d)
	}
}

// saveVersion2 writes m as version 2 did: each file record names the file's whole path.
func saveVersion2(m *manifest, p string) error {
	w := recordWriter{}
	w.b = append(w.b, manifestMagicV2+m.commit+"\n"...)
	var walk func(n *dirNode, rel string)
	walk = func(n *dirNode, rel string) {
		files := n.files
		n.files = nil
		w.dir(n, rel)
		n.files = files
		for name, f := range files {
			one := &dirNode{files: map[string]*fileEntry{joinRel(rel, name): f}}
			file := recordWriter{}
			file.dir(one, "")
			// Drop the folder record (kind, empty name, tree, flags, stat) ahead of the file's.
			r := recordReader{b: file.b[2+len(one.tree)+1:]}
			r.stat()
			w.b = append(w.b, r.b...)
		}
		for name, child := range n.dirs {
			walk(child, joinRel(rel, name))
		}
	}
	walk(m.root, "")
	for p := range m.ignored {
		w.b = append(w.b, recIgnored)
		w.str(p)
	}
	sum := sha1.Sum(w.b)
	return os.WriteFile(p, append(w.b, sum[:]...), 0o600)
}

// A log block names only the files put or removed in a folder whose entries are otherwise the same.
func TestManifestPatchRecords(t *testing.T) {
	dir := t.TempDir()
	base, logPath := filepath.Join(dir, "manifest"), filepath.Join(dir, "manifest.log")
	m := newManifest()
	m.commit = "one"
	for i := range 50 {
		d := newDirNode()
		for j := range 20 {
			d.files[fmt.Sprintf("f%d", j)] = &fileEntry{stat: fileStat{size: int64(j), ino: uint64(i*100 + j)}, mode: modeFile}
		}
		m.root.dirs[fmt.Sprintf("d%d", i)] = d
	}
	if err := m.save(base, logPath); err != nil {
		t.Fatal(err)
	}
	d := m.root.dirs["d7"]
	delete(d.files, "f3")
	d.touch("f3")
	d.files["f4"] = &fileEntry{stat: fileStat{size: 99}, mode: modeExec, racy: true}
	d.touch("f4")
	d.tree, d.unsaved = objectID{1}, true
	m.commit = "two"
	if err := m.saveChanges(base, logPath); err != nil {
		t.Fatal(err)
	}
	if m.logSize == 0 || m.logSize > 200 {
		t.Fatalf("the log block is %d bytes: a patch of two files should be a few dozen", m.logSize)
	}
	got, err := loadManifest(base, logPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffManifests(m, got); diff != "" {
		t.Fatal(diff)
	}
}
