package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// argValidator validates tool arguments against the tools' JSON schemas, compiling each schema once.
type argValidator struct {
	mu    sync.Mutex
	cache map[string]*compiledSchema
}

func newArgValidator() *argValidator { return &argValidator{cache: map[string]*compiledSchema{}} }

// compiledSchema is one tool's parameter schema: the decoded document (for coercion, which walks the
// schema as written) and its compiled nodes.
type compiledSchema struct {
	doc  *schemaDoc
	root *schemaNode
	err  error
}

func (v *argValidator) schema(params json.RawMessage) *compiledSchema {
	params = bytes.TrimSpace(params)
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	key := string(params)
	if cs, ok := v.cache[key]; ok {
		return cs
	}
	cs := &compiledSchema{}
	v.cache[key] = cs
	cs.doc, cs.err = compileSchema(params)
	if cs.err == nil {
		cs.root = cs.doc.nodes[""]
	}
	return cs
}

// check reports whether v is valid against the schema at the JSON pointer ptr ("" is the root). A
// branch that does not compile never matches.
func (cs *compiledSchema) check(ptr string, v any) bool {
	n, err := cs.doc.at(ptr)
	return err == nil && matches(n, v, nil, nil)
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
	coerced, changed := c.coerce(deepCopy(value), cs.doc.doc, "")
	chk := checker{}
	if chk.check(cs.root, coerced, nil, nil) {
		if !changed {
			return args, nil
		}
		var b bytes.Buffer
		encodeJS(&b, coerced, order, "", "", 0)
		return json.RawMessage(b.Bytes()), nil
	}
	var msg strings.Builder
	msg.WriteString("Validation failed for tool \"" + tool + "\":\n")
	sortIssues(chk.issues, order)
	if len(chk.issues) == 0 {
		msg.WriteString("Unknown validation error")
	}
	for i, is := range chk.issues {
		if i > 0 {
			msg.WriteByte('\n')
		}
		fmt.Fprintf(&msg, "  - %s: %s", is.path(), is.message)
	}
	msg.WriteString("\n\nReceived arguments:\n")
	var pretty bytes.Buffer
	encodeJS(&pretty, value, order, "", "  ", 0)
	msg.Write(pretty.Bytes())
	return nil, errors.New(msg.String())
}
