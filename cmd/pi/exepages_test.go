package main

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// exeRSS is the resident size, in kB, of the read-only mappings of the running executable.
func exeRSS(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	total, in := 0, false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && len(f[1]) == 4:
			in = len(f) >= 6 && f[5] == exe && f[1][1] != 'w'
		case in && len(f) == 3 && f[0] == "Rss:":
			kb, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatalf("smaps line %q: %v", line, err)
			}
			total += kb
		}
	}
	return total
}

func TestReleaseExecutablePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		if n := releaseExecutablePages(); n != 0 {
			t.Fatalf("released %d mappings outside Linux", n)
		}
		t.Skip("the release is Linux's")
	}
	before := exeRSS(t)
	if n := releaseExecutablePages(); n < 1 {
		t.Fatalf("released %d mappings of the executable, want at least its code", n)
	}
	after := exeRSS(t)
	// The test binary's start-up leaves megabytes of it resident; what the few functions running
	// now fault back in is a small part of that.
	if before < 1024 || after > before/2 {
		t.Fatalf("the executable's read-only pages: %d kB resident before, %d kB after the release", before, after)
	}
	t.Logf("executable's read-only pages: %d kB → %d kB", before, after)
}

func TestReleaseWhenSettled(t *testing.T) {
	count := func(n *int) func() int { return func() int { *n++; return 1 } }
	t.Run("quiet", func(t *testing.T) {
		// Any CPU use is quiet here: the release comes at the first tick, once.
		n := 0
		releaseWhenSettled(context.Background(), time.Millisecond, time.Hour, time.Hour, count(&n))
		if n != 1 {
			t.Fatalf("released %d times, want once", n)
		}
	})
	t.Run("never quiet", func(t *testing.T) {
		// No CPU use is below zero: the process never settles and the release never comes.
		n := 0
		releaseWhenSettled(context.Background(), time.Millisecond, 0, 50*time.Millisecond, count(&n))
		if n != 0 {
			t.Fatalf("released %d times, want none", n)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		n := 0
		releaseWhenSettled(ctx, time.Hour, time.Hour, time.Hour, count(&n))
		if n != 0 {
			t.Fatalf("released %d times after the context ended", n)
		}
	})
}
