package session

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/pi-go/pi-go/internal/jsonx"
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
func (r *reader) beginObject() (empty bool, err error) { return r.begin('{', '}', "object") }

// beginArray consumes '['; empty reports (and consumes) an immediate ']'.
func (r *reader) beginArray() (empty bool, err error) { return r.begin('[', ']', "array") }

func (r *reader) begin(open, closing byte, what string) (empty bool, err error) {
	if r.peek() != open {
		if r.i >= len(r.b) {
			return false, errUnexpectedEnd
		}
		return false, r.fail("expected %s", what)
	}
	r.i++
	if r.peek() == closing {
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
	s, _ := jsonx.AppendUnquoted(make([]byte, 0, len(k)), k)
	return string(s)
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

// rawString validates the string at r.i (which must be '"'), leaves r.i after its closing quote and
// returns the index of its first content byte and whether it contains escapes.
func (r *reader) rawString() (start int, esc bool, err error) {
	// Keys and short values are mostly plain ASCII: found in line.
	if end := jsonx.PlainEnd(r.b, r.i); end > 0 {
		start, r.i = r.i+1, end
		return start, false, nil
	}
	end, esc, err := jsonx.ScanString(r.b, r.i)
	if err != nil {
		return 0, false, r.stringError(err, false)
	}
	start = r.i + 1
	r.i = end
	return start, esc, nil
}

// str decodes the string value at r.i in one pass (see jsonx.Unquote), through r.scratch when it
// has escapes.
func (r *reader) str() (string, error) {
	if r.peek() != '"' {
		if r.i >= len(r.b) {
			return "", errUnexpectedEnd
		}
		return "", r.fail("expected string")
	}
	start := r.i + 1
	// Short plain values (roles, types, ids) are found in line.
	if end := jsonx.PlainEnd(r.b, r.i); end > 0 {
		r.i = end
		return string(r.b[start : end-1]), nil
	}
	out, end, err := jsonx.Unquote(r.scratch[:0], r.b, r.i)
	if err != nil {
		return "", r.stringError(err, true)
	}
	r.i = end
	if len(out) == 0 {
		return string(r.b[start : end-1]), nil
	}
	r.scratch = out
	return string(out), nil
}

// stringError is the reader's error for a malformed string, placed (r.i) at the escape at fault or
// at the offending byte. A \u escape cut by the end of the line is a bad escape to str and the end of
// the input to rawString.
func (r *reader) stringError(err error, decoding bool) error {
	e := err.(*jsonx.StringError)
	r.i = e.At
	if e.Escape >= 0 {
		r.i = e.Escape
	}
	switch {
	case e.Kind == jsonx.ErrControl:
		return r.fail("invalid control character in string")
	case e.Kind == jsonx.ErrEscape:
		return r.fail("invalid escape in string")
	case e.Escape < 0 || e.Escape+1 >= len(r.b), e.Escape+6 > len(r.b) && !decoding:
		return errUnexpectedEnd
	}
	return r.fail("invalid \\u escape in string")
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
