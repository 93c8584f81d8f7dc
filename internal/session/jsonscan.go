package session

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// A reader walks one JSON text (one line of a session file) without building a tree. It validates as
// it goes, so a line it accepts is one JSON.parse accepts, and it decodes only what a caller asks for.
// encoding/json would scan a multi-megabyte line several times (validation, RawMessage copies,
// re-decoding); this reads it once. A reader never allocates for what it skips.
type reader struct {
	b []byte
	i int
	// scratch is reused to unescape strings; a reader that decodes many lines keeps it.
	scratch []byte
}

// maxDepth bounds nesting like encoding/json does, so a hostile line cannot exhaust the stack.
const maxDepth = 10000

var errUnexpectedEnd = errors.New("unexpected end of JSON input")

func (r *reader) fail(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", r.i, fmt.Sprintf(format, args...))
}

func (r *reader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\r', '\n':
			r.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end).
func (r *reader) peek() byte {
	r.ws()
	if r.i >= len(r.b) {
		return 0
	}
	return r.b[r.i]
}

// end checks that nothing but spaces follows the value just read.
func (r *reader) end() error {
	r.ws()
	if r.i != len(r.b) {
		return r.fail("unexpected %q after top-level value", r.b[r.i])
	}
	return nil
}

// skip validates and steps over one value.
func (r *reader) skip() error { return r.skipDepth(0) }

func (r *reader) skipDepth(depth int) error {
	switch c := r.peek(); c {
	case '"':
		_, _, err := r.rawString()
		return err
	case '{':
		if depth >= maxDepth {
			return r.fail("exceeded max depth")
		}
		empty, err := r.beginObject()
		if err != nil || empty {
			return err
		}
		for {
			if _, _, err := r.key(); err != nil {
				return err
			}
			if err := r.skipDepth(depth + 1); err != nil {
				return err
			}
			more, err := r.more('}')
			if err != nil || !more {
				return err
			}
		}
	case '[':
		if depth >= maxDepth {
			return r.fail("exceeded max depth")
		}
		empty, err := r.beginArray()
		if err != nil || empty {
			return err
		}
		for {
			if err := r.skipDepth(depth + 1); err != nil {
				return err
			}
			more, err := r.more(']')
			if err != nil || !more {
				return err
			}
		}
	case 't':
		return r.literal("true")
	case 'f':
		return r.literal("false")
	case 'n':
		return r.literal("null")
	case 0:
		return errUnexpectedEnd
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			_, err := r.number()
			return err
		}
		return r.fail("invalid character %q looking for beginning of value", c)
	}
}

func (r *reader) literal(lit string) error {
	if len(r.b)-r.i < len(lit) || string(r.b[r.i:r.i+len(lit)]) != lit {
		return r.fail("invalid literal")
	}
	r.i += len(lit)
	return nil
}

// isNull consumes a null literal if one comes next.
func (r *reader) isNull() bool {
	if r.peek() == 'n' && len(r.b)-r.i >= 4 && string(r.b[r.i:r.i+4]) == "null" {
		r.i += 4
		return true
	}
	return false
}

// number validates a JSON number and returns its bytes.
func (r *reader) number() ([]byte, error) {
	r.ws()
	start := r.i
	b := r.b
	i := r.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		r.i = i
		return nil, r.fail("invalid number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			r.i = i
			return nil, r.fail("invalid number")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			r.i = i
			return nil, r.fail("invalid number")
		}
	}
	r.i = i
	return b[start:i], nil
}

// beginObject consumes '{'; empty reports (and consumes) an immediate '}'.
func (r *reader) beginObject() (empty bool, err error) {
	if r.peek() != '{' {
		if r.i >= len(r.b) {
			return false, errUnexpectedEnd
		}
		return false, r.fail("expected object")
	}
	r.i++
	if r.peek() == '}' {
		r.i++
		return true, nil
	}
	return false, nil
}

func (r *reader) beginArray() (empty bool, err error) {
	if r.peek() != '[' {
		if r.i >= len(r.b) {
			return false, errUnexpectedEnd
		}
		return false, r.fail("expected array")
	}
	r.i++
	if r.peek() == ']' {
		r.i++
		return true, nil
	}
	return false, nil
}

// key reads `"name":` and returns the raw bytes of the name; esc reports escapes in it.
func (r *reader) key() (k []byte, esc bool, err error) {
	if r.peek() != '"' {
		if r.i >= len(r.b) {
			return nil, false, errUnexpectedEnd
		}
		return nil, false, r.fail("expected object key")
	}
	start, esc, err := r.rawString()
	if err != nil {
		return nil, false, err
	}
	k = r.b[start : r.i-1]
	if r.peek() != ':' {
		if r.i >= len(r.b) {
			return nil, false, errUnexpectedEnd
		}
		return nil, false, r.fail("expected ':' after object key")
	}
	r.i++
	return k, esc, nil
}

// keyString is the decoded name of a key returned by key.
func keyString(k []byte, esc bool) string {
	if !esc {
		return string(k)
	}
	s, _ := unquoteBytes(k, true)
	return s
}

// more consumes ',' (true) or the closing byte (false).
func (r *reader) more(closing byte) (bool, error) {
	switch r.peek() {
	case ',':
		r.i++
		return true, nil
	case closing:
		r.i++
		return false, nil
	case 0:
		return false, errUnexpectedEnd
	default:
		return false, r.fail("invalid character %q after value", r.b[r.i])
	}
}

const (
	swarOnes  = 0x0101010101010101
	swarHighs = 0x8080808080808080
)

// specialMask marks, in the high bit of each byte, the bytes of x that end a run of plain string
// characters: '"', '\\' and control characters. Bits above the lowest may be false positives; only the
// lowest set bit is exact, and it is the only one used.
func specialMask(x uint64) uint64 {
	q := x ^ ('"' * swarOnes)
	bs := x ^ ('\\' * swarOnes)
	return ((q - swarOnes) &^ q & swarHighs) |
		((bs - swarOnes) &^ bs & swarHighs) |
		((x - 0x20*swarOnes) &^ x & swarHighs)
}

// rawString validates the string at r.i (which must be '"'), leaves r.i after its closing quote and
// returns the index of its first content byte and whether it contains escapes.
func (r *reader) rawString() (start int, esc bool, err error) {
	return r.rawStringFrom(r.i + 1)
}

// rawStringFrom is rawString resumed at i, a position inside the string that starts at r.i.
func (r *reader) rawStringFrom(i int) (start int, esc bool, err error) {
	b := r.b
	start = r.i + 1
	for {
		for i+8 <= len(b) {
			m := specialMask(binary.LittleEndian.Uint64(b[i:]))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
			i++
		}
		if i >= len(b) {
			r.i = i
			return 0, false, errUnexpectedEnd
		}
		switch c := b[i]; {
		case c == '"':
			r.i = i + 1
			return start, esc, nil
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				r.i = i
				return 0, false, errUnexpectedEnd
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					r.i = i
					return 0, false, errUnexpectedEnd
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						r.i = i
						return 0, false, r.fail("invalid \\u escape in string")
					}
				}
				i += 6
			default:
				r.i = i
				return 0, false, r.fail("invalid escape in string")
			}
		default:
			r.i = i
			return 0, false, r.fail("invalid control character in string")
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// validJSON reports whether b is exactly one JSON value (surrounded by optional spaces).
func validJSON(b []byte) bool {
	r := reader{b: b}
	if err := r.skip(); err != nil {
		return false
	}
	return r.end() == nil
}

// skipLoose steps over a value checking only what delimits it: string ends (escapes honoured) and
// the nesting of objects and arrays. Loading uses it for message payloads, whose strings are jumped
// over with a vectorised byte search; the payload is validated strictly when it is decoded. A torn
// line is still caught (an unterminated string or an unclosed bracket).
func (r *reader) skipLoose() error {
	b := r.b
	r.ws()
	if r.i >= len(b) {
		return errUnexpectedEnd
	}
	switch b[r.i] {
	case '"':
		return r.skipStringLoose()
	case '{', '[':
	default:
		return r.skip()
	}
	depth := 0
	i := r.i
	for i < len(b) {
		switch b[i] {
		case '"':
			r.i = i
			if err := r.skipStringLoose(); err != nil {
				return err
			}
			i = r.i
			continue
		case '{', '[':
			depth++
			if depth > maxDepth {
				r.i = i
				return r.fail("exceeded max depth")
			}
		case '}', ']':
			depth--
			if depth == 0 {
				r.i = i + 1
				return nil
			}
		}
		i++
	}
	r.i = i
	return errUnexpectedEnd
}

// skipStringLoose steps over the string at r.i by searching for an unescaped closing quote.
func (r *reader) skipStringLoose() error {
	b := r.b
	j := r.i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			r.i = len(b)
			return errUnexpectedEnd
		}
		q := j + k
		n := 0
		for p := q - 1; p > r.i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			r.i = q + 1
			return nil
		}
		j = q + 1
	}
}
