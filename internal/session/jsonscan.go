package session

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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

// str decodes the string value at r.i in one pass: runs between escapes are found eight bytes at a
// time and copied whole (into r.scratch when there are escapes, then once into the string); UTF-8 is
// checked at the end only when a non-ASCII byte was seen, and only a string with invalid UTF-8 is
// decoded again rune by rune.
func (r *reader) str() (string, error) {
	if r.peek() != '"' {
		if r.i >= len(r.b) {
			return "", errUnexpectedEnd
		}
		return "", r.fail("expected string")
	}
	b := r.b
	start := r.i + 1
	i := start
	var high uint64 // OR of the bytes seen, to know whether any was non-ASCII
	out := r.scratch[:0]
	esc := false
	runStart := start
	for {
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			if m := specialMask(x); m != 0 {
				n := bits.TrailingZeros64(m) >> 3
				high |= x & (1<<(uint(n)*8) - 1)
				i += n
				break
			}
			high |= x
			i += 8
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
			high |= uint64(b[i])
			i++
		}
		if i >= len(b) {
			r.i = i
			return "", errUnexpectedEnd
		}
		c := b[i]
		if c == '"' {
			r.i = i + 1
			if !esc {
				if high&swarHighs != 0 && !utf8.Valid(b[start:i]) {
					s, _ := unquoteBytes(b[start:i], false)
					return s, nil
				}
				return string(b[start:i]), nil
			}
			out = append(out, b[runStart:i]...)
			r.scratch = out
			if high&swarHighs != 0 && !utf8.Valid(out) {
				s, _ := unquoteBytes(b[start:i], true)
				return s, nil
			}
			return string(out), nil
		}
		if c != '\\' {
			r.i = i
			return "", r.fail("invalid control character in string")
		}
		esc = true
		out = append(out, b[runStart:i]...)
		if i+1 >= len(b) {
			r.i = i
			return "", errUnexpectedEnd
		}
		switch b[i+1] {
		case '"', '\\', '/':
			out = append(out, b[i+1])
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
			rr := hex4(b[i+2:])
			if rr < 0 {
				r.i = i
				return "", r.fail("invalid \\u escape in string")
			}
			i += 6
			if utf16.IsSurrogate(rune(rr)) {
				if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
					if rr2 := hex4(b[i+2:]); rr2 >= 0 {
						if dec := utf16.DecodeRune(rune(rr), rune(rr2)); dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							i += 6
							runStart = i
							continue
						}
					}
				}
				rr = utf8.RuneError
			}
			out = utf8.AppendRune(out, rune(rr))
			runStart = i
			continue
		default:
			r.i = i
			return "", r.fail("invalid escape in string")
		}
		i += 2
		runStart = i
	}
}

// unquoteBytes decodes the content of a validated JSON string the way encoding/json does: escapes are
// resolved, a lone surrogate and every invalid UTF-8 byte become U+FFFD. ok is false only for content
// that was not validated (a truncated escape).
func unquoteBytes(s []byte, esc bool) (string, bool) {
	if !esc && utf8.Valid(s) {
		return string(s), true
	}
	var out strings.Builder // its String() does not copy the bytes again
	out.Grow(len(s))
	for i := 0; i < len(s); {
		// copy the run up to the next escape at once; only a run with invalid UTF-8 goes rune by rune
		j := bytes.IndexByte(s[i:], '\\')
		if j < 0 {
			j = len(s)
		} else {
			j += i
		}
		if run := s[i:j]; utf8.Valid(run) {
			out.Write(run)
		} else {
			for len(run) > 0 {
				rr, size := utf8.DecodeRune(run)
				if rr == utf8.RuneError && size == 1 {
					out.WriteString("\uFFFD")
				} else {
					out.Write(run[:size])
				}
				run = run[size:]
			}
		}
		i = j
		if i >= len(s) {
			break
		}
		if i+1 >= len(s) {
			return out.String(), false
		}
		switch s[i+1] {
		case '"', '\\', '/':
			out.WriteByte(s[i+1])
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			rr := hex4(s[i+2:])
			if rr < 0 {
				return out.String(), false
			}
			i += 6
			if utf16.IsSurrogate(rune(rr)) {
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if rr2 := hex4(s[i+2:]); rr2 >= 0 {
						if dec := utf16.DecodeRune(rune(rr), rune(rr2)); dec != utf8.RuneError {
							out.WriteRune(dec)
							i += 6
							continue
						}
					}
				}
				rr = utf8.RuneError
			}
			out.WriteRune(rune(rr))
			continue
		default:
			return out.String(), false
		}
		i += 2
	}
	return out.String(), true
}

func hex4(s []byte) int {
	if len(s) < 4 {
		return -1
	}
	v := 0
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		v = v<<4 | int(c)
	}
	return v
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
