package toolargs

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
)

// The schema compiler is this table: one small function per keyword, each reading the keyword's
// value and adding its check to the node being compiled.

// keyword compiles one schema keyword.
type keyword struct {
	name string
	// only2020 marks keywords draft-07 does not have; there they are ignored like unknown keywords.
	only2020 bool
	// compile reads the keyword's value raw into c's node; kw is the keyword's name.
	compile func(c nodeCompiler, kw string, raw any) error
}

// keywords lists the keywords the validator knows, in the order they are compiled. Keywords that
// read a sibling (then / else with if, additionalItems with an array items) or change one (a boolean
// exclusiveMinimum turns minimum exclusive) come after it or handle it themselves. Unknown keywords are
// ignored.
//
// It is filled in by init, as a variable initializer may not refer to itself: the keyword functions
// compile subschemas, which reads this table.
var keywords []keyword

func init() {
	keywords = []keyword{
		{name: "$ref", compile: compileRef},
		// Definitions are compiled whether referenced or not (a metaschema checks them).
		{name: "$defs", only2020: true, compile: compileDefinitions},
		{name: "definitions", compile: compileDefinitions},

		// applicators
		{name: "allOf", compile: schemaList(func(n *schemaNode) *[]*schemaNode { return &n.allOf })},
		{name: "anyOf", compile: schemaList(func(n *schemaNode) *[]*schemaNode { return &n.anyOf })},
		{name: "oneOf", compile: schemaList(func(n *schemaNode) *[]*schemaNode { return &n.oneOf })},
		{name: "not", compile: subschema(func(n *schemaNode) **schemaNode { return &n.not })},
		{name: "if", compile: compileIf},

		// objects
		{name: "properties", compile: compileProperties},
		{name: "patternProperties", compile: compilePatternProperties},
		{name: "additionalProperties", compile: compileAdditionalProperties},
		{name: "required", compile: compileRequired},
		{name: "minProperties", compile: count(func(n *schemaNode) *int { return &n.minProps })},
		{name: "maxProperties", compile: count(func(n *schemaNode) *int { return &n.maxProps })},
		{name: "dependencies", compile: compileDependencies},
		{name: "dependentRequired", only2020: true, compile: compileDependentRequired},
		{name: "dependentSchemas", only2020: true, compile: compileDependentSchemas},
		{name: "propertyNames", compile: subschema(func(n *schemaNode) **schemaNode { return &n.propertyNames })},

		// arrays
		{name: "items", compile: compileItems},
		{name: "prefixItems", only2020: true, compile: schemaList(func(n *schemaNode) *[]*schemaNode { return &n.prefixItems })},
		{name: "contains", compile: subschema(func(n *schemaNode) **schemaNode { return &n.contains })},
		{name: "minItems", compile: count(func(n *schemaNode) *int { return &n.minItems })},
		{name: "maxItems", compile: count(func(n *schemaNode) *int { return &n.maxItems })},
		{name: "uniqueItems", compile: compileUniqueItems},

		// strings
		{name: "minLength", compile: count(func(n *schemaNode) *int { return &n.minLength })},
		{name: "maxLength", compile: count(func(n *schemaNode) *int { return &n.maxLength })},
		{name: "pattern", compile: compilePattern},
		{name: "format", compile: compileFormat},

		// numbers
		{name: "minimum", compile: number(func(n *schemaNode) **schemaNumber { return &n.minimum })},
		{name: "maximum", compile: number(func(n *schemaNode) **schemaNumber { return &n.maximum })},
		{name: "exclusiveMinimum", compile: exclusiveBound(
			func(n *schemaNode) (**schemaNumber, **schemaNumber) { return &n.exclusiveMinimum, &n.minimum })},
		{name: "exclusiveMaximum", compile: exclusiveBound(
			func(n *schemaNode) (**schemaNumber, **schemaNumber) { return &n.exclusiveMaximum, &n.maximum })},
		{name: "multipleOf", compile: compileMultipleOf},

		// any value
		{name: "type", compile: compileType},
		{name: "const", compile: compileConst},
		{name: "enum", compile: compileEnum},
	}
}

// nodeCompiler holds what the keyword functions share: the document, the node being compiled, the
// schema object it comes from and that object's JSON pointer.
type nodeCompiler struct {
	d   *schemaDoc
	n   *schemaNode
	s   map[string]any
	ptr string
}

// errorf is an invalid-schema error at keyword kw. (Keyword names need no escaping in a pointer.)
func (c nodeCompiler) errorf(kw, format string, args ...any) error {
	return &schemaError{ptr: c.ptr + "/" + kw, msg: fmt.Sprintf(format, args...)}
}

// sub compiles the subschema raw found at path, a pointer relative to the object (escaped tokens).
func (c nodeCompiler) sub(path string, raw any) (*schemaNode, error) {
	return c.d.compile(raw, c.ptr+"/"+path)
}

// sibling compiles the subschema of the keyword kw of the same object; nil when the object has none.
func (c nodeCompiler) sibling(kw string) (*schemaNode, error) {
	raw, ok := c.s[kw]
	if !ok {
		return nil, nil
	}
	return c.sub(kw, raw)
}

// list compiles a non-empty array of subschemas.
func (c nodeCompiler) list(kw string, raw any) ([]*schemaNode, error) {
	arr, ok := raw.([]any)
	if !ok || len(arr) == 0 {
		return nil, c.errorf(kw, "must be a non-empty array of schemas")
	}
	out := make([]*schemaNode, len(arr))
	for i, e := range arr {
		var err error
		if out[i], err = c.sub(kw+"/"+strconv.Itoa(i), e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// schemaMap compiles an object whose values are subschemas.
func (c nodeCompiler) schemaMap(kw string, raw any) (map[string]*schemaNode, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, c.errorf(kw, "must be an object of schemas")
	}
	out := make(map[string]*schemaNode, len(m))
	for k, e := range m {
		sch, err := c.sub(kw+"/"+escapePointer(k), e)
		if err != nil {
			return nil, err
		}
		out[k] = sch
	}
	return out, nil
}

// subschema is the keyword function of a keyword whose value is one schema.
func subschema(field func(*schemaNode) **schemaNode) func(nodeCompiler, string, any) error {
	return func(c nodeCompiler, kw string, raw any) (err error) {
		*field(c.n), err = c.sub(kw, raw)
		return err
	}
}

// schemaList is the keyword function of a keyword whose value is a non-empty array of schemas.
func schemaList(field func(*schemaNode) *[]*schemaNode) func(nodeCompiler, string, any) error {
	return func(c nodeCompiler, kw string, raw any) (err error) {
		*field(c.n), err = c.list(kw, raw)
		return err
	}
}

// count is the keyword function of a limit that is a non-negative integer (lengths, sizes).
func count(field func(*schemaNode) *int) func(nodeCompiler, string, any) error {
	return func(c nodeCompiler, kw string, raw any) error {
		num, ok := raw.(json.Number)
		if !ok {
			return c.errorf(kw, "must be a non-negative integer")
		}
		r, ok := new(big.Rat).SetString(string(num))
		if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
			return c.errorf(kw, "must be a non-negative integer")
		}
		*field(c.n) = int(min(r.Num().Int64(), int64(^uint(0)>>1)))
		return nil
	}
}

// number is the keyword function of a numeric limit.
func number(field func(*schemaNode) **schemaNumber) func(nodeCompiler, string, any) error {
	return func(c nodeCompiler, kw string, raw any) (err error) {
		*field(c.n), err = c.number(kw, raw)
		return err
	}
}

func (c nodeCompiler) number(kw string, raw any) (*schemaNumber, error) {
	num, ok := raw.(json.Number)
	if !ok {
		return nil, c.errorf(kw, "must be a number")
	}
	r, ok := new(big.Rat).SetString(string(num))
	if !ok {
		return nil, c.errorf(kw, "must be a number")
	}
	f, _ := r.Float64()
	return &schemaNumber{rat: r, text: jsNumberString(f)}, nil
}

// exclusiveBound is the keyword function of exclusiveMinimum / exclusiveMaximum: a number, or
// draft-04's boolean, which when true makes the inclusive bound (compiled before) exclusive.
func exclusiveBound(fields func(*schemaNode) (exclusive, inclusive **schemaNumber)) func(nodeCompiler, string, any) error {
	return func(c nodeCompiler, kw string, raw any) (err error) {
		exclusive, inclusive := fields(c.n)
		if b, ok := raw.(bool); ok {
			if b {
				*exclusive, *inclusive = *inclusive, nil
			}
			return nil
		}
		*exclusive, err = c.number(kw, raw)
		return err
	}
}

func compileRef(c nodeCompiler, kw string, raw any) error {
	ref, ok := raw.(string)
	if !ok {
		return c.errorf(kw, "must be a string")
	}
	target, err := c.d.resolveRef(ref)
	if err != nil {
		return c.errorf(kw, "%v", err)
	}
	c.n.ref, err = c.d.at(target)
	return err
}

func compileDefinitions(c nodeCompiler, kw string, raw any) error {
	_, err := c.schemaMap(kw, raw)
	return err
}

// compileIf compiles if with its then and else, which mean nothing without it.
func compileIf(c nodeCompiler, kw string, raw any) (err error) {
	if c.n.ifS, err = c.sub(kw, raw); err != nil {
		return err
	}
	if c.n.thenS, err = c.sibling("then"); err != nil {
		return err
	}
	c.n.elseS, err = c.sibling("else")
	return err
}

func compileProperties(c nodeCompiler, kw string, raw any) (err error) {
	c.n.properties, err = c.schemaMap(kw, raw)
	return err
}

// compilePatternProperties compiles the subschemas, then the patterns in sorted order.
func compilePatternProperties(c nodeCompiler, kw string, raw any) error {
	pats, err := c.schemaMap(kw, raw)
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(pats) {
		re, err := regexp.Compile(k)
		if err != nil {
			return c.errorf(kw, "invalid pattern %q: %v", k, err)
		}
		c.n.patternProps = append(c.n.patternProps, patternSchema{re: re, sch: pats[k]})
	}
	return nil
}

func compileAdditionalProperties(c nodeCompiler, kw string, raw any) (err error) {
	if b, ok := raw.(bool); ok {
		c.n.additionalFalse = !b
		return nil
	}
	c.n.additional, err = c.sub(kw, raw)
	return err
}

func compileRequired(c nodeCompiler, kw string, raw any) error {
	var ok bool
	if c.n.required, ok = stringSet(raw); !ok {
		return c.errorf(kw, "must be an array of distinct strings")
	}
	return nil
}

// compileDependencies reads both forms: a property's required names, or a schema for the object.
func compileDependencies(c nodeCompiler, kw string, raw any) error {
	m, ok := raw.(map[string]any)
	if !ok {
		return c.errorf(kw, "must be an object")
	}
	for _, k := range sortedKeys(m) {
		dep := dependency{prop: k}
		if names, ok := stringSet(m[k]); ok {
			dep.required = names
		} else {
			var err error
			if dep.schema, err = c.sub(kw+"/"+escapePointer(k), m[k]); err != nil {
				return err
			}
		}
		c.n.dependencies = append(c.n.dependencies, dep)
	}
	return nil
}

func compileDependentRequired(c nodeCompiler, kw string, raw any) error {
	m, ok := raw.(map[string]any)
	if !ok {
		return c.errorf(kw, "must be an object of string arrays")
	}
	for _, k := range sortedKeys(m) {
		names, ok := stringSet(m[k])
		if !ok {
			return c.errorf(kw, "must be an object of arrays of distinct strings")
		}
		c.n.dependencies = append(c.n.dependencies, dependency{prop: k, required: names})
	}
	return nil
}

func compileDependentSchemas(c nodeCompiler, kw string, raw any) error {
	deps, err := c.schemaMap(kw, raw)
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(deps) {
		c.n.dependencies = append(c.n.dependencies, dependency{prop: k, schema: deps[k]})
	}
	return nil
}

// compileItems reads a schema for every item, or draft-07's tuple: an array of schemas with
// additionalItems for the items after it.
func compileItems(c nodeCompiler, kw string, raw any) (err error) {
	arr, isTuple := raw.([]any)
	if !isTuple {
		c.n.items, err = c.sub(kw, raw)
		return err
	}
	if !c.d.draft7 {
		return c.errorf(kw, "must be a schema (an array of schemas is draft-07's tuple form)")
	}
	for i, e := range arr {
		sch, err := c.sub(kw+"/"+strconv.Itoa(i), e)
		if err != nil {
			return err
		}
		c.n.prefixItems = append(c.n.prefixItems, sch)
	}
	rest, ok := c.s["additionalItems"]
	if !ok {
		return nil
	}
	if b, ok := rest.(bool); ok {
		c.n.additionalItemsFalse = !b
		return nil
	}
	c.n.items, err = c.sub("additionalItems", rest)
	return err
}

func compileUniqueItems(c nodeCompiler, kw string, raw any) error {
	var ok bool
	if c.n.uniqueItems, ok = raw.(bool); !ok {
		return c.errorf(kw, "must be a boolean")
	}
	return nil
}

func compilePattern(c nodeCompiler, kw string, raw any) (err error) {
	pat, ok := raw.(string)
	if !ok {
		return c.errorf(kw, "must be a string")
	}
	if c.n.pattern, err = regexp.Compile(pat); err != nil {
		return c.errorf(kw, "invalid pattern %q: %v", pat, err)
	}
	return nil
}

func compileFormat(c nodeCompiler, kw string, raw any) error {
	f, ok := raw.(string)
	if !ok {
		return c.errorf(kw, "must be a string")
	}
	c.n.format, c.n.checkFmt = f, formatChecks[f]
	return nil
}

func compileMultipleOf(c nodeCompiler, kw string, raw any) (err error) {
	if c.n.multipleOf, err = c.number(kw, raw); err != nil {
		return err
	}
	if c.n.multipleOf.rat.Sign() <= 0 {
		return c.errorf(kw, "must be greater than 0")
	}
	return nil
}

// compileType reads a type name or a list of distinct ones, kept in the schema's order (messages
// name them so).
func compileType(c nodeCompiler, kw string, raw any) error {
	switch t := raw.(type) {
	case string:
		c.n.types = []string{t}
	case []any:
		names, ok := stringList(t)
		if !ok || len(names) == 0 {
			return c.errorf(kw, "must be a type name or a non-empty array of type names")
		}
		c.n.types = names
	default:
		return c.errorf(kw, "must be a type name or an array of type names")
	}
	for i, t := range c.n.types {
		if !jsonTypes[t] {
			return c.errorf(kw, "unknown type %q", t)
		}
		if slices.Contains(c.n.types[:i], t) {
			return c.errorf(kw, "type %q is listed twice", t)
		}
	}
	return nil
}

func compileConst(c nodeCompiler, kw string, raw any) error {
	c.n.hasConst, c.n.constVal = true, raw
	return nil
}

func compileEnum(c nodeCompiler, kw string, raw any) error {
	arr, ok := raw.([]any)
	if !ok {
		return c.errorf(kw, "must be an array")
	}
	if c.d.draft7 && (len(arr) == 0 || hasDuplicates(arr)) {
		// Draft-07's metaschema asks for distinct values, 2020-12's does not.
		return c.errorf(kw, "must be a non-empty array of distinct values")
	}
	c.n.hasEnum, c.n.enum = true, arr
	return nil
}
