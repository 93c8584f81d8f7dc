package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
)

// Warning is a problem found while loading a session that did not stop it: a skipped line, a file
// left alone. The harness shows them; nothing is lost because of them.
type Warning struct {
	Path    string
	Line    int // 1-based line number; 0 when it is about the whole file
	Message string
}

func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", w.Path, w.Line, w.Message)
	}
	return fmt.Sprintf("%s: %s", w.Path, w.Message)
}

// loaded is a session file read from disk.
type loaded struct {
	header     Header
	hasHeader  bool
	blank      bool // nothing but whitespace: the file can be adopted as a new session
	entries    []*Entry
	warnings   []Warning
	size       int64
	unfinished bool      // the last line has no '\n'
	torn       *tornTail // the last line has no '\n' and is not JSON: an interrupted write
}

const readChunk = 4 << 20

// eachLine streams the lines of r (split on '\n' only, never on U+2028/U+2029) without holding the
// whole file: fn gets each line without its newline, its offset, its 1-based number and whether it
// was terminated. A line longer than the buffer grows it.
func eachLine(r io.ReaderAt, size int64, fn func(line []byte, off int64, no int, terminated bool) error) error {
	bufSize := readChunk
	if size < int64(bufSize) {
		bufSize = int(size) + 1
	}
	buf := make([]byte, bufSize)
	_, err := eachLineBuf(r, size, buf, fn)
	return err
}

// eachLineBuf is eachLine reading through buf (grown when a line does not fit, and returned so a
// caller can reuse it).
func eachLineBuf(r io.ReaderAt, size int64, buf []byte, fn func(line []byte, off int64, no int, terminated bool) error) ([]byte, error) {
	var pos int64 // file offset of buf[0]
	have := 0     // valid bytes in buf
	no := 0
	for pos < size || have > 0 {
		if pos+int64(have) < size && have < len(buf) {
			want := len(buf) - have
			if rem := size - pos - int64(have); rem < int64(want) {
				want = int(rem)
			}
			n, err := r.ReadAt(buf[have:have+want], pos+int64(have))
			have += n
			if n < want {
				if err == nil || err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return buf, err
			}
		}
		data := buf[:have]
		consumed := 0
		for {
			i := bytes.IndexByte(data[consumed:], '\n')
			if i < 0 {
				break
			}
			no++
			if err := fn(data[consumed:consumed+i], pos+int64(consumed), no, true); err != nil {
				return buf, err
			}
			consumed += i + 1
		}
		if pos+int64(have) >= size {
			if consumed < have {
				no++
				if err := fn(data[consumed:have], pos+int64(consumed), no, false); err != nil {
					return buf, err
				}
			}
			return buf, nil
		}
		if consumed == 0 && have == len(buf) {
			grown := make([]byte, 2*len(buf))
			copy(grown, buf)
			buf = grown
			continue
		}
		copy(buf, buf[consumed:have])
		have -= consumed
		pos += int64(consumed)
	}
	return buf, nil
}

// errOldVersion stops a load at the header of a v1/v2 file, which must be migrated first.
var errOldVersion = errors.New("session file needs migration")

// load reads a session file. src, when set, is where message entries will read their lines back
// from; without it every line is kept in memory. The header is read first; the entries of a large file
// are then parsed on all CPUs, each worker taking a range of whole lines, and joined in file order.
func load(r io.ReaderAt, size int64, path string, src *source) (*loaded, error) {
	l := &loaded{size: size, blank: true}
	var bodyStart int64 // offset just after the header line
	var headerNo int
	err := eachLine(r, size, func(line []byte, off int64, no int, terminated bool) error {
		if !terminated {
			l.unfinished = true
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		l.blank = false
		if !jsonx.Valid(line) {
			msg := "malformed JSON before the header, skipped (kept in the file)"
			if !terminated {
				msg = "incomplete last line (an interrupted write), skipped (kept in the file)"
			}
			l.warnings = append(l.warnings, Warning{Path: path, Line: no, Message: msg})
			return nil
		}
		h, ok := parseHeader(line)
		if !ok {
			return errNoHeader
		}
		l.header, l.hasHeader = h, true
		if h.Version < CurrentVersion {
			return errOldVersion
		}
		bodyStart, headerNo = off+int64(len(line))+1, no
		return errHeaderFound
	})
	switch {
	case errors.Is(err, errNoHeader):
		l.hasHeader = false
		return l, nil
	case errors.Is(err, errOldVersion):
		return l, errOldVersion
	case err != nil && !errors.Is(err, errHeaderFound):
		return nil, fmt.Errorf("read session file %s: %w", path, err)
	case !l.hasHeader || bodyStart >= size:
		return l, nil
	}
	parts, err := splitLines(r, bodyStart, size)
	if err != nil {
		return nil, fmt.Errorf("read session file %s: %w", path, err)
	}
	results := make([]rangeResult, len(parts)-1)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = parseRange(r, parts[i], parts[i+1], path, src)
		}()
	}
	wg.Wait()
	// join in file order: line numbers continue across ranges; a repeated id keeps its first entry
	base := headerNo
	byID := make(map[string]bool, size/2048+16)
	for _, res := range results {
		if res.err != nil {
			return nil, fmt.Errorf("read session file %s: %w", path, res.err)
		}
		for _, w := range res.warnings {
			w.Line += base
			l.warnings = append(l.warnings, w)
		}
		for _, e := range res.entries {
			e.lineNo += base
			if byID[e.ID] {
				l.warnings = append(l.warnings, Warning{Path: path, Line: e.lineNo,
					Message: fmt.Sprintf("duplicate entry id %s, skipped (kept in the file)", e.ID)})
				continue
			}
			byID[e.ID] = true
			l.entries = append(l.entries, e)
		}
		if res.torn != nil {
			l.torn = &tornTail{off: res.torn.off, line: base + res.torn.line}
		}
		base += res.lines
		l.unfinished = res.unfinished
	}
	sort.SliceStable(l.warnings, func(i, j int) bool { return l.warnings[i].Line < l.warnings[j].Line })
	return l, nil
}

var errHeaderFound = errors.New("header found")

// parallelLoadBytes is the body size from which entries are parsed on several CPUs.
const parallelLoadBytes = 8 << 20

// splitLines cuts [start, end) into ranges of whole lines, one per CPU for a large body. The returned
// offsets begin with start and end with end.
func splitLines(r io.ReaderAt, start, end int64) ([]int64, error) {
	parts := []int64{start}
	workers := runtime.GOMAXPROCS(0)
	if end-start < parallelLoadBytes || workers < 2 {
		return append(parts, end), nil
	}
	step := (end - start) / int64(workers)
	buf := make([]byte, 64<<10)
	for k := 1; k < workers; k++ {
		at := start + int64(k)*step
		if at <= parts[len(parts)-1] {
			continue
		}
		// the range boundary is just after the first newline at or after at
		for at < end {
			n, err := r.ReadAt(buf[:min(int64(len(buf)), end-at)], at)
			if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
				at += int64(i) + 1
				break
			}
			at += int64(n)
			if err != nil && n == 0 {
				return nil, err
			}
		}
		if at < end {
			parts = append(parts, at)
		}
	}
	return append(parts, end), nil
}

// rangeResult is what one worker makes of its lines; line numbers are relative to the range.
type rangeResult struct {
	entries    []*Entry
	warnings   []Warning
	lines      int
	unfinished bool
	torn       *tornTail // line relative to the range, offset absolute
	err        error
}

func parseRange(r io.ReaderAt, start, end int64, path string, src *source) rangeResult {
	var res rangeResult
	interned := map[string]string{}
	intern := func(s string) string {
		if v, ok := interned[s]; ok {
			return v
		}
		interned[s] = s
		return s
	}
	bufSize := readChunk
	if end-start < int64(bufSize) {
		bufSize = int(end-start) + 1
	}
	_, res.err = eachLineBuf(io.NewSectionReader(r, start, end-start), end-start, make([]byte, bufSize),
		func(line []byte, off int64, no int, terminated bool) error {
			res.lines = no
			if !terminated {
				res.unfinished = true
			}
			if len(bytes.TrimSpace(line)) == 0 {
				return nil
			}
			warn := func(format string, args ...any) {
				res.warnings = append(res.warnings, Warning{Path: path, Line: no, Message: fmt.Sprintf(format, args...)})
			}
			var head msgHead
			p, err := scanLine(line, &head)
			if err != nil {
				switch {
				case errors.Is(err, errNotEntry):
					warn("not a session entry (no type), skipped (kept in the file)")
				case !terminated && !jsonx.Valid(line):
					res.torn = &tornTail{off: start + off, line: no}
					warn("incomplete last line (an interrupted write), skipped")
				default:
					warn("malformed JSON, skipped (kept in the file): %v", err)
				}
				return nil
			}
			if p.typ == TypeSession {
				warn("second session header ignored")
				return nil
			}
			if !p.hasID {
				warn("%s entry without an id, skipped (kept in the file)", p.typ)
				return nil
			}
			e := &Entry{Type: p.typ, ID: p.id, ParentID: p.parentID, Timestamp: p.ts, lineNo: no, entryFields: fieldsFor(p.typ)}
			loc := location{off: start + off, size: len(line)}
			if p.typ == TypeMessage {
				e.Role = head.role
				e.msg = &msgCache{}
				e.msgStart, e.msgEnd = p.msgStart, p.msgEnd
				switch head.role {
				case provider.RoleAssistant:
					e.asstProvider, e.asstModel = intern(head.provider), intern(head.model)
					e.usage = head.usage
				case provider.RoleToolResult:
					e.usage = head.usage // a tool that called a model (pi 1.6)
				}
				if src != nil {
					loc.src = src
					loc.sum = crcOf(line)
				} else {
					loc.line = bytes.Clone(line)
				}
			} else {
				loc.line = bytes.Clone(line)
				e.fill(loc.line, p.rest)
			}
			e.loc = newLoc(loc)
			res.entries = append(res.entries, e)
			return nil
		})
	return res
}

var errNoHeader = errors.New("no session header")
