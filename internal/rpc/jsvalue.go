package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// pi echoes parts of a command as JavaScript holds them: the id goes back as JSON.stringify writes
// the parsed value, and an unknown type is named with String(value). These helpers give the same
// bytes for any JSON value a client may send there (numbers, nested objects, odd strings).

// jsValue is a parsed JSON value with the object key order JavaScript gives it.
type jsValue struct {
	kind byte // 's' string, 'n' number, 'b' boolean, 'z' null, 'a' array, 'o' object
	str  string
	num  float64
	b    bool
	arr  []*jsValue
	keys []string
	vals map[string]*jsValue
}

func parseJSValue(raw []byte) (*jsValue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return readJSValue(dec)
}

func readJSValue(dec *json.Decoder) (*jsValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case string:
		return &jsValue{kind: 's', str: t}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, err
		}
		return &jsValue{kind: 'n', num: f}, nil // out of range: ±Inf or 0, as JavaScript rounds
	case bool:
		return &jsValue{kind: 'b', b: t}, nil
	case nil:
		return &jsValue{kind: 'z'}, nil
	case json.Delim:
		if t == '[' {
			v := &jsValue{kind: 'a'}
			for dec.More() {
				e, err := readJSValue(dec)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, e)
			}
			_, err := dec.Token()
			return v, err
		}
		v := &jsValue{kind: 'o', vals: map[string]*jsValue{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string)
			e, err := readJSValue(dec)
			if err != nil {
				return nil, err
			}
			if _, dup := v.vals[k]; !dup {
				v.keys = append(v.keys, k)
			}
			v.vals[k] = e // a repeated key keeps its first place and its last value
		}
		_, err := dec.Token()
		return v, err
	}
	return nil, errors.New("unexpected JSON token")
}

// orderedKeys is JavaScript's property order: array-index keys ascending, then the rest as inserted.
func (v *jsValue) orderedKeys() []string {
	var idx, rest []string
	for _, k := range v.keys {
		if isArrayIndex(k) {
			idx = append(idx, k)
		} else {
			rest = append(rest, k)
		}
	}
	sort.Slice(idx, func(i, j int) bool {
		a, _ := strconv.ParseUint(idx[i], 10, 32)
		b, _ := strconv.ParseUint(idx[j], 10, 32)
		return a < b
	})
	return append(idx, rest...)
}

func isArrayIndex(k string) bool {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return false
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < math.MaxUint32
}

// appendStringify appends JSON.stringify(v).
func (v *jsValue) appendStringify(dst []byte) []byte {
	switch v.kind {
	case 's':
		return jsonx.AppendString(dst, v.str)
	case 'n':
		return jsonx.AppendNumber(dst, v.num)
	case 'b':
		return strconv.AppendBool(dst, v.b)
	case 'z':
		return append(dst, "null"...)
	case 'a':
		dst = append(dst, '[')
		for i, e := range v.arr {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = e.appendStringify(dst)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i, k := range v.orderedKeys() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonx.AppendString(dst, k)
		dst = append(dst, ':')
		dst = v.vals[k].appendStringify(dst)
	}
	return append(dst, '}')
}

// String is JavaScript's String(v).
func (v *jsValue) String() string {
	switch v.kind {
	case 's':
		return v.str
	case 'n':
		return jsNumber(v.num)
	case 'b':
		return strconv.FormatBool(v.b)
	case 'z':
		return "null"
	case 'a':
		parts := make([]string, len(v.arr))
		for i, e := range v.arr {
			if e.kind != 'z' {
				parts[i] = e.String()
			}
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}

// jsNumber is Number.prototype.toString() for a double: JSON.stringify's digits for a finite number.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return string(jsonx.AppendNumber(nil, f))
}

// appendJSONUTF16 appends a JavaScript string given as UTF-16 units as JSON.stringify writes it:
// quote, backslash and control characters escaped, lone surrogates as \udxxx escapes, everything else
// as UTF-8.
func appendJSONUTF16(dst []byte, units []uint16) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		switch {
		case u == '"':
			dst = append(dst, '\\', '"')
		case u == '\\':
			dst = append(dst, '\\', '\\')
		case u == '\n':
			dst = append(dst, '\\', 'n')
		case u == '\r':
			dst = append(dst, '\\', 'r')
		case u == '\t':
			dst = append(dst, '\\', 't')
		case u == '\b':
			dst = append(dst, '\\', 'b')
		case u == '\f':
			dst = append(dst, '\\', 'f')
		case u < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[u>>4], hex[u&0xF])
		case utf16.IsSurrogate(u):
			if u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] <= 0xDFFF {
				dst = utf8.AppendRune(dst, utf16.DecodeRune(u, rune(units[i+1])))
				i++
				continue
			}
			dst = append(dst, '\\', 'u', hex[u>>12], hex[u>>8&0xF], hex[u>>4&0xF], hex[u&0xF])
		default:
			dst = utf8.AppendRune(dst, u)
		}
	}
	return append(dst, '"')
}
