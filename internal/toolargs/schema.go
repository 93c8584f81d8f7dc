package toolargs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
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

// compileObject compiles the keywords of the schema object s, found at ptr, into n: each keyword of
// the table that s has, in the table's order (so the first wrong keyword is the one reported).
func (d *schemaDoc) compileObject(n *schemaNode, s map[string]any, ptr string) error {
	c := nodeCompiler{d: d, n: n, s: s, ptr: ptr}
	for _, kw := range keywords {
		raw, ok := s[kw.name]
		if !ok || (kw.only2020 && d.draft7) {
			continue
		}
		if err := kw.compile(c, kw.name, raw); err != nil {
			return err
		}
	}
	return nil
}
