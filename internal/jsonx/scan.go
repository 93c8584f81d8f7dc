package jsonx

import (
	"bytes"
	"strconv"
)

// A Scanner reads one JSON value without building it: the caller walks objects and arrays member by
// member (Object, Array), takes the strings and numbers it wants (Str, Number, Raw) and skips the rest
// (Skip), which is checked all the same. It accepts exactly what encoding/json accepts for one value,
// with the same nesting limit, and decodes strings as encoding/json does (invalid UTF-8 and lone
// surrogates become U+FFFD). A malformed input gives a *SyntaxError in encoding/json's words.
//
// The input is in memory (Reset) or read from an io.Reader through a 64 KB window (ResetReader); the
// two differ only in how long what the scanner returns stays valid (see Str and Raw).
//
// Errors are sticky: after the first, every call does nothing (Peek reports 0, Object and Array
// false), and Err returns it. A caller that has seen enough stops the scan with Fail.
type Scanner struct {
	buf   []byte // the input in memory; for a reader, the part of it read and not yet let go
	pos   int    // the next byte of buf
	err   error
	depth int
	// arena holds decoded strings: those with escapes (in memory) or all of them (from a reader).
	arena []byte
	in    *streamInput // nil for input in memory
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// A SyntaxError says why and where the input is not JSON, in the words encoding/json uses for the same
// fault.
type SyntaxError struct {
	msg string
	// Offset is the index in the input of the byte at fault, or the input's length when it ends too
	// soon.
	Offset int64
}

func (e *SyntaxError) Error() string { return e.msg }

// Reset makes s read data, keeping the arena it has grown. Strings and raw values it returns are views
// into data or into the arena, valid until the next Reset.
func (s *Scanner) Reset(data []byte) {
	s.buf, s.pos, s.err, s.depth, s.in = data, 0, nil, 0, nil
	s.arena = s.arena[:0]
}

// Pos is the offset in the input of the next byte to read.
func (s *Scanner) Pos() int {
	if s.in != nil {
		return int(s.in.base) + s.pos
	}
	return s.pos
}

// Input is the input of a scanner reading from memory (nil for one reading from a reader): with Pos,
// it cuts out what lies between two points of the scan.
func (s *Scanner) Input() []byte {
	if s.in != nil {
		return nil
	}
	return s.buf
}

// fill makes at least n unread bytes available if the input has them, and reports whether it does. In
// memory everything is available already.
func (s *Scanner) fill(n int) bool { return s.in != nil && s.in.fill(s, n) }

// failAt stops the scan with a syntax error about the byte at pos. Nothing is left to read after an
// error, so that Peek's fast path needs no check.
func (s *Scanner) failAt(pos int, msg string) {
	if s.err == nil {
		off := int64(pos)
		if s.in != nil {
			off += s.in.base
		}
		s.err = &SyntaxError{msg: msg, Offset: off}
	}
	s.pos = len(s.buf)
}

func (s *Scanner) failEnd() { s.failAt(len(s.buf), "unexpected end of JSON input") }

// failByte reports the byte at the current position as out of place; what says where it was found.
func (s *Scanner) failByte(what string) {
	if s.err != nil {
		return
	}
	if s.pos >= len(s.buf) && !s.fill(1) {
		s.failEnd()
		return
	}
	s.failAt(s.pos, "invalid character "+quoteChar(s.buf[s.pos])+" "+what)
}

// Err is the first error of the scan: a *SyntaxError, what the reader failed with, or what was given to
// Fail.
func (s *Scanner) Err() error { return s.err }

// Fail stops the scan with err, unless it has stopped already.
func (s *Scanner) Fail(err error) {
	if s.err == nil {
		s.err = err
	}
	s.pos = len(s.buf)
}

// Peek skips whitespace and returns the first byte of the next value without consuming it: '{', '[',
// '"', '-' or a digit, 't', 'f', 'n', or any other byte for a malformed input; 0 at the end of the
// input or after an error (a 0 byte in the input is 0 too, and Skip says what it is).
func (s *Scanner) Peek() (c byte) {
	// Small enough to be inlined: in compact JSON the next byte is the value's.
	if s.pos < len(s.buf) {
		c = s.buf[s.pos]
	}
	if c > ' ' {
		return c
	}
	return s.peekSpace()
}

// peekSpace is Peek past whitespace, reading on as needed.
func (s *Scanner) peekSpace() byte {
	for s.err == nil {
		for s.pos < len(s.buf) {
			c := s.buf[s.pos]
			if c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
				return c
			}
			s.pos++
		}
		if !s.fill(1) {
			return 0
		}
	}
	return 0
}

// End checks that nothing but whitespace follows the value read.
func (s *Scanner) End() {
	s.Peek()
	if s.err == nil && s.pos < len(s.buf) {
		s.failByte("after top-level value")
	}
}

// enter steps into the object or array at the current position, within the nesting limit.
func (s *Scanner) enter() bool {
	if s.depth++; s.depth > maxDepth {
		s.failAt(s.pos, "exceeded max depth")
		return false
	}
	s.pos++
	return true
}

// Object calls member with each key of the object at the current position; member must consume the
// value (with Skip, Str, Object...). A value that is no object is skipped and reported as false, as is
// an error. A key is valid as long as a string returned by Str.
func (s *Scanner) Object(member func(key []byte)) bool {
	if s.Peek() != '{' {
		s.Skip()
		return false
	}
	if !s.enter() {
		return false
	}
	if s.Peek() == '}' {
		s.pos++
		s.depth--
		return true
	}
	for {
		if s.Peek() != '"' {
			s.failByte("looking for beginning of object key string")
			return false
		}
		key := s.str()
		if s.Peek() != ':' {
			s.failByte("after object key")
			return false
		}
		s.pos++
		if s.Peek() == 0 { // the end of the input, or a 0 byte
			s.failByte("looking for beginning of value")
			return false
		}
		member(key)
		switch s.Peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return s.err == nil
		default:
			s.failByte("after object key:value pair")
			return false
		}
	}
}

// Array calls elem with the index of each element of the array at the current position; elem must
// consume it. A value that is no array is skipped and reported as false, as is an error.
func (s *Scanner) Array(elem func(i int)) bool {
	if s.Peek() != '[' {
		s.Skip()
		return false
	}
	if !s.enter() {
		return false
	}
	if s.Peek() == ']' {
		s.pos++
		s.depth--
		return true
	}
	for i := 0; ; i++ {
		if s.Peek() == 0 {
			s.failByte("looking for beginning of value")
			return false
		}
		elem(i)
		switch s.Peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return s.err == nil
		default:
			s.failByte("after array element")
			return false
		}
	}
}

// Skip consumes any value, checking it.
func (s *Scanner) Skip() {
	switch c := s.Peek(); {
	case c == '"':
		s.skipString()
	case c == '{':
		if !s.enter() {
			return
		}
		if s.Peek() == '}' {
			s.pos++
			s.depth--
			return
		}
		for {
			if s.Peek() != '"' {
				s.failByte("looking for beginning of object key string")
				return
			}
			s.skipString()
			if s.Peek() != ':' {
				s.failByte("after object key")
				return
			}
			s.pos++
			if s.Peek() == 0 { // the end of the input, or a 0 byte
				s.failByte("looking for beginning of value")
				return
			}
			s.Skip()
			switch s.Peek() {
			case ',':
				s.pos++
			case '}':
				s.pos++
				s.depth--
				return
			default:
				s.failByte("after object key:value pair")
				return
			}
		}
	case c == '[':
		if !s.enter() {
			return
		}
		if s.Peek() == ']' {
			s.pos++
			s.depth--
			return
		}
		for {
			if s.Peek() == 0 {
				s.failByte("looking for beginning of value")
				return
			}
			s.Skip()
			switch s.Peek() {
			case ',':
				s.pos++
			case ']':
				s.pos++
				s.depth--
				return
			default:
				s.failByte("after array element")
				return
			}
		}
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

func (s *Scanner) literal(word string) {
	s.fill(len(word))
	for i := 0; i < len(word); i++ {
		if s.pos >= len(s.buf) {
			s.failEnd()
			return
		}
		if s.buf[s.pos] != word[i] {
			s.failByte("in literal " + word + " (expecting " + quoteChar(word[i]) + ")")
			return
		}
		s.pos++
	}
}

// Str reads the string that comes next and returns its decoded bytes; any other value is skipped and
// gives nil. In memory, a string that stands for its own bytes is a view into the input, any other is
// decoded into the arena; both stay valid until the next Reset. From a reader, every string is decoded
// into the arena and stays valid until the next string is read (or is taken with Detach).
func (s *Scanner) Str() []byte {
	if s.Peek() != '"' {
		s.Skip()
		return nil
	}
	return s.str()
}

// str reads the string at the current position (which must be '"').
func (s *Scanner) str() []byte {
	if s.in != nil {
		return s.in.str(s)
	}
	b := s.buf
	start := s.pos + 1
	// Keys, ids and one-token deltas are mostly short plain ASCII: found in line.
	if end := plainEnd(b, s.pos); end > 0 {
		s.pos = end
		return b[start : end-1]
	}
	n := len(s.arena)
	out, end, err := Unquote(s.arena, b, s.pos)
	if err != nil {
		s.failString(err)
		return nil
	}
	s.pos = end
	if len(out) > n {
		s.arena = out
		return out[n:len(out):len(out)]
	}
	return b[start : end-1]
}

func (s *Scanner) skipString() {
	if s.in != nil {
		s.in.str(s)
		return
	}
	if end := plainEnd(s.buf, s.pos); end > 0 {
		s.pos = end
		return
	}
	end, _, err := scanString(s.buf, s.pos)
	if err != nil {
		s.failString(err)
		return
	}
	s.pos = end
}

// failString reports a malformed string literal in encoding/json's words.
func (s *Scanner) failString(err error) {
	e := err.(*stringError)
	s.pos = e.At
	switch e.Kind {
	case errEnd:
		s.failEnd()
	case errControl:
		s.failByte("in string literal")
	case errEscape:
		s.failByte("in string escape code")
	default:
		s.failByte(`in \u hexadecimal character escape`)
	}
}

// Number reads the number that comes next; any other value is skipped and gives false. A number out of
// float64's range is ±Inf (or 0), as JSON.parse reads it.
func (s *Scanner) Number() (float64, bool) {
	c := s.Peek()
	if c != '-' && (c < '0' || c > '9') {
		s.Skip()
		return 0, false
	}
	lit, simple := s.number()
	if lit == nil {
		return 0, false
	}
	if simple && len(lit) <= 15 {
		var n int64
		digits := lit
		if lit[0] == '-' {
			digits = lit[1:]
		}
		for _, c := range digits {
			n = n*10 + int64(c-'0')
		}
		if lit[0] == '-' {
			n = -n
		}
		return float64(n), true
	}
	f, _ := strconv.ParseFloat(string(lit), 64)
	return f, true
}

// number reads the number at the current position and returns its bytes (valid until the next read;
// nil after an error) and whether it is an integer.
func (s *Scanner) number() (lit []byte, integer bool) {
	if s.in != nil {
		s.in.bufferNumber(s)
	}
	d := s.buf
	start, i := s.pos, s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return s.badNumber(i, "in numeric literal")
	}
	integer = true
	if i < len(d) && d[i] == '.' {
		integer = false
		if i++; i >= len(d) || d[i] < '0' || d[i] > '9' {
			return s.badNumber(i, "after decimal point in numeric literal")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		integer = false
		if i++; i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return s.badNumber(i, "in exponent of numeric literal")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return d[start:i], integer
}

// badNumber reports the byte at i (or the end of the input) as out of place in a number.
func (s *Scanner) badNumber(i int, what string) ([]byte, bool) {
	s.pos = i
	s.failByte(what)
	return nil, false
}

// Raw consumes any value and returns its bytes: in memory a view into the input, from a reader a copy
// valid until the next Raw.
func (s *Scanner) Raw() []byte {
	s.Peek()
	if s.in != nil {
		return s.in.raw(s)
	}
	start := s.pos
	s.Skip()
	if s.err != nil {
		return nil
	}
	return s.buf[start:s.pos]
}

// SkipLoose steps over a value checking only what delimits it: where its strings end (escapes
// honoured) and how its objects and arrays nest, the closing bytes found with a vectorised search. It
// is for values that are checked later, or were already: a value cut short is still caught. From a
// reader it is Skip.
func (s *Scanner) SkipLoose() {
	c := s.Peek()
	switch {
	case s.in != nil || (c != '"' && c != '{' && c != '['):
		s.Skip()
		return
	case c == '"':
		s.skipStringLoose()
		return
	}
	b := s.buf
	depth := 0
	for i := s.pos; i < len(b); {
		switch b[i] {
		case '"':
			s.pos = i
			if !s.skipStringLoose() {
				return
			}
			i = s.pos
			continue
		case '{', '[':
			if depth++; depth > maxDepth {
				s.failAt(i, "exceeded max depth")
				return
			}
		case '}', ']':
			if depth--; depth == 0 {
				s.pos = i + 1
				return
			}
		}
		i++
	}
	s.failEnd()
}

// skipStringLoose steps over the string at the current position by searching for an unescaped closing
// quote.
func (s *Scanner) skipStringLoose() bool {
	b := s.buf
	for j := s.pos + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			s.failEnd()
			return false
		}
		q := j + k
		n := 0
		for p := q - 1; p > s.pos && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			s.pos = q + 1
			return true
		}
		j = q + 1
	}
}

// Valid reports whether data is one JSON value, with nothing but whitespace around it.
func Valid(data []byte) bool {
	var s Scanner
	s.Reset(data)
	s.Skip()
	s.End()
	return s.err == nil
}
