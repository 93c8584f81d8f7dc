package openai

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// requestBody is a chat-completions body that is written while it is sent. Its length is known before
// the first byte (servers get a Content-Length, as pi sends). The transcript's messages are read from
// the conversion's spill (spill.go), which holds them as they are sent; the few others (the system
// prompt, a message marked for a prompt cache) are written into the reader's buffer, long strings
// escaped straight into it: a resumed 50 MB transcript never exists a second time as one 50 MB slice.
// A requestBody is immutable; each reader has its own state, so a retried request reads it again.
type requestBody struct {
	head  []byte // `{"model":…,"messages":[`
	src   io.ReaderAt
	parts []bodyPart
	tail  []byte // `],"stream":true,…}`
	size  int64
}

// bodyPart is a message written when read (msg), or spilled messages: bytes [off, off+n) of the
// body's src, each message with the comma before it.
type bodyPart struct {
	msg    *wireMessage
	off, n int64
}

// newBody is the body of head, parts read from src, and tail.
func newBody(head []byte, src io.ReaderAt, parts []bodyPart, tail []byte) *requestBody {
	b := &requestBody{head: head, src: src, parts: parts, tail: tail}
	b.size = int64(len(head) + len(tail))
	w := &jsonWriter{spill: true}
	for i := range parts {
		if parts[i].msg == nil {
			b.size += parts[i].n
			if i == 0 {
				b.size-- // the first message of the array has no comma before it
			}
			continue
		}
		b.writePart(w, i)
		b.size += int64(len(w.b))
		for _, l := range w.long {
			b.size += int64(jsonx.QuotedLen(l.s))
		}
	}
	return b
}

// writePart writes part i, a message written when read (with the comma before it), into w,
// spilling its long strings.
func (b *requestBody) writePart(w *jsonWriter, i int) {
	w.reset()
	if i > 0 {
		w.b = append(w.b, ',')
	}
	w.message(b.parts[i].msg)
}

// reader returns a new reader of the body.
func (b *requestBody) reader() io.ReadCloser {
	return &bodyReader{body: b, lit: b.head, w: jsonWriter{spill: true}}
}

// bodyReader produces a requestBody's bytes: a literal part (the head, a message's bytes without its
// long strings, the tail), the long strings at their offsets, or a run of spilled messages; then the
// next part.
type bodyReader struct {
	body *requestBody
	w    jsonWriter // the message being read
	lit  []byte     // bytes of the current part
	long []spilled  // its long strings
	pos  int        // next byte of lit
	seg  int        // next long string
	next int        // next part; len(parts) once the tail is loaded
	done bool       // the tail is loaded

	src     int64         // next byte of the spilled run being read
	srcLeft int64         // its bytes not read yet
	esc     stringEscaper // the long string being written, when active
	pend    []byte        // bytes of an escape that did not fit into the caller's buffer
	tmp     [8]byte
	sent    int64
}

func (r *bodyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case len(r.pend) > 0:
			c := copy(p[n:], r.pend)
			r.pend = r.pend[c:]
			n += c
		case r.srcLeft > 0:
			c := int(min(int64(len(p)-n), r.srcLeft))
			if _, err := r.body.src.ReadAt(p[n:n+c], r.src); err != nil {
				return n, fmt.Errorf("openai: read the request body's messages: %w", err)
			}
			r.src += int64(c)
			r.srcLeft -= int64(c)
			n += c
		case r.esc.active():
			c := r.esc.write(p[n:])
			if c == 0 {
				// Less room than one escape needs: write it aside and hand it over in pieces.
				r.pend = r.tmp[:r.esc.write(r.tmp[:])]
			}
			n += c
		default:
			end := len(r.lit)
			if r.seg < len(r.long) {
				end = r.long[r.seg].at
			}
			if r.pos < end {
				c := copy(p[n:], r.lit[r.pos:end])
				r.pos += c
				n += c
				continue
			}
			if r.seg < len(r.long) {
				r.esc = newStringEscaper(r.long[r.seg].s)
				r.seg++
				continue
			}
			if !r.advance() {
				r.sent += int64(n)
				if r.sent != r.body.size {
					return n, fmt.Errorf("openai: the request body came to %d bytes, %d were announced", r.sent, r.body.size)
				}
				if n == 0 {
					return 0, io.EOF
				}
				return n, nil
			}
		}
	}
	r.sent += int64(n)
	return n, nil
}

// advance loads the next part: the next message or run of spilled ones, or the tail; false when
// everything was read.
func (r *bodyReader) advance() bool {
	r.lit, r.long = nil, nil
	switch {
	case r.next < len(r.body.parts):
		part := &r.body.parts[r.next]
		if part.msg == nil {
			r.src, r.srcLeft = part.off, part.n
			if r.next == 0 {
				r.src++ // no comma before the first message
				r.srcLeft--
			}
		} else {
			r.body.writePart(&r.w, r.next)
			r.lit, r.long = r.w.b, r.w.long
		}
		r.next++
	case !r.done:
		r.done = true
		r.lit = r.body.tail
	default:
		return false
	}
	r.pos, r.seg = 0, 0
	return true
}

func (r *bodyReader) Close() error { return nil }

// stringEscaper writes a string as JSON.stringify does (the rules of jsonx.AppendString),
// whole characters at a time, into whatever room it is given.
type stringEscaper struct {
	s     string
	i     int
	state uint8 // escIdle, escOpen, escBody or escClose
}

const (
	escIdle  = iota // nothing (left) to write
	escOpen         // the opening quote is next
	escBody         // s[i:] is next
	escClose        // the closing quote is next
)

func newStringEscaper(s string) stringEscaper { return stringEscaper{s: s, state: escOpen} }

func (e *stringEscaper) active() bool { return e.state != escIdle }

// maxEscape is the longest a byte of the string can become (\u00xx, or \ufffd for invalid UTF-8).
const maxEscape = 6

// write writes as much of the string as fits into dst and returns the bytes written (0 only when
// dst is shorter than the next character's escape, at most 6 bytes).
func (e *stringEscaper) write(dst []byte) int {
	n := 0
	if e.state == escOpen {
		if len(dst) == 0 {
			return 0
		}
		dst[0] = '"'
		n = 1
		e.state = escBody
	}
	for e.state == escBody && n < len(dst) {
		if e.i >= len(e.s) {
			e.state = escClose
			break
		}
		// Any piece of len/6 bytes fits (an escape is at most 6 bytes for 1); it ends at a character
		// boundary so that a character split in two is not taken for invalid UTF-8.
		end := min(len(e.s), e.i+(len(dst)-n)/maxEscape)
		for end > e.i && end < len(e.s) && !utf8.RuneStart(e.s[end]) {
			end--
		}
		if end > e.i {
			n = len(jsonx.AppendEscaped(dst[:n], e.s[e.i:end]))
			e.i = end
			continue
		}
		// Too little room for a whole piece: one character, if it fits.
		_, size := utf8.DecodeRuneInString(e.s[e.i:])
		if jsonx.QuotedLen(e.s[e.i:e.i+size])-2 > len(dst)-n {
			return n
		}
		n = len(jsonx.AppendEscaped(dst[:n], e.s[e.i:e.i+size]))
		e.i += size
	}
	if e.state == escClose && n < len(dst) {
		dst[n] = '"'
		n++
		e.state = escIdle
	}
	return n
}
