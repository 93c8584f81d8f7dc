// Package strictschema is pi-ai's constrained sampling (constrained-sampling.js): a tool that prefers
// JSON-schema constrained sampling is declared with a strict schema — every property required, the
// optional ones made nullable, no additional properties — and a schema strict mode cannot express
// keeps its own. Every API package that offers strict tools (Anthropic, Gemini) uses it. It works on
// Node, a JSON value that keeps its members in order, because the strict schema and the required
// list keep the order of the schema's properties, as pi's do.
package strictschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// Node is a JSON value that keeps its object members in order, so a schema is written with its keys
// where pi's JSON.stringify puts them.
type Node struct {
	raw  json.RawMessage // scalars and arrays of scalars: the value as written
	keys []string        // objects
	vals []*Node
	arr  []*Node // arrays
	kind byte    // 'o' object, 'a' array, 's' scalar
}

// Parse reads one JSON value; numbers keep their text.
func Parse(data []byte) (*Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := decode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the schema")
	}
	return n, nil
}

func decode(dec *json.Decoder) (*Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &Node{kind: 'o'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decode(dec)
				if err != nil {
					return nil, err
				}
				n.Set(kt.(string), v)
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &Node{kind: 'a', arr: []*Node{}}
			for dec.More() {
				v, err := decode(dec)
				if err != nil {
					return nil, err
				}
				n.arr = append(n.arr, v)
			}
			_, err := dec.Token()
			return n, err
		}
	}
	b, err := json.Marshal(tok)
	if err != nil {
		return nil, err
	}
	return &Node{kind: 's', raw: b}, nil
}

// Object is an empty object.
func Object() *Node { return &Node{kind: 'o'} }

// Value is the scalar (or any value encoding/json writes, taken as written) v.
func Value(v any) *Node {
	b, _ := json.Marshal(v)
	return &Node{kind: 's', raw: b}
}

// Get returns the member k of an object, or nil.
func (n *Node) Get(k string) *Node {
	if n == nil || n.kind != 'o' {
		return nil
	}
	for i, key := range n.keys {
		if key == k {
			return n.vals[i]
		}
	}
	return nil
}

// Set replaces member k in place, or appends it (JavaScript's assignment order).
func (n *Node) Set(k string, v *Node) {
	for i, key := range n.keys {
		if key == k {
			n.vals[i] = v
			return
		}
	}
	n.keys = append(n.keys, k)
	n.vals = append(n.vals, v)
}

// Str is the string value of a string scalar.
func (n *Node) Str() (string, bool) {
	if n == nil || n.kind != 's' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(n.raw, &s) == nil
}

func (n *Node) isNull() bool { return n != nil && n.kind == 's' && string(n.raw) == "null" }

// Clone is a deep copy.
func (n *Node) Clone() *Node {
	if n == nil {
		return nil
	}
	c := &Node{kind: n.kind, raw: n.raw}
	for i, k := range n.keys {
		c.keys = append(c.keys, k)
		c.vals = append(c.vals, n.vals[i].Clone())
	}
	if n.kind == 'a' {
		c.arr = make([]*Node, len(n.arr))
		for i, v := range n.arr {
			c.arr[i] = v.Clone()
		}
	}
	return c
}

// AppendJSON writes the value compactly, in member order, without HTML escaping.
func (n *Node) AppendJSON(b []byte) []byte {
	switch n.kind {
	case 'o':
		b = append(b, '{')
		for i, k := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonx.AppendString(b, k)
			b = append(b, ':')
			b = n.vals[i].AppendJSON(b)
		}
		return append(b, '}')
	case 'a':
		b = append(b, '[')
		for i, v := range n.arr {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.AppendJSON(b)
		}
		return append(b, ']')
	}
	return append(b, n.raw...)
}

// MarshalJSON writes the value as AppendJSON does.
func (n *Node) MarshalJSON() ([]byte, error) { return n.AppendJSON(nil), nil }

// ErrUnsupported: the schema uses what strict mode cannot express (pi's
// UnsupportedStrictJsonSchemaError); a "prefer" tool is then sent without strict.
var ErrUnsupported = errors.New("schema not supported in strict mode")

// unsupportedKeys are the keywords strict sampling cannot express (pi's UNSUPPORTED_STRICT_SCHEMA_KEYS).
var unsupportedKeys = []string{"$ref", "$defs", "definitions", "allOf", "oneOf", "patternProperties",
	"dependentSchemas", "dependencies", "unevaluatedProperties", "propertyNames", "contains", "prefixItems",
	"not", "if", "then", "else"}

// Make converts a tool's parameters to the strict subset (pi's makeStrictJsonSchema); schema is not
// changed. unsupported, when not nil, rejects further keywords a provider's strict mode does not
// accept (pi's isUnsupportedKeyword).
func Make(schema *Node, unsupported func(key string, v *Node) bool) (*Node, error) {
	c := schema.Clone()
	if c == nil || c.kind != 'o' {
		return nil, ErrUnsupported
	}
	if err := makeNodeStrict(c, unsupported); err != nil {
		return nil, err
	}
	if t, _ := c.Get("type").Str(); t != "object" {
		return nil, ErrUnsupported
	}
	return c, nil
}

func isStructured(n *Node) bool {
	if n == nil || n.kind != 'o' {
		return false
	}
	var types []string
	if t := n.Get("type"); t != nil {
		if s, ok := t.Str(); ok {
			types = []string{s}
		} else if t.kind == 'a' {
			for _, e := range t.arr {
				s, _ := e.Str()
				types = append(types, s)
			}
		}
	}
	for _, t := range types {
		if t == "object" || t == "array" {
			return true
		}
	}
	return n.Get("properties") != nil || n.Get("items") != nil
}

func allowsNull(n *Node) bool {
	if n == nil || n.kind != 'o' {
		return false
	}
	if t := n.Get("type"); t != nil {
		if s, _ := t.Str(); s == "null" {
			return true
		}
		if t.kind == 'a' {
			for _, e := range t.arr {
				if s, _ := e.Str(); s == "null" {
					return true
				}
			}
		}
	}
	if n.Get("const").isNull() {
		return true
	}
	if e := n.Get("enum"); e != nil && e.kind == 'a' {
		for _, v := range e.arr {
			if v.isNull() {
				return true
			}
		}
	}
	if a := n.Get("anyOf"); a != nil && a.kind == 'a' {
		for _, v := range a.arr {
			if allowsNull(v) {
				return true
			}
		}
	}
	return false
}

func makeNodeStrict(n *Node, unsupported func(string, *Node) bool) error {
	if n == nil || n.kind != 'o' {
		return fmt.Errorf("%w: boolean schemas", ErrUnsupported)
	}
	for _, k := range unsupportedKeys {
		if n.Get(k) != nil {
			return fmt.Errorf("%w: %s", ErrUnsupported, k)
		}
	}
	for i, k := range n.keys {
		if unsupported != nil && unsupported(k, n.vals[i]) {
			return fmt.Errorf("%w: %s", ErrUnsupported, k)
		}
	}
	if n.Get("type") == nil && n.Get("anyOf") == nil && n.Get("enum") == nil {
		return fmt.Errorf("%w: no type", ErrUnsupported)
	}
	if a := n.Get("anyOf"); a != nil {
		if a.kind != 'a' || len(a.arr) == 0 {
			return fmt.Errorf("%w: empty anyOf", ErrUnsupported)
		}
		for _, v := range a.arr {
			if isStructured(v) {
				return fmt.Errorf("%w: object and array unions", ErrUnsupported)
			}
			if err := makeNodeStrict(v, unsupported); err != nil {
				return err
			}
		}
	}
	if it := n.Get("items"); it != nil {
		if it.kind == 'a' {
			return fmt.Errorf("%w: tuples", ErrUnsupported)
		}
		if err := makeNodeStrict(it, unsupported); err != nil {
			return err
		}
	}
	isObject := false
	if t, _ := n.Get("type").Str(); t == "object" {
		isObject = true
	}
	if n.Get("properties") != nil && !isObject {
		return fmt.Errorf("%w: properties without type object", ErrUnsupported)
	}
	if !isObject {
		return nil
	}
	if ap := n.Get("additionalProperties"); ap != nil && string(ap.raw) != "false" {
		return fmt.Errorf("%w: additionalProperties", ErrUnsupported)
	}
	props := n.Get("properties")
	if props != nil && props.kind != 'o' {
		return fmt.Errorf("%w: properties", ErrUnsupported)
	}
	required := map[string]bool{}
	if r := n.Get("required"); r != nil {
		if r.kind != 'a' {
			return fmt.Errorf("%w: required", ErrUnsupported)
		}
		for _, e := range r.arr {
			s, ok := e.Str()
			if !ok {
				return fmt.Errorf("%w: required", ErrUnsupported)
			}
			required[s] = true
		}
	}
	if props == nil {
		props = &Node{kind: 'o'}
	}
	for k := range required {
		if props.Get(k) == nil {
			return fmt.Errorf("%w: required names an unknown property", ErrUnsupported)
		}
	}
	names := &Node{kind: 'a', arr: []*Node{}}
	for i, k := range props.keys {
		if err := makeNodeStrict(props.vals[i], unsupported); err != nil {
			return err
		}
		if !required[k] && !allowsNull(props.vals[i]) {
			props.vals[i] = &Node{kind: 'o', keys: []string{"anyOf"},
				vals: []*Node{{kind: 'a', arr: []*Node{props.vals[i], Value(map[string]string{"type": "null"})}}}}
		}
		names.arr = append(names.arr, Value(k))
	}
	n.Set("required", names)
	n.Set("additionalProperties", Value(false))
	return nil
}

// Wanted reads a tool's constrainedSampling: wanted when it asks for JSON-schema constrained sampling
// (pi's resolveJsonSchemaStrictSampling tries strict for any such tool, whatever its "strict"),
// required when it cannot do without ("strict":"require").
func Wanted(constrained json.RawMessage) (wanted, required bool) {
	if len(constrained) == 0 {
		return false, false
	}
	var c struct {
		Type   string `json:"type"`
		Strict any    `json:"strict"`
	}
	if json.Unmarshal(constrained, &c) != nil || c.Type != "json_schema" {
		return false, false
	}
	return true, c.Strict == "require"
}

// Raw is the text of a scalar as written ("" for objects and arrays).
func (n *Node) Raw() string {
	if n == nil || n.kind != 's' {
		return ""
	}
	return string(n.raw)
}
