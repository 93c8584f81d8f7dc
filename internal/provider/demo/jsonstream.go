package demo

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// streamScanner reads one JSON value from a reader without holding it whole: the caller walks objects
// and arrays member by member, strings are decoded into a scratch buffer that the next string reuses,
// and whatever the caller does not want is checked and skipped. It accepts the syntax encoding/json's
// Decoder accepts for one value (same nesting limit, similar error texts) and decodes strings as
// encoding/json does (invalid UTF-8 and lone surrogates become U+FFFD). A request of tens of
// megabytes is read through a 64 KB buffer.
type streamScanner struct {
	r        io.Reader
	buf      []byte
	pos, end int
	eof      bool
	readErr  error // what the reader returned instead of data (not io.EOF)
	err      error // the first syntax or read error; everything stops there
	depth    int
	scratch  []byte
	// While capturing, the bytes consumed since capStart are (also) copied into captured.
	capturing bool
	capStart  int
	captured  []byte
	size      int64 // of the whole input, when known (-1: not known)
	read      int64 // bytes read from r so far
}

const (
	scanBufSize = 64 << 10
	maxDepth    = 10000 // encoding/json's nesting limit
)

// newStreamScanner reads r, which holds size bytes (-1: unknown; only a hint for long strings).
func newStreamScanner(r io.Reader, size int64) *streamScanner {
	return &streamScanner{r: r, buf: make([]byte, scanBufSize), size: size}
}

// longString is the length from which a decoded string is grown with the input's size in mind and
// handed over rather than copied.
const longString = 1 << 20

// flushCapture copies the captured bytes still in the buffer out of it, before they are overwritten.
func (s *streamScanner) flushCapture() {
	if s.capturing {
		s.captured = append(s.captured, s.buf[s.capStart:s.pos]...)
		s.capStart = s.pos
	}
}

// ensure makes at least n unread bytes available if the input has them, and returns how many are.
func (s *streamScanner) ensure(n int) int {
	for s.end-s.pos < n && !s.eof && s.err == nil {
		s.flushCapture()
		copy(s.buf, s.buf[s.pos:s.end])
		s.end -= s.pos
		s.pos, s.capStart = 0, 0
		m, err := s.r.Read(s.buf[s.end:])
		s.end += m
		s.read += int64(m)
		switch {
		case err == io.EOF:
			s.eof = true
		case err != nil:
			s.eof = true
			s.readErr = err
			s.err = err
		}
	}
	return s.end - s.pos
}

// more makes at least one unread byte available; false at the end of the input.
func (s *streamScanner) more() bool { return s.pos < s.end || s.ensure(1) > 0 }

func (s *streamScanner) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf(format, args...)
	}
}

func (s *streamScanner) failEOF() { s.fail("unexpected end of JSON input") }

// failByte reports the byte at the current position as out of place.
func (s *streamScanner) failByte(context string) {
	if !s.more() {
		s.failEOF()
		return
	}
	s.fail("invalid character %s %s", jsonx.QuoteChar(s.buf[s.pos]), context)
}

// kind skips whitespace and returns the next byte without consuming it (0 at the end or after an
// error).
func (s *streamScanner) kind() byte {
	for s.err == nil && s.more() {
		switch c := s.buf[s.pos]; c {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return c
		}
	}
	return 0
}

// object calls member for each key of the object at the current position; member must consume the
// value. key is only valid until the next string is read.
func (s *streamScanner) object(member func(key []byte)) {
	if s.kind() != '{' {
		s.failByte("looking for beginning of object")
		return
	}
	if s.depth++; s.depth > maxDepth {
		s.fail("exceeded max depth")
		return
	}
	s.pos++
	if s.kind() == '}' {
		s.pos++
		s.depth--
		return
	}
	for s.err == nil {
		if s.kind() != '"' {
			s.failByte("looking for beginning of object key string")
			return
		}
		key := s.str()
		if s.kind() != ':' {
			s.failByte("after object key")
			return
		}
		s.pos++
		if s.kind() == 0 {
			s.failEOF()
			return
		}
		member(key)
		switch s.kind() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return
		default:
			s.failByte("after object key:value pair")
		}
	}
}

// array calls elem for each element of the array at the current position; elem must consume it.
func (s *streamScanner) array(elem func(i int)) {
	if s.kind() != '[' {
		s.failByte("looking for beginning of array")
		return
	}
	if s.depth++; s.depth > maxDepth {
		s.fail("exceeded max depth")
		return
	}
	s.pos++
	if s.kind() == ']' {
		s.pos++
		s.depth--
		return
	}
	for i := 0; s.err == nil; i++ {
		if s.kind() == 0 {
			s.failEOF()
			return
		}
		elem(i)
		switch s.kind() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return
		default:
			s.failByte("after array element")
		}
	}
}

// skip consumes any value, checking its syntax.
func (s *streamScanner) skip() {
	switch c := s.kind(); {
	case s.err != nil:
	case c == '{':
		s.object(func([]byte) { s.skip() })
	case c == '[':
		s.array(func(int) { s.skip() })
	case c == '"':
		s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		s.number()
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	default:
		s.failByte("looking for beginning of value")
	}
}

// raw consumes any value and returns its bytes (valid until the next raw call).
func (s *streamScanner) raw() []byte {
	s.kind()
	s.capturing, s.capStart, s.captured = true, s.pos, s.captured[:0]
	s.skip()
	s.flushCapture()
	s.capturing = false
	if s.err != nil {
		return nil
	}
	return s.captured
}

func (s *streamScanner) literal(word string) {
	for i := 0; i < len(word); i++ {
		if !s.more() {
			s.failEOF()
			return
		}
		if s.buf[s.pos] != word[i] {
			s.failByte("in literal " + word + " (expecting " + jsonx.QuoteChar(word[i]) + ")")
			return
		}
		s.pos++
	}
}

// digits consumes a run of decimal digits and reports whether there was one.
func (s *streamScanner) digits() bool {
	n := 0
	for s.more() && s.buf[s.pos] >= '0' && s.buf[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n > 0
}

// number consumes a JSON number, checking its syntax.
func (s *streamScanner) number() {
	if s.more() && s.buf[s.pos] == '-' {
		s.pos++
	}
	switch {
	case !s.more():
		s.failEOF()
		return
	case s.buf[s.pos] == '0':
		s.pos++
	case s.buf[s.pos] >= '1' && s.buf[s.pos] <= '9':
		s.digits()
	default:
		s.failByte("in numeric literal")
		return
	}
	if s.more() && s.buf[s.pos] == '.' {
		s.pos++
		if !s.digits() {
			s.failByte("after decimal point in numeric literal")
			return
		}
	}
	if s.more() && (s.buf[s.pos] == 'e' || s.buf[s.pos] == 'E') {
		s.pos++
		if s.more() && (s.buf[s.pos] == '+' || s.buf[s.pos] == '-') {
			s.pos++
		}
		if !s.digits() {
			s.failByte("in exponent of numeric literal")
		}
	}
}

// str reads the string at the current position (which must be '"') and returns its decoded bytes,
// valid until the next string is read.
func (s *streamScanner) str() []byte {
	s.pos++ // opening quote
	out := s.scratch[:0]
	defer func() { s.scratch = out[:0] }()
	for s.err == nil {
		if !s.more() {
			s.failEOF()
			return nil
		}
		// As far as the buffer allows: runs kept as they are (printable ASCII but quote and backslash,
		// valid UTF-8) and one-letter escapes; anything else is handled below.
		d := s.buf[s.pos:s.end]
		if cap(out)-len(out) < len(d) {
			out = s.grow(out, len(d))
		}
		i, start := 0, 0
		for i < len(d) {
			c := d[i]
			if jsonx.PlainASCII(c) {
				i++
				continue
			}
			if c == '\\' && i+1 < len(d) {
				if e := jsonx.UnescapeLetter(d[i+1]); e != 0 {
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
			out = s.escape(out)
		case c < 0x20:
			s.failByte("in string literal")
		default:
			// Invalid UTF-8, or a character the end of the buffer cuts: read on and look again.
			s.ensure(utf8.UTFMax)
			r, size := utf8.DecodeRune(s.buf[s.pos:s.end])
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
// summary prompt takes two or three allocations, not the garbage of doubling up to 64 MB.
func (s *streamScanner) grow(out []byte, n int) []byte {
	need := len(out) + n
	c := max(2*cap(out), need)
	if need >= longString {
		c = max(8*cap(out), need)
		if s.size >= 0 {
			if rest := len(out) + int(s.size-s.read) + s.end - s.pos; rest >= need {
				c = min(c, rest)
			}
		}
	}
	b := make([]byte, len(out), c)
	copy(b, out)
	return b
}

// handOver returns b, the string str just decoded, as a string without copying it: the scanner lets
// go of the buffer (a long string: a compaction's prompt is tens of megabytes).
func (s *streamScanner) handOver(b []byte) string {
	s.scratch = nil
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// escape decodes the escape sequence at the current position (a backslash) onto out.
func (s *streamScanner) escape(out []byte) []byte {
	// The escape is read in whole, as far as the input has it, in the steps a byte-by-byte reader
	// takes: its letter, the four hex digits of a \u, and after a surrogate the \u escape that may
	// complete the pair.
	if s.ensure(2) >= 2 && s.buf[s.pos+1] == 'u' && s.ensure(6) >= 6 {
		if r, ok := jsonx.Hex4(s.buf[s.pos+2 : s.end]); ok && utf16.IsSurrogate(r) {
			s.ensure(12)
		}
	}
	out, next, err := jsonx.AppendEscape(out, s.buf[:s.end], s.pos)
	if err != nil {
		e := err.(*jsonx.StringError)
		switch s.pos = e.At; e.Kind {
		case jsonx.ErrEnd:
			s.failEOF()
		case jsonx.ErrHex:
			s.failByte(`in \u hexadecimal character escape`)
		default:
			s.failByte("in string escape code")
		}
		return out
	}
	s.pos = next
	return out
}

// errBodyTooLarge stops reading a request body past maxRequestBody.
var errBodyTooLarge = errors.New("demo: request body too large")
