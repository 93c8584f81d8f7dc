package shell

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/tools/output"
)

// spoolLimit bounds a full-output file. The file exists so the model can read what the truncated
// result left out, and the end of a long output (the error, the summary) is what it needs, so once
// the file reaches the limit its older half is dropped and a first line says what is missing: the
// file keeps at least the last half of the limit. 32 MB is far more than a model reads from a file
// and keeps a runaway command (`yes`, a looping test) from filling the disk.
const spoolLimit = 32 << 20

// spool is one command's full-output file in the output directory, bounded to limit bytes.
type spool struct {
	dir    *OutputDir
	prefix string
	limit  int64

	started bool
	f       *os.File
	path    string
	// body is the size of the output kept in the file (after the header line); lines counts its
	// newlines.
	body, lines int64
	header      int64
	// dropped and droppedLines count the output (bytes, newlines) cut from the front so far.
	dropped, droppedLines int64
	// midLine says the kept output starts in the middle of a line (one that runs far into the
	// part kept).
	midLine bool
}

func newSpool(dir *OutputDir, prefix string) *spool {
	return &spool{dir: dir, prefix: prefix, limit: spoolLimit}
}

// open makes the file once; it reports whether the file is there to be written.
func (s *spool) open() bool {
	if !s.started {
		s.started = true
		if f, path, err := s.dir.create(s.prefix); err == nil {
			s.f, s.path = f, path
		}
	}
	return s.f != nil
}

// write appends p (not retained). A failed write (a full disk) must not fail the command: the file
// just stops growing, and its path stays in the results.
func (s *spool) write(p []byte) {
	if s.f == nil || len(p) == 0 {
		return
	}
	if _, err := s.f.Write(p); err != nil {
		s.stop()
		return
	}
	s.body += int64(len(p))
	s.lines += int64(bytes.Count(p, []byte{'\n'}))
	if s.header+s.body > s.limit {
		s.compact()
	}
}

// compact rewrites the file as a header line and the last half of the limit, cut at a line start
// where one is near, and puts it in place of the old one (rename: a reader never sees half a file).
func (s *spool) compact() {
	keep := min(s.limit/2, s.body)
	start := s.header + s.body - keep
	skip, keptLines, midLine, err := spoolScan(io.NewSectionReader(s.f, start, keep), keep)
	if err != nil {
		s.stop()
		return
	}
	start += skip
	keep -= skip
	dropped := s.dropped + s.body - keep
	droppedLines := s.droppedLines + s.lines - keptLines
	header := spoolHeader(s.limit, dropped, droppedLines, midLine)
	tmp, err := os.CreateTemp(filepath.Dir(s.path), filepath.Base(s.path)+".tmp-")
	if err != nil {
		s.stop()
		return
	}
	if _, err = tmp.WriteString(header); err == nil {
		if _, err = io.Copy(tmp, io.NewSectionReader(s.f, start, keep)); err == nil {
			err = os.Rename(tmp.Name(), s.path)
		}
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		s.stop()
		return
	}
	s.f.Close()
	s.f = tmp
	s.header, s.body, s.lines = int64(len(header)), keep, keptLines
	s.dropped, s.droppedLines, s.midLine = dropped, droppedLines, midLine
}

// spoolHeader is the first line of a compacted file: what was dropped and where the rest starts.
func spoolHeader(limit, dropped, droppedLines int64, midLine bool) string {
	if midLine {
		return fmt.Sprintf("[pi-go: this file keeps only the end of the output (limit %s): the first %s were dropped;"+
			" what follows is the end of line %d]\n", output.FormatSize(int(limit)), output.FormatSize(int(dropped)), droppedLines+1)
	}
	return fmt.Sprintf("[pi-go: this file keeps only the end of the output (limit %s): the first %s (%d lines) were dropped;"+
		" what follows starts at line %d]\n", output.FormatSize(int(limit)), output.FormatSize(int(dropped)), droppedLines, droppedLines+1)
}

// spoolScan reads the part of the output to keep (n bytes) and finds where it should start:
// after its first newline, or, when that would drop more than half of it (a long line runs into
// it), at its first character boundary (midLine). It counts the newlines from there on.
func spoolScan(r io.Reader, n int64) (skip, lines int64, midLine bool, err error) {
	buf := make([]byte, 32*1024)
	firstNewline := int64(-1)
	var read int64
	var head []byte
	for {
		m, rerr := r.Read(buf)
		chunk := buf[:m]
		if len(head) < utf8.UTFMax {
			head = append(head, chunk[:min(len(chunk), utf8.UTFMax-len(head))]...)
		}
		if firstNewline < 0 {
			if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
				firstNewline = read + int64(i)
			}
		}
		lines += int64(bytes.Count(chunk, []byte{'\n'}))
		read += int64(m)
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return 0, 0, false, rerr
		}
	}
	if firstNewline >= 0 && firstNewline < n/2 {
		return firstNewline + 1, lines - 1, false, nil
	}
	cut := 0
	for cut < len(head) && !utf8.RuneStart(head[cut]) {
		cut++
	}
	return int64(cut), lines, true, nil
}

// droppedNote is the addition to "Full output: <path>" once the file had to drop the output's start.
func (s *spool) droppedNote() string {
	if s.dropped == 0 {
		return ""
	}
	return fmt.Sprintf(" (the first %s were dropped to keep the file under %s; its first line says where it starts)",
		output.FormatSize(int(s.dropped)), output.FormatSize(int(s.limit)))
}

// stop closes the file after an error; the path stays, with what was written.
func (s *spool) stop() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// close closes the file; it stays in the output directory.
func (s *spool) close() { s.stop() }
