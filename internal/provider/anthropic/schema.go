package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// node is a JSON value that keeps its object keys in order, so a tool's schema is sent with the keys
// where pi's JSON.stringify puts them.
type node struct {
	raw  json.RawMessage // scalars and arrays of scalars: the value as written
	keys []string        // objects
	vals []*node
	arr  []*node // arrays
	kind byte    // 'o' object, 'a' array, 's' scalar
}

func parseNode(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := decodeNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the schema")
	}
	return n, nil
}

func decodeNode(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: 'o'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeNode(dec)
				if err != nil {
					return nil, err
				}
				n.set(kt.(string), v)
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &node{kind: 'a', arr: []*node{}}
			for dec.More() {
				v, err := decodeNode(dec)
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
	return &node{kind: 's', raw: b}, nil
}

func scalar(v any) *node {
	b, _ := json.Marshal(v)
	return &node{kind: 's', raw: b}
}

// get returns the member k of an object, or nil.
func (n *node) get(k string) *node {
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

// set replaces member k in place, or appends it (JavaScript's assignment order).
func (n *node) set(k string, v *node) {
	for i, key := range n.keys {
		if key == k {
			n.vals[i] = v
			return
		}
	}
	n.keys = append(n.keys, k)
	n.vals = append(n.vals, v)
}

func (n *node) str() (string, bool) {
	if n == nil || n.kind != 's' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(n.raw, &s) == nil
}

func (n *node) isNull() bool { return n != nil && n.kind == 's' && string(n.raw) == "null" }

func (n *node) clone() *node {
	if n == nil {
		return nil
	}
	c := &node{kind: n.kind, raw: n.raw}
	for i, k := range n.keys {
		c.keys = append(c.keys, k)
		c.vals = append(c.vals, n.vals[i].clone())
	}
	if n.kind == 'a' {
		c.arr = make([]*node, len(n.arr))
		for i, v := range n.arr {
			c.arr[i] = v.clone()
		}
	}
	return c
}

// appendJSON writes the value compactly, in key order, without HTML escaping.
func (n *node) appendJSON(b []byte) []byte {
	switch n.kind {
	case 'o':
		b = append(b, '{')
		for i, k := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = n.vals[i].appendJSON(b)
		}
		return append(b, '}')
	case 'a':
		b = append(b, '[')
		for i, v := range n.arr {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.appendJSON(b)
		}
		return append(b, ']')
	}
	return append(b, n.raw...)
}

func (n *node) MarshalJSON() ([]byte, error) { return n.appendJSON(nil), nil }

// errNotStrict: the schema uses something Anthropic's strict tool mode rejects; the tool is sent
// without strict (pi's UnsupportedStrictJsonSchemaError for a "prefer" tool).
var errNotStrict = errors.New("schema not supported in strict mode")

// unsupportedStrictKeys are the keywords strict sampling cannot express (pi's list).
var unsupportedStrictKeys = []string{"$ref", "$defs", "definitions", "allOf", "oneOf", "patternProperties",
	"dependentSchemas", "dependencies", "unevaluatedProperties", "propertyNames", "contains", "prefixItems",
	"not", "if", "then", "else"}

// anthropicStrictUnsupported is Anthropic's own list of keywords its strict mode rejects.
func anthropicStrictUnsupported(key string, v *node) bool {
	switch key {
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "maxItems", "uniqueItems",
		"minContains", "maxContains", "minProperties", "maxProperties":
		return true
	case "minItems":
		return string(v.raw) != "0" && string(v.raw) != "1"
	case "format":
		s, ok := v.str()
		if !ok {
			return true
		}
		switch s {
		case "date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid":
			return false
		}
		return true
	}
	return false
}

// strictSchema converts a tool's parameters to the strict subset (pi's makeStrictJsonSchema): every
// property required, optional ones made nullable, no additional properties.
func strictSchema(schema *node) (*node, error) {
	c := schema.clone()
	if c == nil || c.kind != 'o' {
		return nil, errNotStrict
	}
	if err := makeStrict(c); err != nil {
		return nil, err
	}
	if t, _ := c.get("type").str(); t != "object" {
		return nil, errNotStrict
	}
	return c, nil
}

func isStructured(n *node) bool {
	if n == nil || n.kind != 'o' {
		return false
	}
	var types []string
	if t := n.get("type"); t != nil {
		if s, ok := t.str(); ok {
			types = []string{s}
		} else if t.kind == 'a' {
			for _, e := range t.arr {
				s, _ := e.str()
				types = append(types, s)
			}
		}
	}
	for _, t := range types {
		if t == "object" || t == "array" {
			return true
		}
	}
	return n.get("properties") != nil || n.get("items") != nil
}

func allowsNull(n *node) bool {
	if n == nil || n.kind != 'o' {
		return false
	}
	if t := n.get("type"); t != nil {
		if s, _ := t.str(); s == "null" {
			return true
		}
		if t.kind == 'a' {
			for _, e := range t.arr {
				if s, _ := e.str(); s == "null" {
					return true
				}
			}
		}
	}
	if n.get("const").isNull() {
		return true
	}
	if e := n.get("enum"); e != nil && e.kind == 'a' {
		for _, v := range e.arr {
			if v.isNull() {
				return true
			}
		}
	}
	if a := n.get("anyOf"); a != nil && a.kind == 'a' {
		for _, v := range a.arr {
			if allowsNull(v) {
				return true
			}
		}
	}
	return false
}

func makeStrict(n *node) error {
	if n == nil || n.kind != 'o' {
		return fmt.Errorf("%w: boolean schemas", errNotStrict)
	}
	for _, k := range unsupportedStrictKeys {
		if n.get(k) != nil {
			return fmt.Errorf("%w: %s", errNotStrict, k)
		}
	}
	for i, k := range n.keys {
		if anthropicStrictUnsupported(k, n.vals[i]) {
			return fmt.Errorf("%w: %s", errNotStrict, k)
		}
	}
	if n.get("type") == nil && n.get("anyOf") == nil && n.get("enum") == nil {
		return fmt.Errorf("%w: no type", errNotStrict)
	}
	if a := n.get("anyOf"); a != nil {
		if a.kind != 'a' || len(a.arr) == 0 {
			return fmt.Errorf("%w: empty anyOf", errNotStrict)
		}
		for _, v := range a.arr {
			if isStructured(v) {
				return fmt.Errorf("%w: object and array unions", errNotStrict)
			}
			if err := makeStrict(v); err != nil {
				return err
			}
		}
	}
	if it := n.get("items"); it != nil {
		if it.kind == 'a' {
			return fmt.Errorf("%w: tuples", errNotStrict)
		}
		if err := makeStrict(it); err != nil {
			return err
		}
	}
	isObject := false
	if t, _ := n.get("type").str(); t == "object" {
		isObject = true
	}
	if n.get("properties") != nil && !isObject {
		return fmt.Errorf("%w: properties without type object", errNotStrict)
	}
	if !isObject {
		return nil
	}
	if ap := n.get("additionalProperties"); ap != nil && string(ap.raw) != "false" {
		return fmt.Errorf("%w: additionalProperties", errNotStrict)
	}
	props := n.get("properties")
	if props != nil && props.kind != 'o' {
		return fmt.Errorf("%w: properties", errNotStrict)
	}
	required := map[string]bool{}
	if r := n.get("required"); r != nil {
		if r.kind != 'a' {
			return fmt.Errorf("%w: required", errNotStrict)
		}
		for _, e := range r.arr {
			s, ok := e.str()
			if !ok {
				return fmt.Errorf("%w: required", errNotStrict)
			}
			required[s] = true
		}
	}
	if props == nil {
		props = &node{kind: 'o'}
	}
	for k := range required {
		if props.get(k) == nil {
			return fmt.Errorf("%w: required names an unknown property", errNotStrict)
		}
	}
	names := &node{kind: 'a', arr: []*node{}}
	for i, k := range props.keys {
		if err := makeStrict(props.vals[i]); err != nil {
			return err
		}
		if !required[k] && !allowsNull(props.vals[i]) {
			props.vals[i] = &node{kind: 'o', keys: []string{"anyOf"},
				vals: []*node{{kind: 'a', arr: []*node{props.vals[i], scalar(map[string]string{"type": "null"})}}}}
		}
		names.arr = append(names.arr, scalar(k))
	}
	n.set("required", names)
	n.set("additionalProperties", scalar(false))
	return nil
}
