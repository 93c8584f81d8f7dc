package openai

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/pi-go/pi-go/internal/jsonx"
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
	s.fail("invalid character %s %s", jsonx.QuoteChar(s.data[s.pos]), what)
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
			s.failByte("in literal " + word + " (expecting " + jsonx.QuoteChar(word[i]) + ")")
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
	start := s.pos + 1
	// Most strings of a chunk are short plain ASCII (keys, ids, one token): found in line.
	if end := jsonx.PlainEnd(d, s.pos); end > 0 {
		s.pos = end
		return d[start : end-1]
	}
	var end int
	var err error
	if s.validateOnly {
		end, _, err = jsonx.ScanString(d, s.pos)
	} else {
		n := len(s.arena)
		var out []byte
		if out, end, err = jsonx.Unquote(s.arena, d, s.pos); len(out) > n {
			s.arena = out
			s.pos = end
			return out[n:len(out):len(out)]
		}
	}
	if err != nil {
		s.failString(err)
		return nil
	}
	s.pos = end
	return d[start : end-1]
}

// failString reports a malformed string as encoding/json does.
func (s *scanner) failString(err error) {
	e := err.(*jsonx.StringError)
	s.pos = e.At
	switch e.Kind {
	case jsonx.ErrEnd:
		s.fail("unexpected end of JSON input")
	case jsonx.ErrControl:
		s.failByte("in string literal")
	case jsonx.ErrEscape:
		s.failByte("in string escape code")
	default:
		s.failByte("in \\u hexadecimal character escape")
	}
}
