package main

import (
	"context"
	"os"
	"reflect"
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
	// What the few functions running now fault back in is less than what was resident (the test
	// binary's start-up alone leaves megabytes of it).
	if after >= before {
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

func TestReleasableRanges(t *testing.T) {
	smaps := `00400000-01500000 r-xp 00000000 fd:00 123 /opt/my pi/pi
Rss:               12000 kB
Anonymous:             0 kB
01500000-02b00000 r--p 01100000 fd:00 123 /opt/my pi/pi
Anonymous:             0 kB
02b00000-02b10000 r--p 02700000 fd:00 123 /opt/my pi/pi
Anonymous:             8 kB
02b10000-02d00000 rw-p 02710000 fd:00 123 /opt/my pi/pi
Anonymous:           700 kB
02d00000-02e00000 rw-p 00000000 00:00 0
Anonymous:           900 kB
7f0000000000-7f0000100000 r--p 00000000 fd:00 456 /opt/my pi/other
Anonymous:             0 kB
7f0000100000-7f0000200000 r--s 00000000 fd:00 123 /opt/my pi/pi
Anonymous:             0 kB
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
Anonymous:           132 kB
`
	got := releasableRanges([]byte(smaps), 0x00401000)
	want := [][2]uint64{{0x00400000, 0x01500000}, {0x01500000, 0x02b00000}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("releasable ranges %x, want %x (the code and the clean read-only data of the executable only)", got, want)
	}
	if got := releasableRanges([]byte(smaps), 0x10); got != nil {
		t.Fatalf("with no mapping holding the caller: %x, want none", got)
	}
}
