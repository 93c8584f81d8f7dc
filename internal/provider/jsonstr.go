package provider

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// writeJSONString writes s as a JSON string the way JavaScript's JSON.stringify does (see
// jsonx.AppendString). b grows at most once, to the exact size, unless it has room for the longest
// escaping (six bytes a byte).
func writeJSONString(b *bytes.Buffer, s string) {
	if b.Available() < 6*len(s)+2 {
		b.Grow(jsonx.QuotedLen(s))
	}
	b.Write(jsonx.AppendString(b.AvailableBuffer(), s))
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
