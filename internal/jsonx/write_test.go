package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// stringifyRef is JSON.stringify's string form written the obvious way, one character at a time.
func stringifyRef(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// encodingJSON is encoding/json's form with JavaScript's differences undone: no HTML escaping, and
// U+2028/U+2029 as characters.
func encodingJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	// encoding/json escapes only these two characters beyond JSON.stringify; an escaped backslash
	// before "u2028" is written as \\u2028, which the replacement below must not touch.
	var r strings.Builder
	for i := 0; i < len(out); i++ {
		if out[i] == '\\' && i+5 < len(out) && out[i+1:i+5] == "u202" && (out[i+5] == '8' || out[i+5] == '9') {
			r.WriteString(map[byte]string{'8': "\u2028", '9': "\u2029"}[out[i+5]])
			i += 5
			continue
		}
		if out[i] == '\\' {
			r.WriteByte(out[i])
			i++
		}
		r.WriteByte(out[i])
	}
	return r.String()
}

var awkward = []string{
	"", "a", "plain ASCII text that is longer than eight bytes",
	"\"quoted\" and back\\slash", "line\nbreak\r\n\ttab\bbs\fff", "\x00\x01\x1f\x7f",
	"café naïve 日本 → ✓ 😀", "\u2028\u2029", "<script>&amp;</script>",
	"\xff", "a\xffb", "\xe2\x82", "\xe2\x82\xac", "\xed\xa0\x80", "\xf0\x9f\x98", "12345678\xff12345678",
	"0123456\"", "01234567\\", "\xef\xbf\xbd", strings.Repeat("x\n", 40) + "\xc3",
}

func checkAppendString(t *testing.T, s string) {
	t.Helper()
	want := stringifyRef(s)
	if got := AppendString(nil, s); string(got) != want {
		t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
	}
	if got := encodingJSON(s); got != want {
		t.Fatalf("reference %s and encoding/json %s disagree on %q", want, got, s)
	}
	if got := AppendString([]byte("prefix"), s); string(got) != "prefix"+want {
		t.Fatalf("AppendString onto a prefix: %s", got)
	}
	if n := QuotedLen(s); n != len(want) {
		t.Fatalf("QuotedLen(%q) = %d, want %d", s, n, len(want))
	}
	// Escaping in pieces cut where a UTF-8 sequence starts gives the same bytes.
	var pieces []byte
	start := 0
	for i := 1; i <= len(s); i++ {
		if i == len(s) || (utf8.RuneStart(s[i]) && i%3 == 0) {
			pieces = AppendEscaped(pieces, s[start:i])
			start = i
		}
	}
	if string(pieces) != want[1:len(want)-1] {
		t.Fatalf("escaped in pieces: %s, want %s", pieces, want)
	}
}

func TestAppendStringIsJSONStringify(t *testing.T) {
	for _, s := range awkward {
		checkAppendString(t, s)
	}
	for c := 0; c < 256; c++ {
		checkAppendString(t, string([]byte{byte(c)}))
		checkAppendString(t, strings.Repeat("ab", 5)+string([]byte{byte(c)})+"cd")
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Fuzz(checkAppendString)
}
