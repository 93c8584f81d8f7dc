package provider

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Spill holds a provider's converted messages as its request bodies write them, in an unlinked
// temporary file: a session's next request sends them again without converting them, and they take
// no memory in between (the page cache holds them, and the kernel may write them out). Kept in
// memory, a 5,000-turn session's converted transcript is as large as its request body, 45 MB.
//
// Without a temporary file (none can be made, or the system cannot remove an open file) the bytes
// are kept in memory, so a request never fails for want of one. Writes go to the end only: bytes
// once written never change, so a body being sent reads them while later requests append. A Spill
// is used by one request at a time (a LastRequest state holds it); bodies read it through Source.
type Spill struct {
	f    *os.File // nil: the bytes are in mem
	mem  []byte
	size int64  // bytes written, pending included
	buf  []byte // written, not yet in f
}

// spillFlushSize is how much a file-backed spill gathers before writing it.
const spillFlushSize = 256 << 10

// NewSpillFile returns an empty spill in a new unlinked temporary file, or in memory when no file
// can be made or unlinked.
func NewSpillFile() *Spill {
	f, err := os.CreateTemp(spillDir(), "pi-go-request-*")
	if err != nil {
		if f, err = os.CreateTemp("", "pi-go-request-*"); err != nil {
			return NewMemorySpill()
		}
	}
	if err := os.Remove(f.Name()); err != nil {
		// Windows cannot remove an open file: a file left behind would outlive the process.
		f.Close()
		os.Remove(f.Name())
		return NewMemorySpill()
	}
	return &Spill{f: f}
}

// spillDir is where spill files go: the user's cache directory, which is on disk, before $TMPDIR,
// which many systems mount as tmpfs (there a spill would still be memory, only not the process's).
func spillDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	dir = filepath.Join(dir, "pi-go")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return dir
}

// NewMemorySpill returns an empty spill kept in memory (a one-off body, a test).
func NewMemorySpill() *Spill { return &Spill{} }

// SpillRange is where bytes are in a spill.
type SpillRange struct {
	Off, N int64
}

// End is the offset just after the range.
func (r SpillRange) End() int64 { return r.Off + r.N }

// Size is the number of bytes written.
func (s *Spill) Size() int64 { return s.size }

// Add appends b and returns where it is.
func (s *Spill) Add(b []byte) (SpillRange, error) {
	r := SpillRange{Off: s.size, N: int64(len(b))}
	s.size += r.N
	if s.f == nil {
		s.mem = append(s.mem, b...)
		return r, nil
	}
	s.buf = append(s.buf, b...)
	if len(s.buf) >= spillFlushSize {
		return r, s.flush()
	}
	return r, nil
}

// flush writes what add gathered.
func (s *Spill) flush() error {
	if s.f == nil || len(s.buf) == 0 {
		return nil
	}
	if _, err := s.f.WriteAt(s.buf, s.size-int64(len(s.buf))); err != nil {
		return fmt.Errorf("write the converted messages to %s: %w", s.f.Name(), err)
	}
	s.buf = s.buf[:0]
	if cap(s.buf) > 2*spillFlushSize {
		s.buf = nil // grown by one long message: not kept for the session's life
	}
	return nil
}

// Source flushes the spill and returns a reader of what it holds now, for a body to read while
// later requests append. A file-backed spill's file stays open while a body holds it: its
// descriptor is closed by the os.File's cleanup once no body nor state refers to it, which is when
// no reader can need it any more (bodies are read by the HTTP transport after the request that
// built them, and retried requests read them again).
func (s *Spill) Source() (io.ReaderAt, error) {
	if s.f == nil {
		return bytes.NewReader(s.mem[:s.size:s.size]), nil
	}
	if err := s.flush(); err != nil {
		return nil, err
	}
	return s.f, nil
}

// Compact returns the spill to use from now on for the ranges rs of s (in ascending order), and
// their places there: s itself when most of it is still in rs, else a new spill holding only them,
// for when most of s is messages of transcripts no longer sent (an edit, a compaction, a branch
// switch). s is left as it was, for the bodies still reading it.
func (s *Spill) Compact(rs []SpillRange) (*Spill, []SpillRange, error) {
	var live int64
	for _, r := range rs {
		live += r.N
	}
	if dead := s.size - live; dead < spillDeadMin || dead < live {
		return s, rs, nil
	}
	src, err := s.Source()
	if err != nil {
		return nil, nil, err
	}
	out := NewSpillFile()
	if s.f == nil {
		out = NewMemorySpill()
	}
	moved := make([]SpillRange, len(rs))
	var tmp []byte
	for i := 0; i < len(rs); {
		// a run of adjacent ranges is read at once
		j, end := i+1, rs[i].End()
		for j < len(rs) && rs[j].Off == end && end-rs[i].Off < spillFlushSize {
			end = rs[j].End()
			j++
		}
		n := end - rs[i].Off
		if int64(cap(tmp)) < n {
			tmp = make([]byte, n)
		}
		b := tmp[:n]
		if _, err := src.ReadAt(b, rs[i].Off); err != nil {
			return nil, nil, fmt.Errorf("read the converted messages back: %w", err)
		}
		at, err := out.Add(b)
		if err != nil {
			return nil, nil, err
		}
		for k := i; k < j; k++ {
			moved[k] = SpillRange{Off: at.Off + rs[k].Off - rs[i].Off, N: rs[k].N}
		}
		i = j
	}
	return out, moved, nil
}

// spillDeadMin is the dead part of a spill from which Compact moves the live part to a new one
// (once the dead part also outweighs it).
const spillDeadMin = 8 << 20
