package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// orderedObject is a JSON object that keeps its keys in file order, so rewriting a settings file changes
// only the fields pi-go modified and leaves the rest (including keys pi-go does not know) as they were.
type orderedObject struct {
	keys   []string
	values map[string]json.RawMessage
}

func newOrderedObject() *orderedObject {
	return &orderedObject{values: map[string]json.RawMessage{}}
}

// parseOrderedObject reads a JSON object; anything else is an error.
func parseOrderedObject(data []byte) (*orderedObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("expected a JSON object")
	}
	obj := newOrderedObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("expected an object key, got %v", tok)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("value of %q: %w", key, err)
		}
		obj.set(key, raw)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the JSON object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("unexpected data after the JSON object")
	}
	return obj, nil
}

func (o *orderedObject) get(key string) (json.RawMessage, bool) {
	v, ok := o.values[key]
	return v, ok
}

func (o *orderedObject) set(key string, v json.RawMessage) {
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = v
}

func (o *orderedObject) delete(key string) {
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

// marshalIndent writes the object with two-space indentation, as pi writes settings.json.
func (o *orderedObject) marshalIndent() ([]byte, error) {
	var b bytes.Buffer
	if len(o.keys) == 0 {
		return []byte("{}"), nil
	}
	b.WriteString("{\n")
	for i, k := range o.keys {
		keyJSON, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.WriteString("  ")
		b.Write(keyJSON)
		b.WriteString(": ")
		var val bytes.Buffer
		if err := json.Indent(&val, o.values[k], "  ", "  "); err != nil {
			return nil, fmt.Errorf("value of %q: %w", k, err)
		}
		b.Write(val.Bytes())
		if i < len(o.keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

// toMap converts the object into a generic map for merging.
func (o *orderedObject) toMap() (map[string]any, error) {
	out := make(map[string]any, len(o.keys))
	for _, k := range o.keys {
		var v any
		if err := json.Unmarshal(o.values[k], &v); err != nil {
			return nil, fmt.Errorf("value of %q: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// marshalCompact writes the object on one line (a nested value; marshalIndent indents it when the
// file is written).
func (o *orderedObject) marshalCompact() (json.RawMessage, error) {
	data, err := o.marshalIndent()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
