package session

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

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
