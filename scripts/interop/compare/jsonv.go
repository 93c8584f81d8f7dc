package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Obj is a JSON object that keeps its key order, so the checks can report order differences (a model
// sees tool schemas as text, and pi's session lines are compared byte for byte).
type Obj struct {
	Keys []string
	M    map[string]any
}

// Get returns the value of key (nil when absent).
func (o *Obj) Get(key string) any {
	if o == nil {
		return nil
	}
	return o.M[key]
}

// Str returns the string value of key ("" when absent or not a string).
func (o *Obj) Str(key string) string {
	s, _ := o.Get(key).(string)
	return s
}

// Set replaces or appends key.
func (o *Obj) Set(key string, v any) {
	if _, ok := o.M[key]; !ok {
		o.Keys = append(o.Keys, key)
	}
	o.M[key] = v
}

// Delete removes key.
func (o *Obj) Delete(key string) {
	if _, ok := o.M[key]; !ok {
		return
	}
	delete(o.M, key)
	for i, k := range o.Keys {
		if k == key {
			o.Keys = append(o.Keys[:i:i], o.Keys[i+1:]...)
			break
		}
	}
}

// parseJSON decodes one JSON value keeping object key order; numbers stay json.Number.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &Obj{M: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// parseLines decodes JSONL; blank lines are skipped, bad lines are errors naming the line.
func parseLines(data []byte) ([]*Obj, error) {
	var out []*Obj
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		v, err := parseJSON([]byte(line))
		if err != nil {
			return out, fmt.Errorf("line %d: %w", i+1, err)
		}
		o, ok := v.(*Obj)
		if !ok {
			return out, fmt.Errorf("line %d: not an object", i+1)
		}
		out = append(out, o)
	}
	return out, nil
}

// clone deep-copies a parsed value.
func clone(v any) any {
	switch t := v.(type) {
	case *Obj:
		c := &Obj{Keys: append([]string(nil), t.Keys...), M: make(map[string]any, len(t.M))}
		for k, x := range t.M {
			c.M[k] = clone(x)
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, x := range t {
			c[i] = clone(x)
		}
		return c
	default:
		return v
	}
}

// render writes v as compact JSON in its key order, for reports.
func render(v any) string {
	var b strings.Builder
	write(&b, v)
	return b.String()
}

func write(b *strings.Builder, v any) {
	switch t := v.(type) {
	case *Obj:
		b.WriteByte('{')
		for i, k := range t.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			write(b, t.M[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, x := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			write(b, x)
		}
		b.WriteByte(']')
	case nil:
		b.WriteString("null")
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(t)
		b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
}
