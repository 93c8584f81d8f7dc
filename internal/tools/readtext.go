package tools

import (
	"bytes"
	"context"
	"errors"
	"io"
	"unicode/utf8"
)

// readChunkSize is how much of a file the text reader holds at a time.
const readChunkSize = 256 * 1024

// readMinChunk is the smallest buffer the text reader uses, for small files.
const readMinChunk = 4096

// readScan is one streaming pass over a text file: it skips to the first selected line, keeps the
// head of the selection that fits the output limits, and only counts the rest, so memory stays at a
// chunk plus the kept output whatever the file size. The results are those pi gets by splitting the
// whole file on "\n" (except that byte counts of lines it did not keep count invalid UTF-8 bytes as
// one byte where pi's decoder counts three).
type readScan struct {
	// Inputs.
	start              int // first selected line, 0-based
	limit              int // lines to select (at least 1); < 0 selects to the end of the file
	maxLines, maxBytes int

	// Results.
	fileLines      int    // lines in the whole file (a trailing newline adds an empty line)
	beyondEnd      bool   // start >= fileLines
	selLines       int    // lines in the selection
	selBytes       int    // bytes of the selection, lines joined by "\n"
	kept           []byte // the whole lines of the selection that fit the limits, joined by "\n"
	keptLines      int
	truncatedBy    string // "", "lines" or "bytes"
	firstLineBytes int    // size of the first selected line
}

const (
	readPhaseSkip  = iota // before the selection
	readPhaseKeep         // in the selection, keeping lines
	readPhaseCount        // in the selection, past the limits: counting only
	readPhaseRest         // after the selection
)

// readScanner carries the state of a readScan between chunks.
type readScanner struct {
	*readScan
	phase    int
	pos      int64 // file offset of the chunk being processed
	newlines int   // newlines seen so far
	selStart int64 // file offset where the selection begins
	selEnd   int64 // file offset where it ends (exclusive, before the newline)
	growth   int   // bytes added to kept lines by replacing invalid UTF-8
	cur      []byte
	curLen   int  // raw length of the selected line being read
	curOver  bool // it is longer than maxBytes, so it is counted, not kept
}

// run reads r to the end (checking ctx between chunks) and fills s.
func (s *readScan) run(ctx context.Context, r io.Reader, chunkSize int) error {
	sc := &readScanner{readScan: s}
	if s.start == 0 {
		sc.phase = readPhaseKeep
	}
	buf := make([]byte, chunkSize)
	for {
		if ctx.Err() != nil {
			return errRWAborted
		}
		n, err := io.ReadFull(r, buf)
		sc.feed(buf[:n])
		sc.pos += int64(n)
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	sc.finish()
	return nil
}

// readAdvance consumes up to k newlines of data and returns the bytes consumed (through the k-th
// newline, or all of data) and the newlines found.
func readAdvance(data []byte, k int) (consumed, found int) {
	if c := bytes.Count(data, []byte{'\n'}); c < k {
		return len(data), c
	}
	for found < k {
		consumed += bytes.IndexByte(data[consumed:], '\n') + 1
		found++
	}
	return consumed, found
}

func (sc *readScanner) feed(data []byte) {
	base := sc.pos
	off := 0
	for off < len(data) {
		rest := data[off:]
		switch sc.phase {
		case readPhaseSkip:
			consumed, found := readAdvance(rest, sc.start-sc.newlines)
			sc.newlines += found
			off += consumed
			if sc.newlines == sc.start {
				sc.phase = readPhaseKeep
				sc.selStart = base + int64(off)
			}
		case readPhaseKeep:
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				sc.addToLine(rest)
				off = len(data)
				continue
			}
			sc.addToLine(rest[:i])
			sc.newlines++
			sc.endLine(base + int64(off+i))
			off += i + 1
		case readPhaseCount:
			if sc.limit < 0 {
				c := bytes.Count(rest, []byte{'\n'})
				sc.newlines += c
				sc.selLines += c
				off = len(data)
				continue
			}
			consumed, found := readAdvance(rest, sc.limit-sc.selLines)
			sc.newlines += found
			sc.selLines += found
			off += consumed
			if sc.selLines == sc.limit {
				sc.selEnd = base + int64(off) - 1
				sc.phase = readPhaseRest
			}
		case readPhaseRest:
			sc.newlines += bytes.Count(rest, []byte{'\n'})
			off = len(data)
		}
	}
}

func (sc *readScanner) addToLine(seg []byte) {
	sc.curLen += len(seg)
	if sc.curOver {
		return
	}
	if len(sc.cur)+len(seg) > sc.maxBytes {
		sc.curOver, sc.cur = true, nil
		return
	}
	sc.cur = append(sc.cur, seg...)
}

// endLine closes the selected line that ends at file offset end.
func (sc *readScanner) endLine(end int64) {
	j := sc.selLines
	size := sc.curLen
	var text []byte
	if !sc.curOver {
		text = readValidUTF8(sc.cur)
		size = len(text)
	}
	if j == 0 {
		sc.firstLineBytes = size
	}
	sep := 0
	if j > 0 {
		sep = 1
	}
	if !sc.curOver && j < sc.maxLines && len(sc.kept)+sep+size <= sc.maxBytes {
		if j > 0 {
			sc.kept = append(sc.kept, '\n')
		}
		sc.kept = append(sc.kept, text...)
		sc.keptLines++
		sc.growth += size - sc.curLen
	} else {
		sc.truncatedBy = "bytes"
		if j >= sc.maxLines {
			sc.truncatedBy = "lines"
		}
		sc.phase = readPhaseCount
	}
	sc.selLines++
	sc.selEnd = end
	sc.cur, sc.curLen, sc.curOver = sc.cur[:0], 0, false
	if sc.limit >= 0 && sc.selLines == sc.limit {
		sc.phase = readPhaseRest
	}
}

// finish accounts for the last line, which no newline ends.
func (sc *readScanner) finish() {
	eof := sc.pos
	switch sc.phase {
	case readPhaseSkip:
		sc.beyondEnd = true
	case readPhaseKeep:
		sc.endLine(eof)
	case readPhaseCount:
		sc.selLines++
		sc.selEnd = eof
	}
	sc.fileLines = sc.newlines + 1
	if !sc.beyondEnd {
		sc.selBytes = int(sc.selEnd-sc.selStart) + sc.growth
	}
}

// readValidUTF8 returns b, with each byte that is not part of valid UTF-8 replaced by U+FFFD (pi
// decodes files as UTF-8 the same way, and JSON cannot carry invalid bytes).
func readValidUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}
