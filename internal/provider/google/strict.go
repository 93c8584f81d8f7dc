package google

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Strict tool sampling (pi's constrained-sampling.js): on Gemini 3 and later, a tool that prefers
// JSON-schema constrained sampling is declared with a strict schema (every property required, the
// optional ones nullable, no additional properties) and the call mode VALIDATED; a schema strict mode
// cannot express keeps its own and the tool is sent as it is.

// errUnsupportedStrict: the schema uses what strict mode cannot express.
var errUnsupportedStrict = errors.New("unsupported strict schema")

// unsupportedStrictKeys are pi's UNSUPPORTED_STRICT_SCHEMA_KEYS.
var unsupportedStrictKeys = []string{"$ref", "$defs", "definitions", "allOf", "oneOf", "patternProperties",
	"dependentSchemas", "dependencies", "unevaluatedProperties", "propertyNames", "contains", "prefixItems", "not",
	"if", "then", "else"}

// object is a JSON object that keeps its member order (pi lists required properties in the order of
// the schema's properties).
type object struct {
	keys []string
	m    map[string]any
}

func (o *object) get(k string) (any, bool) { v, ok := o.m[k]; return v, ok }

func (o *object) set(k string, v any) {
	if _, ok := o.m[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.m[k] = v
}

// decodeOrdered reads JSON with objects as *object.
func decodeOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the schema")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		o := &object{m: map[string]any{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			o.set(kt.(string), v)
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		list := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token()
		return list, err
	}
	return t, nil
}

// plain turns decoded values into what encoding/json writes (maps, slices, numbers).
func plain(v any) any {
	switch v := v.(type) {
	case *object:
		m := make(map[string]any, len(v.m))
		for k, x := range v.m {
			m[k] = plain(x)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = plain(x)
		}
		return out
	}
	return v
}

// typeIs reports whether a schema's "type" is the string name.
func typeIs(o *object, name string) bool {
	t, _ := o.get("type")
	s, ok := t.(string)
	return ok && s == name
}

func typeIncludes(o *object, name string) bool {
	switch t := o.m["type"].(type) {
	case string:
		return t == name
	case []any:
		return slices.Contains(t, any(name))
	}
	return false
}

func isStructured(v any) bool {
	o, ok := v.(*object)
	if !ok {
		return false
	}
	_, props := o.get("properties")
	_, items := o.get("items")
	return typeIncludes(o, "object") || typeIncludes(o, "array") || props || items
}

func allowsNull(v any) bool {
	o, ok := v.(*object)
	if !ok {
		return false
	}
	if typeIncludes(o, "null") {
		return true
	}
	if c, ok := o.get("const"); ok && c == nil {
		return true
	}
	if e, ok := o.m["enum"].([]any); ok && slices.Contains(e, nil) {
		return true
	}
	if variants, ok := o.m["anyOf"].([]any); ok {
		for _, x := range variants {
			if allowsNull(x) {
				return true
			}
		}
	}
	return false
}

// strictNode makes schema node v strict in place (pi's makeJsonSchemaNodeStrict).
func strictNode(v any) error {
	o, ok := v.(*object)
	if !ok {
		return fmt.Errorf("%w: boolean schemas", errUnsupportedStrict)
	}
	for _, k := range unsupportedStrictKeys {
		if _, ok := o.get(k); ok {
			return fmt.Errorf("%w: %s", errUnsupportedStrict, k)
		}
	}
	_, hasType := o.get("type")
	anyOf, hasAnyOf := o.get("anyOf")
	_, hasEnum := o.get("enum")
	if !hasType && !hasAnyOf && !hasEnum {
		return fmt.Errorf("%w: schemas without a type", errUnsupportedStrict)
	}
	if hasAnyOf {
		variants, ok := anyOf.([]any)
		if !ok || len(variants) == 0 {
			return fmt.Errorf("%w: empty anyOf", errUnsupportedStrict)
		}
		for _, x := range variants {
			if isStructured(x) {
				return fmt.Errorf("%w: object and array unions", errUnsupportedStrict)
			}
			if err := strictNode(x); err != nil {
				return err
			}
		}
	}
	if items, ok := o.get("items"); ok {
		if _, tuple := items.([]any); tuple {
			return fmt.Errorf("%w: tuple schemas", errUnsupportedStrict)
		}
		if err := strictNode(items); err != nil {
			return err
		}
	}
	isObject := typeIs(o, "object")
	propsV, hasProps := o.get("properties")
	if hasProps && !isObject {
		return fmt.Errorf("%w: properties require type object", errUnsupportedStrict)
	}
	if !isObject {
		return nil
	}
	if ap, ok := o.get("additionalProperties"); ok && ap != false {
		return fmt.Errorf("%w: additionalProperties", errUnsupportedStrict)
	}
	props := &object{m: map[string]any{}}
	if hasProps {
		if props, ok = propsV.(*object); !ok {
			return fmt.Errorf("%w: properties is not a map", errUnsupportedStrict)
		}
	}
	required := map[string]bool{}
	if r, ok := o.get("required"); ok {
		list, ok := r.([]any)
		if !ok {
			return fmt.Errorf("%w: required is not a list", errUnsupportedStrict)
		}
		for _, x := range list {
			name, ok := x.(string)
			if !ok {
				return fmt.Errorf("%w: required is not a list of names", errUnsupportedStrict)
			}
			if _, known := props.get(name); !known {
				return fmt.Errorf("%w: required names an unknown property", errUnsupportedStrict)
			}
			required[name] = true
		}
	}
	names := make([]any, 0, len(props.keys))
	for _, k := range props.keys {
		p := props.m[k]
		if err := strictNode(p); err != nil {
			return err
		}
		if !required[k] && !allowsNull(p) {
			props.m[k] = &object{keys: []string{"anyOf"}, m: map[string]any{"anyOf": []any{p,
				&object{keys: []string{"type"}, m: map[string]any{"type": "null"}}}}}
		}
		names = append(names, k)
	}
	o.set("required", names)
	o.set("additionalProperties", false)
	return nil
}

// strictSchema is pi's makeStrictJsonSchema on a tool's parameters; ok is false when strict mode
// cannot express them.
func strictSchema(params []byte) (any, bool) {
	v, err := decodeOrdered(params)
	if err != nil {
		return nil, false
	}
	o, isObj := v.(*object)
	if !isObj || strictNode(v) != nil || !typeIs(o, "object") {
		return nil, false
	}
	return plain(v), true
}

// prefersStrict reports whether a tool asks for JSON-schema constrained sampling (pi's
// constrainedSampling {"type":"json_schema"}); require is its strict:"require".
func prefersStrict(constrained []byte) (prefer, require bool) {
	var c struct {
		Type   string `json:"type"`
		Strict string `json:"strict"`
	}
	if len(constrained) == 0 || json.Unmarshal(constrained, &c) != nil || c.Type != "json_schema" {
		return false, false
	}
	return true, c.Strict == "require"
}
