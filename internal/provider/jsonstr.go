package provider

import (
	"bytes"
	"encoding/json"
	"sort"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// writeJSONString writes s as a JSON string the way JavaScript's JSON.stringify does: only quote,
// backslash and control characters are escaped (no HTML escaping, U+2028/U+2029 left as they are);
// invalid UTF-8 becomes U+FFFD.
func writeJSONString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(s[start:i])
			b.WriteString(`\ufffd`)
			i++
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// AppendJSONString appends s to dst as JSON.stringify would write it.
func AppendJSONString(dst []byte, s string) []byte {
	b := bytes.NewBuffer(dst)
	writeJSONString(b, s)
	return b.Bytes()
}

// writeExtra appends unknown fields (kept from a parsed file) in a stable order.
func writeExtra(b *bytes.Buffer, extra map[string]json.RawMessage) error {
	if len(extra) == 0 {
		return nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteByte(',')
		writeJSONString(b, k)
		b.WriteByte(':')
		if err := json.Compact(b, extra[k]); err != nil {
			return err
		}
	}
	return nil
}

// writeValue appends any value with MarshalJS semantics.
func writeValue(b *bytes.Buffer, v any) error {
	data, err := MarshalJS(v)
	if err != nil {
		return err
	}
	b.Write(data)
	return nil
}

// MarshalJS encodes v as compact JSON the way JavaScript's JSON.stringify does: no HTML escaping and
// U+2028/U+2029 written as characters, not escapes. Every JSON line pi-go writes (session files, JSON
// and RPC modes) goes through it so the bytes match what pi writes.
func MarshalJS(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := b.Bytes()
	out = out[:len(out)-1] // Encode's newline
	return unescapeLineSeparators(out), nil
}

// unescapeLineSeparators turns the \u2028 and \u2029 escapes that encoding/json always writes back into
// the characters. A backslash that is itself escaped (\\u2028 is the text "\u2028") is left alone.
func unescapeLineSeparators(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u202`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		if b[i+1] == 'u' && i+5 < len(b) && b[i+2] == '2' && b[i+3] == '0' && b[i+4] == '2' &&
			(b[i+5] == '8' || b[i+5] == '9') {
			if b[i+5] == '8' {
				out = append(out, "\u2028"...)
			} else {
				out = append(out, "\u2029"...)
			}
			i += 5
			continue
		}
		// Any other escape: copy both bytes so an escaped backslash is never read as a new escape.
		out = append(out, c, b[i+1])
		i++
	}
	return out
}
