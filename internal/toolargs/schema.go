package toolargs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A small JSON-schema validator for tool parameters: the keywords tool schemas use (type with unions,
// properties, required, additionalProperties, patternProperties, propertyNames, dependencies, items /
// prefixItems / additionalItems, enum, const, numeric and length limits, pattern, format, allOf / anyOf /
// oneOf / not, if / then / else, $ref into the same document). Schemas are read as draft 2020-12 unless
// they say otherwise or only make sense as draft-07 (an array "items"), as AJV and TypeBox accept both.
// Unknown keywords are ignored; $ref to other documents, $dynamicRef and unevaluated* are not supported
// ($ref to another document is reported as an invalid schema, the others are ignored).

// schemaNode is one compiled (sub)schema.
type schemaNode struct {
	// always is set for the boolean schemas true and false.
	always *bool

	// ref is the target of "$ref". Its siblings apply too, in every draft, as in TypeBox and AJV.
	ref *schemaNode

	types    []string // in the schema's order
	hasConst bool
	constVal any
	hasEnum  bool
	enum     []any
	format   string
	checkFmt func(string) bool

	// objects
	properties      map[string]*schemaNode
	patternProps    []patternSchema
	additionalFalse bool
	additional      *schemaNode
	required        []string
	minProps        int // -1: no limit
	maxProps        int
	dependencies    []dependency // "dependencies" (both forms), then dependentRequired / dependentSchemas
	propertyNames   *schemaNode

	// arrays
	prefixItems          []*schemaNode
	items                *schemaNode // after prefixItems
	additionalItemsFalse bool        // draft-07: no items after the tuple
	contains             *schemaNode
	minItems, maxItems   int
	uniqueItems          bool

	// strings (lengths in code points)
	minLength, maxLength int
	pattern              *regexp.Regexp

	// numbers
	minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf *schemaNumber

	allOf, anyOf, oneOf []*schemaNode
	not                 *schemaNode
	ifS, thenS, elseS   *schemaNode
}

type patternSchema struct {
	re  *regexp.Regexp
	sch *schemaNode
}

// dependency is one entry of dependencies / dependentRequired (required names) or dependentSchemas
// (a schema the whole object must match when prop is present).
type dependency struct {
	prop     string
	required []string
	schema   *schemaNode
}

// schemaNumber is a numeric limit: exact for comparison, and as JavaScript prints it for messages.
type schemaNumber struct {
	rat  *big.Rat
	text string
}

// schemaDoc is a decoded parameter schema and its compiled nodes, keyed by JSON pointer.
type schemaDoc struct {
	doc    any
	draft7 bool
	id     string // the root's $id without fragment: refs to it are local
	nodes  map[string]*schemaNode
}

// compileSchema reads a schema document. Schemas that are not valid as draft 2020-12 are tried as
// draft-07 before giving up (an array "items" is a draft-07 tuple).
func compileSchema(params []byte) (*schemaDoc, error) {
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected data after the schema")
	}
	draft7 := false
	if root, ok := doc.(map[string]any); ok {
		if s, ok := root["$schema"].(string); ok {
			draft7 = strings.Contains(s, "draft-07") || strings.Contains(s, "draft-06") || strings.Contains(s, "draft-04")
		}
	}
	d, err := compileDraft(doc, draft7)
	if err != nil && !draft7 {
		if d7, err7 := compileDraft(doc, true); err7 == nil {
			return d7, nil
		}
	}
	return d, err
}

func compileDraft(doc any, draft7 bool) (*schemaDoc, error) {
	d := &schemaDoc{doc: doc, draft7: draft7, nodes: map[string]*schemaNode{}}
	if root, ok := doc.(map[string]any); ok {
		if id, ok := root["$id"].(string); ok {
			d.id, _, _ = strings.Cut(id, "#")
		}
	}
	if _, err := d.compile(doc, ""); err != nil {
		return nil, err
	}
	return d, nil
}

// at compiles the subschema at the JSON pointer ptr ("" is the root).
func (d *schemaDoc) at(ptr string) (*schemaNode, error) {
	if n, ok := d.nodes[ptr]; ok {
		return n, nil
	}
	v, err := lookupPointer(d.doc, ptr)
	if err != nil {
		return nil, err
	}
	return d.compile(v, ptr)
}

type schemaError struct {
	ptr string
	msg string
}

func (e *schemaError) Error() string {
	if e.ptr == "" {
		return e.msg
	}
	return "at " + strconv.Quote(e.ptr) + ": " + e.msg
}

var jsonTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "string": true, "integer": true}

// compile builds the node for the raw schema v found at ptr. Nodes are registered before their children
// are compiled, so recursive $refs end.
func (d *schemaDoc) compile(v any, ptr string) (*schemaNode, error) {
	if n, ok := d.nodes[ptr]; ok {
		return n, nil
	}
	n := &schemaNode{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
	switch s := v.(type) {
	case bool:
		n.always = &s
	case map[string]any:
		d.nodes[ptr] = n
		if err := d.compileObject(n, s, ptr); err != nil {
			delete(d.nodes, ptr)
			return nil, err
		}
	default:
		return nil, &schemaError{ptr: ptr, msg: "a schema must be an object or a boolean, not " + jsonTypeName(v)}
	}
	d.nodes[ptr] = n
	return n, nil
}

func (d *schemaDoc) compileObject(n *schemaNode, s map[string]any, ptr string) error {
	kwErr := func(kw, format string, args ...any) error {
		return &schemaError{ptr: ptr + "/" + escapePointer(kw), msg: fmt.Sprintf(format, args...)}
	}
	sub := func(kw string, v any) (*schemaNode, error) { return d.compile(v, ptr+"/"+escapePointer(kw)) }
	subList := func(kw string) ([]*schemaNode, error) {
		raw, ok := s[kw]
		if !ok {
			return nil, nil
		}
		arr, ok := raw.([]any)
		if !ok || len(arr) == 0 {
			return nil, kwErr(kw, "must be a non-empty array of schemas")
		}
		out := make([]*schemaNode, len(arr))
		for i, e := range arr {
			var err error
			if out[i], err = d.compile(e, ptr+"/"+escapePointer(kw)+"/"+strconv.Itoa(i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	subMap := func(kw string) (map[string]*schemaNode, error) {
		raw, ok := s[kw]
		if !ok {
			return nil, nil
		}
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, kwErr(kw, "must be an object of schemas")
		}
		out := make(map[string]*schemaNode, len(m))
		for k, e := range m {
			sch, err := d.compile(e, ptr+"/"+escapePointer(kw)+"/"+escapePointer(k))
			if err != nil {
				return nil, err
			}
			out[k] = sch
		}
		return out, nil
	}
	optSub := func(kw string) (*schemaNode, error) {
		raw, ok := s[kw]
		if !ok {
			return nil, nil
		}
		return sub(kw, raw)
	}
	count := func(kw string) (int, error) {
		raw, ok := s[kw]
		if !ok {
			return -1, nil
		}
		num, ok := raw.(json.Number)
		if !ok {
			return 0, kwErr(kw, "must be a non-negative integer")
		}
		r, ok := new(big.Rat).SetString(string(num))
		if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
			return 0, kwErr(kw, "must be a non-negative integer")
		}
		return int(min(r.Num().Int64(), int64(^uint(0)>>1))), nil
	}
	number := func(kw string) (*schemaNumber, error) {
		raw, ok := s[kw]
		if !ok {
			return nil, nil
		}
		num, ok := raw.(json.Number)
		if !ok {
			return nil, kwErr(kw, "must be a number")
		}
		r, ok := new(big.Rat).SetString(string(num))
		if !ok {
			return nil, kwErr(kw, "must be a number")
		}
		f, _ := r.Float64()
		return &schemaNumber{rat: r, text: jsNumberString(f)}, nil
	}

	// $ref
	if raw, ok := s["$ref"]; ok {
		ref, ok := raw.(string)
		if !ok {
			return kwErr("$ref", "must be a string")
		}
		target, err := d.resolveRef(ref)
		if err != nil {
			return kwErr("$ref", "%v", err)
		}
		if n.ref, err = d.at(target); err != nil {
			return err
		}
	}

	// Definitions are compiled whether referenced or not (a metaschema checks them): $defs and
	// definitions in draft 2020-12, definitions only in draft-07.
	defs := []string{"$defs", "definitions"}
	if d.draft7 {
		defs = defs[1:]
	}
	for _, kw := range defs {
		if _, err := subMap(kw); err != nil {
			return err
		}
	}

	var err error
	// applicators
	if n.allOf, err = subList("allOf"); err != nil {
		return err
	}
	if n.anyOf, err = subList("anyOf"); err != nil {
		return err
	}
	if n.oneOf, err = subList("oneOf"); err != nil {
		return err
	}
	if n.not, err = optSub("not"); err != nil {
		return err
	}
	if raw, ok := s["if"]; ok {
		if n.ifS, err = sub("if", raw); err != nil {
			return err
		}
		if n.thenS, err = optSub("then"); err != nil {
			return err
		}
		if n.elseS, err = optSub("else"); err != nil {
			return err
		}
	}

	// objects
	if n.properties, err = subMap("properties"); err != nil {
		return err
	}
	if pats, err := subMap("patternProperties"); err != nil {
		return err
	} else if len(pats) > 0 {
		keys := sortedKeys(pats)
		for _, k := range keys {
			re, err := regexp.Compile(k)
			if err != nil {
				return kwErr("patternProperties", "invalid pattern %q: %v", k, err)
			}
			n.patternProps = append(n.patternProps, patternSchema{re: re, sch: pats[k]})
		}
	}
	if raw, ok := s["additionalProperties"]; ok {
		if b, ok := raw.(bool); ok {
			n.additionalFalse = !b
		} else if n.additional, err = sub("additionalProperties", raw); err != nil {
			return err
		}
	}
	if raw, ok := s["required"]; ok {
		if n.required, ok = stringSet(raw); !ok {
			return kwErr("required", "must be an array of distinct strings")
		}
	}
	if n.minProps, err = count("minProperties"); err != nil {
		return err
	}
	if n.maxProps, err = count("maxProperties"); err != nil {
		return err
	}
	if raw, ok := s["dependencies"]; ok {
		m, ok := raw.(map[string]any)
		if !ok {
			return kwErr("dependencies", "must be an object")
		}
		for _, k := range sortedKeys(m) {
			dep := dependency{prop: k}
			if names, ok := stringSet(m[k]); ok {
				dep.required = names
			} else if dep.schema, err = d.compile(m[k], ptr+"/dependencies/"+escapePointer(k)); err != nil {
				return err
			}
			n.dependencies = append(n.dependencies, dep)
		}
	}
	if !d.draft7 {
		if raw, ok := s["dependentRequired"]; ok {
			m, ok := raw.(map[string]any)
			if !ok {
				return kwErr("dependentRequired", "must be an object of string arrays")
			}
			for _, k := range sortedKeys(m) {
				names, ok := stringSet(m[k])
				if !ok {
					return kwErr("dependentRequired", "must be an object of arrays of distinct strings")
				}
				n.dependencies = append(n.dependencies, dependency{prop: k, required: names})
			}
		}
		deps, err := subMap("dependentSchemas")
		if err != nil {
			return err
		}
		for _, k := range sortedKeys(deps) {
			n.dependencies = append(n.dependencies, dependency{prop: k, schema: deps[k]})
		}
	}
	if n.propertyNames, err = optSub("propertyNames"); err != nil {
		return err
	}

	// arrays
	if raw, ok := s["items"]; ok {
		if arr, isArr := raw.([]any); isArr {
			if !d.draft7 {
				return kwErr("items", "must be a schema (an array of schemas is draft-07's tuple form)")
			}
			for i, e := range arr {
				sch, err := d.compile(e, ptr+"/items/"+strconv.Itoa(i))
				if err != nil {
					return err
				}
				n.prefixItems = append(n.prefixItems, sch)
			}
			if rawAdd, ok := s["additionalItems"]; ok {
				if b, ok := rawAdd.(bool); ok {
					n.additionalItemsFalse = !b
				} else if n.items, err = sub("additionalItems", rawAdd); err != nil {
					return err
				}
			}
		} else if n.items, err = sub("items", raw); err != nil {
			return err
		}
	}
	if !d.draft7 {
		if n.prefixItems, err = subList("prefixItems"); err != nil {
			return err
		}
	}
	if n.contains, err = optSub("contains"); err != nil {
		return err
	}
	if n.minItems, err = count("minItems"); err != nil {
		return err
	}
	if n.maxItems, err = count("maxItems"); err != nil {
		return err
	}
	if raw, ok := s["uniqueItems"]; ok {
		if n.uniqueItems, ok = raw.(bool); !ok {
			return kwErr("uniqueItems", "must be a boolean")
		}
	}

	// strings
	if n.minLength, err = count("minLength"); err != nil {
		return err
	}
	if n.maxLength, err = count("maxLength"); err != nil {
		return err
	}
	if raw, ok := s["pattern"]; ok {
		pat, ok := raw.(string)
		if !ok {
			return kwErr("pattern", "must be a string")
		}
		if n.pattern, err = regexp.Compile(pat); err != nil {
			return kwErr("pattern", "invalid pattern %q: %v", pat, err)
		}
	}
	if raw, ok := s["format"]; ok {
		f, ok := raw.(string)
		if !ok {
			return kwErr("format", "must be a string")
		}
		n.format, n.checkFmt = f, formatChecks[f]
	}

	// numbers; draft-04's boolean exclusiveMinimum / exclusiveMaximum make the bound exclusive
	if n.minimum, err = number("minimum"); err != nil {
		return err
	}
	if n.maximum, err = number("maximum"); err != nil {
		return err
	}
	if b, ok := s["exclusiveMinimum"].(bool); ok {
		if b {
			n.exclusiveMinimum, n.minimum = n.minimum, nil
		}
	} else if n.exclusiveMinimum, err = number("exclusiveMinimum"); err != nil {
		return err
	}
	if b, ok := s["exclusiveMaximum"].(bool); ok {
		if b {
			n.exclusiveMaximum, n.maximum = n.maximum, nil
		}
	} else if n.exclusiveMaximum, err = number("exclusiveMaximum"); err != nil {
		return err
	}
	if n.multipleOf, err = number("multipleOf"); err != nil {
		return err
	}
	if n.multipleOf != nil && n.multipleOf.rat.Sign() <= 0 {
		return kwErr("multipleOf", "must be greater than 0")
	}

	// any value
	if raw, ok := s["type"]; ok {
		switch t := raw.(type) {
		case string:
			n.types = []string{t}
		case []any:
			names, ok := stringList(t)
			if !ok || len(names) == 0 {
				return kwErr("type", "must be a type name or a non-empty array of type names")
			}
			n.types = names
		default:
			return kwErr("type", "must be a type name or an array of type names")
		}
		for i, t := range n.types {
			if !jsonTypes[t] {
				return kwErr("type", "unknown type %q", t)
			}
			if slices.Contains(n.types[:i], t) {
				return kwErr("type", "type %q is listed twice", t)
			}
		}
	}
	if v, ok := s["const"]; ok {
		n.hasConst, n.constVal = true, v
	}
	if raw, ok := s["enum"]; ok {
		arr, ok := raw.([]any)
		if !ok {
			return kwErr("enum", "must be an array")
		}
		if d.draft7 && (len(arr) == 0 || hasDuplicates(arr)) {
			// Draft-07's metaschema asks for distinct values, 2020-12's does not.
			return kwErr("enum", "must be a non-empty array of distinct values")
		}
		n.hasEnum, n.enum = true, arr
	}
	return nil
}
