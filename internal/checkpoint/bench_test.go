//go:build unix

package checkpoint

import (
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// genRepo fills dir with files totalling about size bytes, spread over folders of 100 files, with
// incompressible content (the worst case for the store).
func genRepo(b *testing.B, dir string, files int, size int64) []string {
	return genTree(b, dir, files, size, func(i int) string {
		return filepath.Join(fmt.Sprintf("pkg%03d", i/100), fmt.Sprintf("file%05d.txt", i))
	})
}

// genTree writes files of about size/files random bytes each at the paths name gives.
func genTree(b *testing.B, dir string, files int, size int64, name func(int) string) []string {
	b.Helper()
	rng := rand.NewChaCha8([32]byte{1, 2})
	buf := make([]byte, size/int64(files))
	paths := make([]string, files)
	for i := range files {
		rel := name(i)
		_, _ = rng.Read(buf)
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			b.Fatal(err)
		}
		paths[i] = rel
	}
	return paths
}

// BenchmarkSnapshotTurn is one turn's snapshot on a 10,000-file, 200 MB tree in which 5 files changed
// (the target is under 50 ms). It also reports the store's growth per turn.
func BenchmarkSnapshotTurn(b *testing.B) {
	dir := b.TempDir()
	benchTurns(b, dir, genRepo(b, dir, 10_000, 200<<20))
}

// BenchmarkSnapshotTurnKernelSize is BenchmarkSnapshotTurn on a tree of the Linux kernel's size class:
// 80,000 files, 1.3 GB, in 5,000 folders two levels deep. It needs about 3 GB of free disk space.
func BenchmarkSnapshotTurnKernelSize(b *testing.B) {
	requireGit(b)
	dir := b.TempDir()
	const need = 3 << 30
	if free, ok := freeSpace(dir); ok && free < need {
		b.Skipf("needs %d MB of free disk space in %s, has %d MB", need>>20, dir, free>>20)
	}
	paths := genTree(b, dir, 80_000, 1300<<20, func(i int) string {
		return filepath.Join(fmt.Sprintf("d%02d", i/1600), fmt.Sprintf("s%03d", i/16%100), fmt.Sprintf("file%05d.c", i))
	})
	benchTurns(b, dir, paths)
}

// freeSpace is the space available to this user on the file system holding dir.
func freeSpace(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}

// benchTurns snapshots the tree in dir (whose files are paths) once, then, per iteration, changes 5
// files and times the snapshot.
func benchTurns(b *testing.B, dir string, paths []string) {
	requireGit(b)
	ctx := context.Background()
	agent := b.TempDir()
	s, err := Open(ctx, Options{AgentDir: agent, ProjectDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := s.Snapshot(ctx, SnapshotOptions{SessionID: "bench"}); err != nil {
		b.Fatal(err)
	}
	first := time.Since(start)
	// The files written just before the first snapshot are read again by the second (racy: see
	// racyWindow); the turns measured are the ones after that.
	if _, err := s.Snapshot(ctx, SnapshotOptions{SessionID: "bench"}); err != nil {
		b.Fatal(err)
	}
	base := dirSize(s.Dir())
	rng := rand.New(rand.NewPCG(3, 4))
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for range 5 {
			p := filepath.Join(dir, paths[rng.IntN(len(paths))])
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(f, "turn %d line\n", i)
			f.Close()
		}
		// The garbage of setting up (and of the previous turn) is collected now, so the runtime's
		// background work is not counted as the snapshot's CPU time.
		runtime.GC()
		debug.FreeOSMemory()
		b.StartTimer()
		before := cpuTime()
		cp, err := s.Snapshot(ctx, SnapshotOptions{SessionID: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - before
		if len(cp.Changes) == 0 {
			b.Fatal("no change recorded")
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(dirSize(s.Dir())-base)/float64(b.N), "store-B/turn")
	b.ReportMetric(first.Seconds(), "first-snapshot-s")
	// CPU time (this process and its git children): steadier than wall time on a shared machine.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkStoreGrowth100Turns runs 100 turns (each editing 5 files of a 1,000-file tree by one line,
// as an agent's edits do) and reports how much the store grew, before and after pruning packs it.
func BenchmarkStoreGrowth100Turns(b *testing.B) {
	requireGit(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		agent := b.TempDir()
		paths := genRepo(b, dir, 1000, 20<<20)
		s, err := Open(ctx, Options{AgentDir: agent, ProjectDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Snapshot(ctx, SnapshotOptions{}); err != nil {
			b.Fatal(err)
		}
		base := dirSize(s.Dir())
		rng := rand.New(rand.NewPCG(5, 6))
		b.StartTimer()
		for turn := range 100 {
			for range 5 {
				p := filepath.Join(dir, paths[rng.IntN(len(paths))])
				f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					b.Fatal(err)
				}
				fmt.Fprintf(f, "turn %d\n", turn)
				f.Close()
			}
			if _, err := s.Snapshot(ctx, SnapshotOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		grown := dirSize(s.Dir()) - base
		if _, err := s.Prune(ctx, Limits{MaxAge: -1, MaxStoreSize: -1}); err != nil {
			b.Fatal(err)
		}
		packed := dirSize(s.Dir())
		b.ReportMetric(float64(base), "base-B")
		b.ReportMetric(float64(grown), "loose-growth-B/100turns")
		b.ReportMetric(float64(packed), "packed-total-B")
	}
}

// cpuTime is the CPU time of this process and its waited-for children (the git commands).
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
