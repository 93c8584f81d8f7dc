package provider

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestSpill: what is added is read back through Source, from an unlinked file in the user's cache
// directory, else in $TMPDIR (or from memory when no file can be made there); Compact keeps a mostly live spill and moves the live ranges of a
// mostly dead one, leaving the old one readable.
func TestSpill(t *testing.T) {
	for _, tt := range []struct {
		name       string
		cache, tmp string // XDG_CACHE_HOME and TMPDIR under a test directory: "missing" cannot be made
		file       bool
	}{
		{name: "cache", cache: "cache", tmp: "missing", file: true},
		{name: "tmpdir", cache: "missing/file", tmp: "tmp", file: true},
		{name: "memory", cache: "missing/file", tmp: "missing", file: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			// "missing/file": a cache directory under a regular file cannot be created.
			if err := os.WriteFile(filepath.Join(dir, "missing"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			tmp := filepath.Join(dir, "missing", "sub")
			if tt.tmp != "missing" {
				tmp = filepath.Join(dir, tt.tmp)
				if err := os.Mkdir(tmp, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, tt.cache))
			t.Setenv("TMPDIR", tmp)
			s := NewSpillFile()
			if got := s.f != nil; got != tt.file {
				t.Fatalf("file-backed: %v, want %v", got, tt.file)
			}
			if s.f != nil {
				if _, err := os.Stat(s.f.Name()); !os.IsNotExist(err) {
					t.Fatalf("the spill file %s is still linked (%v)", s.f.Name(), err)
				}
			}
			// Large pieces (several flushes) and small ones.
			var pieces [][]byte
			var rs []SpillRange
			for i := range 40 {
				p := bytes.Repeat([]byte(fmt.Sprint(i%10)), 1+i*i*97)
				r, err := s.Add(p)
				if err != nil {
					t.Fatal(err)
				}
				pieces, rs = append(pieces, p), append(rs, r)
			}
			check := func(s *Spill, rs []SpillRange, pieces [][]byte) {
				t.Helper()
				src, err := s.Source()
				if err != nil {
					t.Fatal(err)
				}
				for i, r := range rs {
					got := make([]byte, r.N)
					if _, err := src.ReadAt(got, r.Off); err != nil && err != io.EOF {
						t.Fatal(err)
					}
					if !bytes.Equal(got, pieces[i]) {
						t.Fatalf("piece %d differs", i)
					}
				}
			}
			check(s, rs, pieces)
			if c, crs, err := s.Compact(rs); err != nil || c != s || len(crs) != len(rs) {
				t.Fatalf("a live spill was moved (%v)", err)
			}
			// Keep every third piece: most of the spill is dead (and more than spillDeadMin).
			for s.Size() < 2*spillDeadMin {
				if _, err := s.Add(make([]byte, 1<<20)); err != nil {
					t.Fatal(err)
				}
			}
			var keep []SpillRange
			var kept [][]byte
			for i := 0; i < len(rs); i += 3 {
				keep, kept = append(keep, rs[i]), append(kept, pieces[i])
			}
			c, moved, err := s.Compact(keep)
			if err != nil {
				t.Fatal(err)
			}
			if c == s {
				t.Fatal("a mostly dead spill was not moved")
			}
			if (c.f != nil) != tt.file {
				t.Fatalf("the new spill is file-backed: %v, want %v", c.f != nil, tt.file)
			}
			check(c, moved, kept)
			check(s, rs, pieces) // the old one still reads
		})
	}
}
