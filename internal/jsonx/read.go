package jsonx

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// errorKind says what is wrong with a string literal.
type errorKind uint8

const (
	// errEnd: the input ends before the closing quote (possibly inside an escape).
	errEnd errorKind = iota + 1
	// errControl: a raw control character (below U+0020), which a JSON string cannot hold.
	errControl
	// errEscape: a backslash followed by a character that starts no escape.
	errEscape
	// errHex: a \u escape with a character that is not a hex digit among its four.
	errHex
)

// A stringError says why and where a string literal is malformed. Every error the readers here return
// is one.
type stringError struct {
	Kind errorKind
	// At is the index in the input of the byte at fault: the control character, the character after
	// the backslash, the bad hex digit; the input's length for errEnd.
	At int
	// Escape is the index of the backslash that starts the escape at fault, or -1 when the fault is
	// not inside an escape.
	Escape int
}

func (e *stringError) Error() string {
	var what string
	switch e.Kind {
	case errEnd:
		return "unexpected end of JSON input"
	case errControl:
		what = "invalid control character in string"
	case errEscape:
		what = "invalid escape in string"
	default:
		what = `invalid \u escape in string`
	}
	return what + " at offset " + strconv.Itoa(e.At)
}

// plainASCII tells the bytes a string holds as they are that are ASCII: all but quote, backslash,
// control characters and bytes of 0x80 or more.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// unescapeLetter is what the one-letter escape \c stands for (\n is a newline), 0 if there is none.
var unescapeLetter = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hexValue is the value of a hex digit, -1 for any other byte.
var hexValue = func() (t [256]int8) {
	for c := range t {
		switch {
		case c >= '0' && c <= '9':
			t[c] = int8(c - '0')
		case c >= 'a' && c <= 'f':
			t[c] = int8(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			t[c] = int8(c - 'A' + 10)
		default:
			t[c] = -1
		}
	}
	return t
}()

// IsHex reports whether c is a hex digit.
func IsHex(c byte) bool { return hexValue[c] >= 0 }

// hex4 is the value of the four hex digits b begins with (those of a \u escape); false if it does not
// begin with four.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	d0, d1, d2, d3 := hexValue[b[0]], hexValue[b[1]], hexValue[b[2]], hexValue[b[3]]
	if d0|d1|d2|d3 < 0 {
		return 0, false
	}
	return rune(d0)<<12 | rune(d1)<<8 | rune(d2)<<4 | rune(d3), true
}

// quoteChar quotes a byte for a syntax error message as encoding/json does: in single quotes, an
// apostrophe escaped; a byte of 0x80 or more as the character of that number.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	return strconv.QuoteRune(rune(c))
}

// Unquote reads the JSON string literal whose opening quote is b[i] and returns the index just after
// its closing quote. A literal that stands for its own bytes (no escape, valid UTF-8) is b[i+1:end-1],
// and dst comes back as it was; any other is decoded onto dst as encoding/json decodes it: escapes
// resolved, a lone surrogate and each byte of invalid UTF-8 as U+FFFD. So dst grows exactly when the
// literal needed decoding. A malformed literal gives a *stringError and dst as it was.
//
// It reads the literal once: runs between escapes are found eight bytes at a time and copied whole,
// and UTF-8 is checked at the end, only when a byte of 0x80 or more was seen.
func Unquote(dst, b []byte, i int) ([]byte, int, error) {
	if end := plainEnd(b, i); end > 0 {
		return dst, end, nil
	}
	return unquote(dst, b, i+1)
}

// plainEnd returns the index just after the closing quote of the literal whose opening quote is b[i]
// when it is plain ASCII (so it stands for itself), found a word at a time; 0 when it is not, or when
// it ends in b's last eight bytes (Unquote and scanString tell those). It is small enough to be
// inlined, so a reader of many short literals (keys, ids) tries it before calling them.
func plainEnd(b []byte, i int) int {
	for k := i + 1; k+8 <= len(b); k += 8 {
		if m := notPlainASCII(binary.LittleEndian.Uint64(b[k:])); m != 0 {
			if k += bits.TrailingZeros64(m) >> 3; b[k] == '"' {
				return k + 1
			}
			return 0
		}
	}
	return 0
}

// unquote is Unquote for the literal whose content starts at b[start].
func unquote(dst, b []byte, start int) ([]byte, int, error) {
	out := dst
	esc := false
	var high uint64 // the OR of the bytes taken as they are, to know whether any was 0x80 or more
	for j, k := start, start; ; {
		// k moves to the end of the run of plain bytes that starts at j, a word at a time.
		for k+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[k:])
			if m := specialMask(x); m != 0 {
				n := bits.TrailingZeros64(m) >> 3
				high |= x & (1<<(uint(n)*8) - 1)
				k += n
				break
			}
			high |= x
			k += 8
		}
		for k < len(b) && b[k] != '"' && b[k] != '\\' && b[k] >= 0x20 {
			high |= uint64(b[k])
			k++
		}
		if k >= len(b) {
			return dst, 0, &stringError{Kind: errEnd, At: len(b), Escape: -1}
		}
		switch b[k] {
		case '"':
			if !esc {
				if high&swarHighs != 0 && !utf8.Valid(b[start:k]) {
					out, _ = appendUnquoted(dst, b[start:k])
				}
				return out, k + 1, nil
			}
			out = append(out, b[j:k]...)
			if high&swarHighs != 0 && !utf8.Valid(out[len(dst):]) {
				out, _ = appendUnquoted(out[:len(dst)], b[start:k])
			}
			return out, k + 1, nil
		case '\\':
			esc = true
			out = append(out, b[j:k]...)
			if k+1 < len(b) {
				if e := unescapeLetter[b[k+1]]; e != 0 {
					out = append(out, e)
					j, k = k+2, k+2
					continue
				}
			}
			var err error
			if out, j, err = appendEscape(out, b, k); err != nil {
				return dst, 0, err
			}
			k = j
		default:
			return dst, 0, &stringError{Kind: errControl, At: k, Escape: -1}
		}
	}
}

// scanString checks the JSON string literal whose opening quote is b[i], as Unquote does but without
// decoding it, and returns the index just after its closing quote and whether it holds an escape.
func scanString(b []byte, i int) (end int, esc bool, err error) {
	if end := plainEnd(b, i); end > 0 {
		return end, false, nil
	}
	for k := i + 1; ; {
		// k moves to the end of the run of plain bytes, a word at a time.
		for k+8 <= len(b) {
			if m := specialMask(binary.LittleEndian.Uint64(b[k:])); m != 0 {
				k += bits.TrailingZeros64(m) >> 3
				break
			}
			k += 8
		}
		for k < len(b) && b[k] != '"' && b[k] != '\\' && b[k] >= 0x20 {
			k++
		}
		if k >= len(b) {
			return 0, false, &stringError{Kind: errEnd, At: len(b), Escape: -1}
		}
		switch b[k] {
		case '"':
			return k + 1, esc, nil
		case '\\':
			esc = true
			if k+1 < len(b) && unescapeLetter[b[k+1]] != 0 {
				k += 2
				continue
			}
			if k, err = skipEscape(b, k); err != nil {
				return 0, false, err
			}
		default:
			return 0, false, &stringError{Kind: errControl, At: k, Escape: -1}
		}
	}
}

// skipEscape checks the escape whose backslash is b[i] and returns the index after it.
func skipEscape(b []byte, i int) (int, error) {
	if i+1 >= len(b) {
		return 0, &stringError{Kind: errEnd, At: len(b), Escape: i}
	}
	switch c := b[i+1]; {
	case unescapeLetter[c] != 0:
		return i + 2, nil
	case c != 'u':
		return 0, &stringError{Kind: errEscape, At: i + 1, Escape: i}
	}
	if _, ok := hex4(b[i+2:]); !ok {
		return 0, hexError(b, i)
	}
	return i + 6, nil
}

// hexError says what is wrong with the \u escape whose backslash is b[i], as a reader that takes its
// bytes one by one sees it: the first that is not a hex digit, or the end of the input.
func hexError(b []byte, i int) error {
	for k := i + 2; k < i+6; k++ {
		if k >= len(b) {
			break
		}
		if !IsHex(b[k]) {
			return &stringError{Kind: errHex, At: k, Escape: i}
		}
	}
	return &stringError{Kind: errEnd, At: len(b), Escape: i}
}

// appendEscape decodes the escape whose backslash is b[i] onto dst, as encoding/json does, and returns
// the index after it. A \u escape of a surrogate takes the \u escape after it when the two make a pair
// (b must hold those six bytes too, as far as the input has them); a lone surrogate is U+FFFD. A
// malformed escape gives a *stringError and dst as it was.
func appendEscape(dst, b []byte, i int) ([]byte, int, error) {
	if i+1 >= len(b) {
		return dst, 0, &stringError{Kind: errEnd, At: len(b), Escape: i}
	}
	if e := unescapeLetter[b[i+1]]; e != 0 {
		return append(dst, e), i + 2, nil
	}
	if b[i+1] != 'u' {
		return dst, 0, &stringError{Kind: errEscape, At: i + 1, Escape: i}
	}
	r, ok := hex4(b[i+2:])
	if !ok {
		return dst, 0, hexError(b, i)
	}
	i += 6
	if utf16.IsSurrogate(r) {
		if i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
			if r2, ok := hex4(b[i+2:]); ok {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return utf8.AppendRune(dst, dec), i + 6, nil
				}
			}
		}
		r = utf8.RuneError
	}
	return utf8.AppendRune(dst, r), i, nil
}

// appendUnquoted decodes body, the content of a string literal already checked (by scanString, say),
// onto dst as Unquote does. Bytes between escapes are taken as they are but for invalid UTF-8; false
// (with what was decoded so far) for a malformed escape.
func appendUnquoted(dst, body []byte) ([]byte, bool) {
	for i := 0; i < len(body); {
		j := bytes.IndexByte(body[i:], '\\')
		if j < 0 {
			j = len(body)
		} else {
			j += i
		}
		dst = appendValidUTF8(dst, body[i:j])
		if j == len(body) {
			break
		}
		var err error
		if dst, i, err = appendEscape(dst, body, j); err != nil {
			return dst, false
		}
	}
	return dst, true
}

// appendValidUTF8 appends run with each byte of invalid UTF-8 as U+FFFD.
func appendValidUTF8(dst, run []byte) []byte {
	if utf8.Valid(run) {
		return append(dst, run...)
	}
	for len(run) > 0 {
		r, size := utf8.DecodeRune(run)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, run[:size]...)
		}
		run = run[size:]
	}
	return dst
}
