package jsonx

import (
	"io"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// streamInput is what a Scanner reading from an io.Reader keeps besides its window: a request of tens
// of megabytes goes through 64 KB, and only what the caller keeps (its strings, its raw values) is
// held.
type streamInput struct {
	r    io.Reader
	eof  bool
	base int64 // offset in the input of the window's first byte
	size int64 // of the whole input, when known (-1: not known)
	read int64 // bytes read from r so far
	// While capturing (Raw), the bytes consumed since capStart are (also) copied into captured.
	capturing bool
	capStart  int
	captured  []byte
}

const streamWindow = 64 << 10

// LongString is the length from which a string read from a reader is grown with the input's size in
// mind, and worth taking with Detach rather than copying.
const LongString = 1 << 20

// ResetReader makes s read from r, which holds size bytes (-1: not known; only a hint for long
// strings). Strings and raw values read from it are copies, valid until the next string (or Raw)
// is read. A failed read stops the scan with the reader's error.
func (s *Scanner) ResetReader(r io.Reader, size int64) {
	window := make([]byte, 0, streamWindow)
	if s.in != nil {
		window = s.buf[:0]
	}
	s.buf, s.pos, s.err, s.depth = window, 0, nil, 0
	s.arena = s.arena[:0]
	s.in = &streamInput{r: r, size: size}
}

// flushCapture copies the captured bytes still in the window out of it, before they are let go.
func (in *streamInput) flushCapture(s *Scanner) {
	if in.capturing {
		in.captured = append(in.captured, s.buf[in.capStart:s.pos]...)
		in.capStart = s.pos
	}
}

// fill reads until at least n unread bytes are in the window, or the input ends.
func (in *streamInput) fill(s *Scanner, n int) bool {
	for len(s.buf)-s.pos < n && !in.eof && s.err == nil {
		in.flushCapture(s)
		keep := len(s.buf) - s.pos
		w := s.buf[:cap(s.buf)]
		if n > len(w) {
			w = make([]byte, max(n, 2*len(w)))
		}
		copy(w, s.buf[s.pos:])
		in.base += int64(s.pos)
		s.pos, in.capStart = 0, 0
		m, err := in.r.Read(w[keep:])
		in.read += int64(m)
		s.buf = w[:keep+m]
		switch {
		case err == io.EOF:
			in.eof = true
		case err != nil:
			in.eof = true
			s.Fail(err)
		}
	}
	return len(s.buf)-s.pos >= n
}

// bufferNumber brings the whole number at the current position into the window.
func (in *streamInput) bufferNumber(s *Scanner) {
	for {
		i := s.pos
		for i < len(s.buf) && isNumberByte(s.buf[i]) {
			i++
		}
		if i < len(s.buf) || !in.fill(s, i-s.pos+1) {
			return
		}
	}
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// raw consumes any value and returns a copy of its bytes.
func (in *streamInput) raw(s *Scanner) []byte {
	in.capturing, in.capStart, in.captured = true, s.pos, in.captured[:0]
	s.Skip()
	in.flushCapture(s)
	in.capturing = false
	if s.err != nil {
		return nil
	}
	return in.captured
}

// str reads the string at the current position (which must be '"') into the arena, which the next
// string reuses.
func (in *streamInput) str(s *Scanner) []byte {
	s.pos++ // opening quote
	out := s.arena[:0]
	defer func() { s.arena = out[:0] }()
	for s.err == nil {
		if s.pos >= len(s.buf) && !in.fill(s, 1) {
			s.failEnd()
			return nil
		}
		// As far as the window goes: runs kept as they are (printable ASCII but quote and backslash,
		// valid UTF-8) and one-letter escapes; anything else is handled below.
		d := s.buf[s.pos:]
		if cap(out)-len(out) < len(d) {
			out = in.grow(s, out, len(d))
		}
		i, start := 0, 0
		for i < len(d) {
			c := d[i]
			if plainASCII[c] {
				i++
				continue
			}
			if c == '\\' && i+1 < len(d) {
				if e := unescapeLetter[d[i+1]]; e != 0 {
					out = append(append(out, d[start:i]...), e)
					i += 2
					start = i
					continue
				}
			}
			if c < utf8.RuneSelf || !utf8.FullRune(d[i:]) {
				break
			}
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		out = append(out, d[start:i]...)
		s.pos += i
		if i == len(d) {
			continue
		}
		switch c := d[i]; {
		case c == '"':
			s.pos++
			return out
		case c == '\\':
			out = in.escape(s, out)
		case c < 0x20:
			s.failByte("in string literal")
		default:
			// Invalid UTF-8, or a character the end of the window cuts: read on and look again.
			in.fill(s, utf8.UTFMax)
			r, size := utf8.DecodeRune(s.buf[s.pos:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, s.buf[s.pos:s.pos+size]...)
			}
			s.pos += size
		}
	}
	return nil
}

// grow makes room for n more bytes in out. A long string grows in large steps, but never past what is
// left of the input (a string does not decode to more than its JSON, but for invalid UTF-8): a 40 MB
// prompt takes two or three allocations, not the garbage of doubling up to 64 MB.
func (in *streamInput) grow(s *Scanner, out []byte, n int) []byte {
	need := len(out) + n
	c := max(2*cap(out), need)
	if need >= LongString {
		c = max(8*cap(out), need)
		if in.size >= 0 {
			if rest := len(out) + int(in.size-in.read) + len(s.buf) - s.pos; rest >= need {
				c = min(c, rest)
			}
		}
	}
	b := make([]byte, len(out), c)
	copy(b, out)
	return b
}

// escape decodes the escape sequence at the current position (a backslash) onto out.
func (in *streamInput) escape(s *Scanner, out []byte) []byte {
	// The escape is read in whole, as far as the input has it, in the steps a byte-by-byte reader
	// takes: its letter, the four hex digits of a \u, and after a surrogate the \u escape that may
	// complete the pair.
	if in.fill(s, 2) && s.buf[s.pos+1] == 'u' && in.fill(s, 6) {
		if r, ok := hex4(s.buf[s.pos+2:]); ok && utf16.IsSurrogate(r) {
			in.fill(s, 12)
		}
	}
	out, next, err := appendEscape(out, s.buf, s.pos)
	if err != nil {
		s.failString(err)
		return out
	}
	s.pos = next
	return out
}

// Detach returns b, a string Str has just read, as a string without copying it: a scanner reading from
// a reader lets go of its arena, so that a long string (a compaction's prompt is tens of megabytes) is
// not copied again. In memory it copies b.
func (s *Scanner) Detach(b []byte) string {
	if s.in == nil {
		return string(b)
	}
	s.arena = nil
	return unsafe.String(unsafe.SliceData(b), len(b))
}
