package toolargs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// JSON values as JavaScript sees them: tool arguments are decoded into generic values (numbers as
// json.Number), coerced and validated, and written back as JSON.stringify would write them, keeping
// the key order the model used.

// keyOrder records, for the JSON pointer of every object, its keys in source order.
type keyOrder map[string][]string

// decodeOrdered decodes one JSON value; duplicate keys keep the last value at the first position, as
// JSON.parse does.
func decodeOrdered(data []byte) (any, keyOrder, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	order := keyOrder{}
	v, err := decodeValue(dec, "", order)
	if err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("unexpected data after the JSON value")
	}
	return v, order, nil
}

func decodeValue(dec *json.Decoder, ptr string, order keyOrder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	switch delim {
	case '{':
		obj := map[string]any{}
		var keys []string
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key := kt.(string)
			v, err := decodeValue(dec, ptr+"/"+escapePointer(key), order)
			if err != nil {
				return nil, err
			}
			if _, dup := obj[key]; !dup {
				keys = append(keys, key)
			}
			obj[key] = v
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		order[ptr] = keys
		return obj, nil
	case '[':
		arr := []any{}
		for i := 0; dec.More(); i++ {
			v, err := decodeValue(dec, ptr+"/"+strconv.Itoa(i), order)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return arr, nil
	}
	return nil, fmt.Errorf("unexpected %v", delim)
}

// escapePointer escapes one JSON-pointer token (RFC 6901).
func escapePointer(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// encodeJS writes v as JSON.stringify(v, null, indent) would: objects in their recorded key order,
// numbers in JavaScript's shortest form. An empty indent writes compact JSON.
func encodeJS(b *bytes.Buffer, v any, order keyOrder, ptr, indent string, depth int) {
	newline := func(d int) {
		if indent != "" {
			b.WriteByte('\n')
			for range d {
				b.WriteString(indent)
			}
		}
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		b.Write(jsonx.AppendString(b.AvailableBuffer(), x))
	case json.Number:
		b.WriteString(jsNumberString(numberValue(x)))
	case float64:
		b.WriteString(jsNumberString(x))
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			encodeJS(b, e, order, ptr+"/"+strconv.Itoa(i), indent, depth+1)
		}
		newline(depth)
		b.WriteByte(']')
	case map[string]any:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range objectKeys(x, order[ptr]) {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			b.Write(jsonx.AppendString(b.AvailableBuffer(), k))
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			encodeJS(b, x[k], order, ptr+"/"+escapePointer(k), indent, depth+1)
		}
		newline(depth)
		b.WriteByte('}')
	default:
		// Neither decodeOrdered nor coercion produces other types; encode one the ordinary way (without
		// HTML escapes, as JavaScript) rather than lose it.
		// (A buffer of its own: handing b to the encoder would move every caller's b to the heap.)
		var data bytes.Buffer
		enc := json.NewEncoder(&data)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(x); err != nil {
			b.WriteString("null")
			return
		}
		b.Write(bytes.TrimSuffix(data.Bytes(), []byte("\n")))
	}
}

// objectKeys lists obj's keys in recorded order; keys without a record follow, sorted.
func objectKeys(obj map[string]any, recorded []string) []string {
	keys := make([]string, 0, len(obj))
	for _, k := range recorded {
		if _, ok := obj[k]; ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == len(obj) {
		return keys
	}
	var rest []string
	for k := range obj {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

// numberValue is the float64 JavaScript would hold for a JSON number (±Inf when out of range).
func numberValue(n json.Number) float64 {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN()
	}
	return f
}

// jsNumberString formats f as JSON.stringify does (non-finite numbers become null).
func jsNumberString(f float64) string {
	var buf [32]byte
	return string(jsonx.AppendNumber(buf[:0], f))
}
