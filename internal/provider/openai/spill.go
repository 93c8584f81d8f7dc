package openai

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// spillFile holds converted chat messages as the request body writes them, each with the comma
// that goes before it, in an unlinked temporary file: a session's next request sends them again
// without converting them, and they take no memory in between (the page cache holds them, and the
// kernel may write them out). Kept as structs instead, they cost about 184 bytes a chat message and
// the texts they joined; a resumed 50 MB session's 20,000 messages were 9 MB of the heap.
//
// Without a temporary file (none can be made, or the system cannot remove an open file) the bytes
// are kept in memory, so a request never fails for want of one. Writes go to the end only: bytes
// once written never change, so a body being sent reads them while later requests append.
type spillFile struct {
	f    *os.File // nil: the bytes are in mem
	mem  []byte
	size int64  // bytes written, pending included
	buf  []byte // written, not yet in f
}

// spillFlushSize is how much a file-backed spill gathers before writing it.
const spillFlushSize = 256 << 10

// newSpillFile returns an empty spill in a new unlinked temporary file, or in memory when no file
// can be made or unlinked.
func newSpillFile() *spillFile {
	f, err := os.CreateTemp("", "pi-go-openai-body-*")
	if err != nil {
		return newMemorySpill()
	}
	if err := os.Remove(f.Name()); err != nil {
		// Windows cannot remove an open file: a file left behind would outlive the process.
		f.Close()
		os.Remove(f.Name())
		return newMemorySpill()
	}
	return &spillFile{f: f}
}

func newMemorySpill() *spillFile { return &spillFile{} }

// spillRange is one chat message in a spill, its comma included.
type spillRange struct {
	off, n int64
}

// add appends b and returns where it is.
func (s *spillFile) add(b []byte) (spillRange, error) {
	r := spillRange{off: s.size, n: int64(len(b))}
	s.size += r.n
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
func (s *spillFile) flush() error {
	if s.f == nil || len(s.buf) == 0 {
		return nil
	}
	if _, err := s.f.WriteAt(s.buf, s.size-int64(len(s.buf))); err != nil {
		return fmt.Errorf("openai: write the converted messages to %s: %w", s.f.Name(), err)
	}
	s.buf = s.buf[:0]
	if cap(s.buf) > 2*spillFlushSize {
		s.buf = nil // grown by one long message: not kept for the session's life
	}
	return nil
}

// source flushes the spill and returns a reader of what it holds now, for a body to read while
// later requests append. A file-backed spill's file stays open while a body holds it: its
// descriptor is closed by the os.File's cleanup once no body nor state refers to it, which is when
// no reader can need it any more (bodies are read by the HTTP transport after the request that
// built them, and retried requests read them again).
func (s *spillFile) source() (io.ReaderAt, error) {
	if s.f == nil {
		return bytes.NewReader(s.mem[:s.size:s.size]), nil
	}
	if err := s.flush(); err != nil {
		return nil, err
	}
	return s.f, nil
}

// copyRanges returns a new spill holding the given ranges of s, and their places there: used when
// most of s is messages no transcript refers to any more.
func (s *spillFile) copyRanges(rs []spillRange) (*spillFile, []spillRange, error) {
	src, err := s.source()
	if err != nil {
		return nil, nil, err
	}
	out := newSpillFile()
	if s.f == nil {
		out = newMemorySpill()
	}
	moved := make([]spillRange, len(rs))
	var tmp []byte
	for i, r := range rs {
		if int64(cap(tmp)) < r.n {
			tmp = make([]byte, r.n)
		}
		b := tmp[:r.n]
		if _, err := src.ReadAt(b, r.off); err != nil {
			return nil, nil, fmt.Errorf("openai: read the converted messages back: %w", err)
		}
		if moved[i], err = out.add(b); err != nil {
			return nil, nil, err
		}
	}
	return out, moved, nil
}
