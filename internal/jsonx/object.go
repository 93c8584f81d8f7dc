package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
)

// Object is a JSON object that keeps its members in order, each value as the raw JSON it was read or
// set as. JavaScript objects keep their keys in insertion order, and pi rewrites its files
// (settings.json, mcp.json) from them: an edit changes only the members it sets, and every other key
// stays in its place, as the user wrote it. A Go map would lose the order.
type Object struct {
	keys   []string
	values map[string]json.RawMessage
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{values: map[string]json.RawMessage{}} }

// ParseObject reads one JSON object; anything else (an array, trailing data) is an error.
func ParseObject(data []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("expected a JSON object")
	}
	obj := NewObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string) // inside an object the decoder only returns string keys
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("value of %q: %w", key, err)
		}
		obj.Set(key, raw)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("unexpected data after the JSON object")
	}
	return obj, nil
}

// IsObject reports whether raw is a JSON object (after leading space).
func IsObject(raw []byte) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}

// All yields the members in order.
func (o *Object) All() iter.Seq2[string, json.RawMessage] {
	return func(yield func(string, json.RawMessage) bool) {
		for _, k := range o.keys {
			if !yield(k, o.values[k]) {
				return
			}
		}
	}
}

// Get returns the raw value of key.
func (o *Object) Get(key string) (json.RawMessage, bool) {
	v, ok := o.values[key]
	return v, ok
}

// Has reports whether the object has key.
func (o *Object) Has(key string) bool { _, ok := o.values[key]; return ok }

// Set replaces key's value in its place, or appends key when it is new. v is kept, not copied.
func (o *Object) Set(key string, v json.RawMessage) {
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = v
}

// Delete removes key.
func (o *Object) Delete(key string) {
	if _, ok := o.values[key]; !ok {
		return
	}
	delete(o.values, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// Clone is a shallow copy: values are shared raw bytes, which are never modified in place.
func (o *Object) Clone() *Object {
	c := NewObject()
	for _, k := range o.keys {
		c.Set(k, o.values[k])
	}
	return c
}

// MarshalJSON writes the object compactly, keys in order and written as JSON.stringify writes them.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(AppendString(b.AvailableBuffer(), k))
		b.WriteByte(':')
		if err := json.Compact(&b, o.values[k]); err != nil {
			return nil, fmt.Errorf("value of %q: %w", k, err)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// MarshalIndent writes the object as JSON.stringify(value, null, indent) does (no final newline).
func (o *Object) MarshalIndent(indent string) ([]byte, error) {
	compact, err := o.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", indent); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Len is the number of members.
func (o *Object) Len() int { return len(o.keys) }
