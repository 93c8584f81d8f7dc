package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// argValidator validates tool arguments against the tools' JSON schemas, compiling each schema once.
type argValidator struct {
	mu    sync.Mutex
	cache map[string]*compiledSchema
}

func newArgValidator() *argValidator { return &argValidator{cache: map[string]*compiledSchema{}} }

// compiledSchema is one tool's parameter schema: the decoded document (for coercion and messages), the
// compiled root, and branches compiled on demand for union coercion.
type compiledSchema struct {
	doc      any
	compiler *jsonschema.Compiler
	root     *jsonschema.Schema
	subs     map[string]*jsonschema.Schema
	err      error
}

const schemaURL = "mem:///parameters.json"

func (v *argValidator) schema(params json.RawMessage) *compiledSchema {
	params = bytes.TrimSpace(params)
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	key := string(params)
	if cs, ok := v.cache[key]; ok {
		return cs
	}
	cs := &compiledSchema{subs: map[string]*jsonschema.Schema{}}
	v.cache[key] = cs
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		cs.err = err
		return cs
	}
	cs.doc = doc
	// Schemas without "$schema" are read as draft 2020-12; one that is not valid there (draft-07
	// tuples with an array "items", say) is read as draft-07, which AJV and TypeBox accept too.
	for i, draft := range []*jsonschema.Draft{jsonschema.Draft2020, jsonschema.Draft7} {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(draft)
		c.AssertFormat()
		if err := c.AddResource(schemaURL, doc); err != nil {
			cs.err = err
			return cs
		}
		root, err := c.Compile(schemaURL)
		if err == nil {
			cs.compiler, cs.root, cs.err = c, root, nil
			return cs
		}
		if i == 0 {
			cs.err = err
		}
	}
	return cs
}

// check reports whether v is valid against the schema at the JSON pointer ptr ("" is the root). A
// branch that does not compile never matches.
func (cs *compiledSchema) check(ptr string, v any) bool {
	sch, ok := cs.subs[ptr]
	if !ok {
		toks := strings.Split(ptr, "/")
		for i := range toks {
			toks[i] = url.PathEscape(toks[i])
		}
		sch, _ = cs.compiler.Compile(schemaURL + "#" + strings.Join(toks, "/"))
		cs.subs[ptr] = sch
	}
	return sch != nil && sch.Validate(v) == nil
}

// validate coerces and validates the arguments of a call of tool. It returns the arguments Execute
// receives (the given bytes when coercion changed nothing), or an error whose text is pi's.
func (v *argValidator) validate(tool string, params, args json.RawMessage) (json.RawMessage, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	cs := v.schema(params)
	if cs.err != nil {
		return nil, fmt.Errorf("Invalid parameter schema for tool %q: %w", tool, cs.err)
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	value, order, err := decodeOrdered(args)
	if err != nil {
		return nil, fmt.Errorf("Invalid arguments for tool %q: %w", tool, err)
	}
	c := coercer{cs: cs}
	coerced, changed := c.coerce(deepCopy(value), cs.doc, "")
	verr := cs.root.Validate(coerced)
	if verr == nil {
		if !changed {
			return args, nil
		}
		var b bytes.Buffer
		encodeJS(&b, coerced, order, "", "", 0)
		return json.RawMessage(b.Bytes()), nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return nil, fmt.Errorf("Validation failed for tool %q: %w", tool, verr)
	}
	var msg strings.Builder
	msg.WriteString("Validation failed for tool \"" + tool + "\":\n")
	issues := validationIssues(ve, cs.doc, order)
	if len(issues) == 0 {
		msg.WriteString("Unknown validation error")
	}
	for i, is := range issues {
		if i > 0 {
			msg.WriteByte('\n')
		}
		fmt.Fprintf(&msg, "  - %s: %s", is.path, is.message)
	}
	msg.WriteString("\n\nReceived arguments:\n")
	var pretty bytes.Buffer
	encodeJS(&pretty, value, order, "", "  ", 0)
	msg.Write(pretty.Bytes())
	return nil, errors.New(msg.String())
}
