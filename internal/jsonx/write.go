package jsonx

import "unicode/utf8"

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
func AppendEscaped(dst []byte, s string) []byte {
	for i := 0; ; {
		j, high := plainRunString(s, i)
		if high && !utf8.ValidString(s[i:j]) {
			dst = appendReplacingInvalid(dst, s[i:j])
		} else {
			dst = append(dst, s[i:j]...)
		}
		if j == len(s) {
			return dst
		}
		dst = append(dst, escapeText[s[j]]...)
		i = j + 1
	}
}

// appendReplacingInvalid appends run (no byte of it escaped) with its invalid UTF-8 as \ufffd.
func appendReplacingInvalid(dst []byte, run string) []byte {
	start := 0
	for i := 0; i < len(run); {
		r, size := utf8.DecodeRuneInString(run[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, run[start:i]...)
			dst = append(dst, replacementEscape...)
			start = i + 1
		}
		i += size
	}
	return append(dst, run[start:]...)
}

// QuotedLen is len(AppendString(nil, s)), counted without writing.
func QuotedLen(s string) int {
	n := 2 + len(s)
	for i := 0; ; {
		j, high := plainRunString(s, i)
		if high && !utf8.ValidString(s[i:j]) {
			for k := i; k < j; {
				r, size := utf8.DecodeRuneInString(s[k:j])
				if r == utf8.RuneError && size == 1 {
					n += len(replacementEscape) - 1
				}
				k += size
			}
		}
		if j == len(s) {
			return n
		}
		n += len(escapeText[s[j]]) - 1
		i = j + 1
	}
}
