package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
	unfinished bool // the last line has no '\n'
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
// from; without it every line is kept in memory.
func load(r io.ReaderAt, size int64, path string, src *source) (*loaded, error) {
	l := &loaded{size: size, blank: true}
	var byID map[string]*Entry
	interned := map[string]string{}
	intern := func(s string) string {
		if v, ok := interned[s]; ok {
			return v
		}
		interned[s] = s
		return s
	}
	err := eachLine(r, size, func(line []byte, off int64, no int, terminated bool) error {
		if !terminated {
			l.unfinished = true
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		l.blank = false
		warn := func(format string, args ...any) {
			l.warnings = append(l.warnings, Warning{Path: path, Line: no, Message: fmt.Sprintf(format, args...)})
		}
		if !l.hasHeader {
			if !validJSON(line) {
				if terminated {
					warn("malformed JSON before the header, skipped (kept in the file)")
				} else {
					warn("incomplete last line (an interrupted write), skipped (kept in the file)")
				}
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
			byID = make(map[string]*Entry, size/2048+16)
			return nil
		}
		var head msgHead
		p, err := scanLine(line, &head)
		if err != nil {
			switch {
			case errors.Is(err, errNotEntry):
				warn("not a session entry (no type), skipped (kept in the file)")
			case !terminated:
				warn("incomplete last line (an interrupted write), skipped (kept in the file; the next append starts on a new line)")
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
		if _, dup := byID[p.id]; dup {
			warn("duplicate entry id %s, skipped (kept in the file)", p.id)
			return nil
		}
		e := &Entry{
			Type: p.typ, ID: p.id, ParentID: p.parentID, Timestamp: p.ts,
			lineNo: no, off: off, size: len(line),
		}
		if p.typ == TypeMessage {
			e.Role = head.role
			e.msg = &msgCache{}
			e.msgStart, e.msgEnd = p.msgStart, p.msgEnd
			if head.role == "assistant" {
				e.asstProvider, e.asstModel = intern(head.provider), intern(head.model)
			}
			if src != nil {
				e.src = src
				e.sum = crcOf(line)
			} else {
				e.line = bytes.Clone(line)
			}
		} else {
			e.line = bytes.Clone(line)
			e.fill(e.line, p.rest)
		}
		byID[e.ID] = e
		l.entries = append(l.entries, e)
		return nil
	})
	if err != nil && !errors.Is(err, errNoHeader) && !errors.Is(err, errOldVersion) {
		return nil, fmt.Errorf("read session file %s: %w", path, err)
	}
	if errors.Is(err, errNoHeader) {
		l.hasHeader = false
	}
	if errors.Is(err, errOldVersion) {
		return l, errOldVersion
	}
	return l, nil
}

var errNoHeader = errors.New("no session header")
