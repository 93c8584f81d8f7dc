package jsonx

import (
	"math/bits"
	"unicode/utf8"
)

// escapeText is what JSON.stringify writes for each ASCII byte it escapes ("" for one written as it is).
var escapeText = func() (t [utf8.RuneSelf]string) {
	const hex = "0123456789abcdef"
	for c := 0; c < 0x20; c++ {
		t[c] = `\u00` + string(hex[c>>4]) + string(hex[c&0xF])
	}
	t['\n'], t['\r'], t['\t'], t['\b'], t['\f'] = `\n`, `\r`, `\t`, `\b`, `\f`
	t['"'], t['\\'] = `\"`, `\\`
	return t
}()

// replacementEscape is what a byte of invalid UTF-8 becomes.
const replacementEscape = `\ufffd`

// AppendString appends s to dst as a JSON string, the way JavaScript's JSON.stringify writes it: quote,
// backslash and control characters escaped (\n \r \t \b \f, the others as \u00xx), everything else as
// it is (no HTML escaping, U+2028 and U+2029 as characters), and each byte of invalid UTF-8 as \ufffd.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = AppendEscaped(dst, s)
	return append(dst, '"')
}

// AppendEscaped appends the body of AppendString's string, without the quotes. Escaping s in pieces
// cut at the start of a UTF-8 sequence gives the same bytes as escaping it whole.
//
// It reads s once: plain ASCII eight bytes at a time, other characters one by one; what stays as it
// is is copied in runs.
func AppendEscaped(dst []byte, s string) []byte {
	start := 0 // s[start:i] is still to be copied as it is
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			m := notPlainASCII(load64(s, i))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else if plainASCII[s[i]] {
			i++
			continue
		}
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			dst = append(dst, escapeText[c]...)
			i++
			start = i
			continue
		}
		// Characters beyond ASCII, one by one while they follow each other.
		for i < len(s) && s[i] >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, replacementEscape...)
				start = i + 1
			}
			i += size
		}
	}
	return append(dst, s[start:]...)
}

// QuotedLen is len(AppendString(nil, s)), counted without writing: the escaped bytes of each word of
// s are counted at once, and UTF-8 is checked in one call when s has a byte of 0x80 or more.
func QuotedLen(s string) int {
	n := 2 + len(s)
	var high uint64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := load64(s, i)
		high |= x
		ctl := controlBytes(x)
		if esc := equalBytes(x, '"') | equalBytes(x, '\\') | ctl; esc != 0 {
			n += bits.OnesCount64(esc) // one more byte each: \" \\ \n …
			if ctl != 0 {
				short := equalBytes(x, '\n') | equalBytes(x, '\r') | equalBytes(x, '\t') | equalBytes(x, '\b') | equalBytes(x, '\f')
				n += 4 * bits.OnesCount64(ctl&^short) // \u00xx: four more
			}
		}
	}
	for ; i < len(s); i++ {
		c := s[i]
		high |= uint64(c)
		if c < utf8.RuneSelf && escapeText[c] != "" {
			n += len(escapeText[c]) - 1
		}
	}
	if high&swarHighs != 0 && !utf8.ValidString(s) {
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				n += len(replacementEscape) - 1
			}
			i += size
		}
	}
	return n
}
