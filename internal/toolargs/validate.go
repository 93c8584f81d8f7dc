package toolargs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Schema is one tool's compiled parameter schema: the decoded document (for coercion, which walks the
// schema as written) and its compiled nodes. It is safe for concurrent use.
type Schema struct {
	// mu guards doc.nodes, which a validation may still add to (see node).
	mu   sync.Mutex
	doc  *schemaDoc
	root *schemaNode
}

// Compile reads a tool's parameter schema. Empty or null parameters are the schema {}, which accepts
// any arguments. A schema that is not valid JSON, or that uses a keyword wrongly, is an error that
// says where (`at "/properties/n/minimum": must be a number`); schemas arriving at runtime from
// extensions and MCP servers go through here, so nothing a schema says may panic.
func Compile(params json.RawMessage) (*Schema, error) {
	params = bytes.TrimSpace(params)
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	doc, err := compileSchema(params)
	if err != nil {
		return nil, err
	}
	return &Schema{doc: doc, root: doc.nodes[""]}, nil
}

// node is the compiled subschema at the JSON pointer ptr ("" is the root), compiling it if the
// compiler has not.
func (s *Schema) node(ptr string) (*schemaNode, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doc.at(ptr)
}

// check reports whether v is valid against the schema at the JSON pointer ptr. A branch that does not
// compile never matches.
func (s *Schema) check(ptr string, v any) bool {
	n, err := s.node(ptr)
	return err == nil && matches(n, v, nil, nil)
}

// Validate coerces and validates the arguments of a call of tool (empty arguments are {}). It returns
// the arguments the tool receives (args itself when coercion changed nothing), or an error whose text
// is pi's: "Validation failed for tool ..." with one line per problem and the arguments received.
func (s *Schema) Validate(tool string, args json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	value, order, err := decodeOrdered(args)
	if err != nil {
		return nil, fmt.Errorf("Invalid arguments for tool %q: %w", tool, err)
	}
	c := coercer{schema: s}
	coerced, changed := c.coerce(deepCopy(value), s.doc.doc, "")
	chk := checker{}
	if chk.check(s.root, coerced, nil, nil) {
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

// Cache validates calls of tools whose schemas it is given with each call, compiling each distinct
// schema once (the loop sees a tool's definition anew every turn). The zero value is ready for use, and
// it is safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	schemas map[string]compiled
}

// compiled is the outcome of compiling one schema text: a schema that does not compile stays an error.
type compiled struct {
	schema *Schema
	err    error
}

// Validate is Schema.Validate for the schema params, which is compiled on first use. A schema that
// does not compile fails every call with pi's "Invalid parameter schema for tool ..." text.
func (c *Cache) Validate(tool string, params, args json.RawMessage) (json.RawMessage, error) {
	s, err := c.compile(params)
	if err != nil {
		return nil, fmt.Errorf("Invalid parameter schema for tool %q: %w", tool, err)
	}
	return s.Validate(tool, args)
}

func (c *Cache) compile(params json.RawMessage) (*Schema, error) {
	key := bytes.TrimSpace(params)
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.schemas[string(key)]; ok { // a lookup that does not copy key
		return r.schema, r.err
	}
	if c.schemas == nil {
		c.schemas = map[string]compiled{}
	}
	s, err := Compile(params)
	c.schemas[string(key)] = compiled{schema: s, err: err}
	return s, err
}
