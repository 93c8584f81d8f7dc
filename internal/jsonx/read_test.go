package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

var literals = []string{
	`""`, `"plain"`, `"a longer plain literal, past eight bytes"`, `"\"\\\/\b\f\n\r\t"`,
	`"\u0041\u00e9\u20ac\ud83d\ude00"`, `"\ud800"`, `"\udc00\ud800x"`, `"\ud800\u0041"`, `"\ud800\ud800\udc00"`,
	"\"caf\xc3\xa9 \xff \xef\xbf\xbd\"", "\"\xed\xa0\x80\"", "\"x\\n\xff\"", `"trailing" ,1`,
	`"\x"`, "\"a\x01b\"", "\"0123456789\x1f\"", `"\u12z4"`, `"\uzz"`, `"abc`, `"\`, `"\u12`, `"\ud800\u12`,
	"\"\\\xc3\xa9\"", `"\ud800\uzzzz"`, `"` + strings.Repeat(`a\n`, 30) + `"`,
}

// jsonMessage is the text encoding/json gives for the fault e describes in lit.
func jsonMessage(lit []byte, e *stringError) string {
	switch e.Kind {
	case errEnd:
		return "unexpected end of JSON input"
	case errControl:
		return "invalid character " + quoteChar(lit[e.At]) + " in string literal"
	case errEscape:
		return "invalid character " + quoteChar(lit[e.At]) + " in string escape code"
	}
	return "invalid character " + quoteChar(lit[e.At]) + ` in \u hexadecimal character escape`
}

func checkUnquote(t *testing.T, lit []byte) {
	t.Helper()
	prefix := []byte("arena")
	out, end, err := Unquote(prefix, lit, 0)
	send, esc, serr := scanString(lit, 0)
	if pe := plainEnd(lit, 0); pe != 0 && (err != nil || pe != end || !bytes.Equal(out, prefix)) {
		t.Fatalf("%q: plainEnd says %d, Unquote %d (%v), decoded %q", lit, pe, end, err, out)
	}
	if (err == nil) != (serr == nil) || (err == nil && send != end) {
		t.Fatalf("%q: Unquote ends at %d (%v), scanString at %d (%v)", lit, end, err, send, serr)
	}
	if err != nil {
		var se *stringError
		if !errors.As(err, &se) || !bytes.Equal(out, prefix) {
			t.Fatalf("%q: error %v, dst %q", lit, err, out)
		}
		if serr.Error() != err.Error() {
			t.Fatalf("%q: Unquote says %v, scanString %v", lit, err, serr)
		}
		var v string
		jerr := json.Unmarshal(lit, &v)
		var syn *json.SyntaxError
		if !errors.As(jerr, &syn) {
			t.Fatalf("%q: encoding/json accepts it (%v), Unquote: %v", lit, jerr, err)
		}
		// encoding/json feeds a space at the end of the input, so a cut escape reads as a bad ' '.
		if want := jsonMessage(lit, se); syn.Error() != want && !(se.Kind == errEnd && strings.Contains(syn.Error(), "' '")) {
			t.Fatalf("%q: %q, encoding/json says %q", lit, want, syn.Error())
		}
		if se.Kind != errEnd && syn.Offset != int64(se.At+1) {
			t.Fatalf("%q: fault at %d, encoding/json at offset %d", lit, se.At, syn.Offset)
		}
		if se.Kind != errControl && se.Kind != errEnd && lit[se.Escape] != '\\' {
			t.Fatalf("%q: escape at %d is no backslash", lit, se.Escape)
		}
		return
	}
	var want string
	if jerr := json.Unmarshal(lit[:end], &want); jerr != nil {
		t.Fatalf("%q: Unquote accepts %q, encoding/json: %v", lit, lit[:end], jerr)
	}
	got := string(lit[1 : end-1])
	if len(out) > len(prefix) {
		got = string(out[len(prefix):])
	} else if !bytes.Equal(out, prefix) {
		t.Fatalf("%q: dst changed to %q", lit, out)
	}
	if got != want {
		t.Fatalf("%q: Unquote = %q, encoding/json = %q", lit, got, want)
	}
	if esc != bytes.Contains(lit[:end], []byte{'\\'}) {
		t.Fatalf("%q: scanString says escape %v", lit, esc)
	}
	if dec, ok := appendUnquoted(nil, lit[1:end-1]); !ok || string(dec) != want {
		t.Fatalf("%q: appendUnquoted = %q, %v; want %q", lit, dec, ok, want)
	}
}

func TestUnquoteIsEncodingJSON(t *testing.T) {
	for _, s := range literals {
		checkUnquote(t, []byte(s))
	}
}

func FuzzUnquote(f *testing.F) {
	for _, s := range literals {
		f.Add([]byte(s[1:]))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkUnquote(t, append([]byte{'"'}, body...))
	})
}

func TestPlainEndFindsPlainLiterals(t *testing.T) {
	for _, s := range []string{`""`, `"a"`, `"content"`, `"chat.completion.chunk"`, `"0123456789abcdef01"`, "\"DEL \x7f is plain\""} {
		lit := []byte(s + `,"next":"value"}`)
		if got := plainEnd(lit, 0); got != len(s) {
			t.Errorf("plainEnd(%s) = %d, want %d", lit, got, len(s))
		}
	}
	for _, s := range []string{`"a\nb",          `, "\"caf\xc3\xa9\",          ", "\"a\x01b\",          "} {
		if got := plainEnd([]byte(s), 0); got != 0 {
			t.Errorf("plainEnd(%q) = %d, want 0", s, got)
		}
	}
}

func TestStringErrorPlaces(t *testing.T) {
	for _, c := range []struct {
		lit    string
		want   stringError
		escape bool
	}{
		{`"abc`, stringError{errEnd, 4, -1}, false},
		{`"ab\`, stringError{errEnd, 4, 3}, true},
		{`"ab\u12`, stringError{errEnd, 7, 3}, true},
		{`"ab\u1z`, stringError{errHex, 6, 3}, true},
		{`"ab\q"`, stringError{errEscape, 4, 3}, true},
		{"\"ab\ncd\"", stringError{errControl, 3, -1}, false},
	} {
		_, _, err := Unquote(nil, []byte(c.lit), 0)
		var se *stringError
		if !errors.As(err, &se) || *se != c.want {
			t.Errorf("%q: %#v, want %#v", c.lit, err, c.want)
		}
		if c.escape {
			_, _, err := appendEscape(nil, []byte(c.lit), c.want.Escape)
			if !errors.As(err, &se) || *se != c.want {
				t.Errorf("appendEscape on %q: %#v, want %#v", c.lit, err, c.want)
			}
		}
	}
}

func TestAppendUnquotedRefusesBadEscapes(t *testing.T) {
	for _, body := range []string{`\`, `\x`, `\u12`, `\u12g4`, `ok\`} {
		if _, ok := appendUnquoted(nil, []byte(body)); ok {
			t.Errorf("appendUnquoted(%q) accepted it", body)
		}
	}
}

func TestHex4(t *testing.T) {
	for in, want := range map[string]rune{"0000": 0, "00e9": 0xe9, "00E9": 0xe9, "FFFF": 0xffff, "d83dX": 0xd83d} {
		if r, ok := hex4([]byte(in)); !ok || r != want {
			t.Errorf("hex4(%q) = %x, %v", in, r, ok)
		}
	}
	for _, in := range []string{"", "123", "12g4", "-123", " 123"} {
		if _, ok := hex4([]byte(in)); ok {
			t.Errorf("hex4(%q) accepted it", in)
		}
	}
}

func TestByteTables(t *testing.T) {
	for i := 0; i < 256; i++ {
		c := byte(i)
		if want := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; plainASCII[c] != want {
			t.Errorf("plainASCII[%#x] = %v", c, !want)
		}
		var s string
		err := json.Unmarshal([]byte{'"', '\\', c, '"'}, &s)
		if got := unescapeLetter[c]; (err == nil) != (got != 0) || (err == nil && s != string(got)) {
			t.Errorf("unescapeLetter[%q] = %q, encoding/json: %q, %v", c, got, s, err)
		}
		if want := strings.IndexByte("0123456789abcdefABCDEF", c) >= 0; IsHex(c) != want {
			t.Errorf("IsHex(%q) = %v", c, !want)
		}
	}
}
