package openai

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner is a small strict JSON reader for stream chunks. It accepts exactly what encoding/json
// accepts (the fuzz test checks that), decodes strings the same way (invalid UTF-8 and lone surrogates
// become U+FFFD), and lets the caller pick the members it needs and skip the rest without building any
// value. encoding/json spends about 2 µs on a one-token chunk; this reads it in a tenth of that.
//
// Decoded strings are views: into the input when the string has no escapes, else into arena, which
// only grows during one chunk, so earlier views stay valid until reset.
type scanner struct {
	data  []byte
	pos   int
	depth int
	err   error
	arena []byte
	// validateOnly skips decoding strings with escapes (str returns their raw bodies): for callers
	// that only check syntax.
	validateOnly bool
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

var errDepth = errors.New("exceeded max depth")

func (s *scanner) reset(data []byte) {
	s.data = data
	s.pos = 0
	s.depth = 0
	s.err = nil
	s.arena = s.arena[:0]
}

func (s *scanner) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf(format, args...)
		s.pos = len(s.data)
	}
}

func (s *scanner) failByte(what string) {
	if s.pos >= len(s.data) {
		s.fail("unexpected end of JSON input")
		return
	}
	s.fail("invalid character %s %s", quoteByte(s.data[s.pos]), what)
}

func quoteByte(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	return strconv.QuoteRune(rune(c))
}

func (s *scanner) ws() {
	for s.pos < len(s.data) && s.data[s.pos] <= ' ' && (s.data[s.pos] == ' ' || s.data[s.pos] == '\t' ||
		s.data[s.pos] == '\n' || s.data[s.pos] == '\r') {
		s.pos++
	}
}

// kind returns the first byte of the next value after whitespace (0 at the end or after an error).
func (s *scanner) kind() byte {
	s.ws()
	if s.err != nil || s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

// end checks that only whitespace follows the top-level value.
func (s *scanner) end() {
	s.ws()
	if s.err == nil && s.pos < len(s.data) {
		s.failByte("after top-level value")
	}
}

// object calls member for each key of the object at the current position; member must consume the
// value (with a read or skip call). A non-object value is skipped and reported as false.
func (s *scanner) object(member func(key []byte)) bool {
	if s.kind() != '{' {
		s.skip()
		return false
	}
	if s.depth++; s.depth > maxDepth {
		s.fail("%v", errDepth)
		return false
	}
	s.pos++
	if s.kind() == '}' {
		s.pos++
		s.depth--
		return true
	}
	for s.err == nil {
		if s.kind() != '"' {
			s.failByte("looking for beginning of object key string")
			return false
		}
		key := s.str()
		if s.kind() != ':' {
			s.failByte("after object key")
			return false
		}
		s.pos++
		if s.kind() == 0 && s.err == nil {
			s.fail("unexpected end of JSON input")
			return false
		}
		member(key)
		switch s.kind() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			s.depth--
			return true
		default:
			s.failByte("after object key:value pair")
		}
	}
	return false
}

// array calls elem for each element of the array at the current position; elem must consume it.
// A non-array value is skipped and reported as false.
func (s *scanner) array(elem func(i int)) bool {
	if s.kind() != '[' {
		s.skip()
		return false
	}
	if s.depth++; s.depth > maxDepth {
		s.fail("%v", errDepth)
		return false
	}
	s.pos++
	if s.kind() == ']' {
		s.pos++
		s.depth--
		return true
	}
	for i := 0; s.err == nil; i++ {
		if s.kind() == 0 {
			s.fail("unexpected end of JSON input")
			return false
		}
		elem(i)
		switch s.kind() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			s.depth--
			return true
		default:
			s.failByte("after array element")
		}
	}
	return false
}

// skip consumes any value, checking its syntax.
func (s *scanner) skip() {
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

func (s *scanner) literal(word string) {
	for i := 0; i < len(word); i++ {
		if s.pos >= len(s.data) {
			s.fail("unexpected end of JSON input")
			return
		}
		if s.data[s.pos] != word[i] {
			s.failByte("in literal " + word + " (expecting " + quoteByte(word[i]) + ")")
			return
		}
		s.pos++
	}
}

// stringValue reads a string if the next value is one; any other value is skipped and gives nil.
func (s *scanner) stringValue() []byte {
	if s.kind() != '"' {
		s.skip()
		return nil
	}
	return s.str()
}

// numberValue reads a number if the next value is one; any other value is skipped.
func (s *scanner) numberValue() (float64, bool) {
	c := s.kind()
	if c != '-' && (c < '0' || c > '9') {
		s.skip()
		return 0, false
	}
	return s.number()
}

// raw consumes any value and returns its bytes.
func (s *scanner) raw() []byte {
	s.ws()
	start := s.pos
	s.skip()
	if s.err != nil {
		return nil
	}
	return s.data[start:s.pos]
}

// number reads a JSON number at the current position.
func (s *scanner) number() (float64, bool) {
	d := s.data
	start := s.pos
	i := s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i >= len(d):
		s.pos = i
		s.fail("unexpected end of JSON input")
		return 0, false
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		s.failByte("in numeric literal")
		return 0, false
	}
	simple := true
	if i < len(d) && d[i] == '.' {
		simple = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.pos = i
			s.failByte("after decimal point in numeric literal")
			return 0, false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		simple = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.pos = i
			s.failByte("in exponent of numeric literal")
			return 0, false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.pos = i
	lit := d[start:i]
	if simple && len(lit) <= 15 {
		var n int64
		neg := lit[0] == '-'
		digits := lit
		if neg {
			digits = lit[1:]
		}
		for _, c := range digits {
			n = n*10 + int64(c-'0')
		}
		if neg {
			n = -n
		}
		return float64(n), true
	}
	// Out of range gives ±Inf or 0 with an error: JavaScript's JSON.parse accepts such numbers too.
	f, _ := strconv.ParseFloat(string(lit), 64)
	return f, true
}

// str reads the string at the current position (which must be '"') and returns its decoded bytes.
func (s *scanner) str() []byte {
	d := s.data
	s.pos++ // opening quote
	start := s.pos
	plain := true
	i := start
	for {
		for i < len(d) && plainByte[d[i]] {
			i++
		}
		if i >= len(d) {
			s.pos = i
			s.fail("unexpected end of JSON input")
			return nil
		}
		c := d[i]
		switch {
		case c == '"':
			s.pos = i + 1
			if plain || s.validateOnly {
				return d[start:i]
			}
			return s.unescape(d[start:i])
		case c == '\\':
			plain = false
			i++
			if i >= len(d) {
				s.pos = i
				s.fail("unexpected end of JSON input")
				return nil
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for k := 0; k < 4; k++ {
					if i >= len(d) {
						s.pos = i
						s.fail("unexpected end of JSON input")
						return nil
					}
					if !isHex(d[i]) {
						s.pos = i
						s.failByte("in \\u hexadecimal character escape")
						return nil
					}
					i++
				}
			default:
				s.pos = i
				s.failByte("in string escape code")
				return nil
			}
		case c < 0x20:
			s.pos = i
			s.failByte("in string literal")
			return nil
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				plain = false
			}
			i += size
		default:
			i++
		}
	}
}

// plainByte marks the bytes a string body holds as they are: printable ASCII but quote and backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// unescape decodes a syntactically checked string body into the arena, as encoding/json does.
func (s *scanner) unescape(b []byte) []byte {
	begin := len(s.arena)
	out := s.arena
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '\\':
			e := b[i+1]
			i += 2
			switch e {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hexVal(b[i : i+4])
				i += 4
				if utf16.IsSurrogate(r) {
					if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, hexVal(b[i+2:i+6])); dec != utf8.RuneError {
							i += 6
							out = utf8.AppendRune(out, dec)
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default: // '"', '\\', '/'
				out = append(out, e)
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, b[i:i+size]...)
			}
			i += size
		}
	}
	s.arena = out
	return out[begin:len(out):len(out)]
}
