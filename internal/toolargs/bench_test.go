package toolargs

import (
	"encoding/json"
	"strings"
	"testing"
)

// The built-in edit and grep tools' schemas as the model is told them (internal/tools).
const (
	editSchema = `{"type":"object","required":["path","edits"],"properties":{` +
		`"path":{"type":"string","description":"Path to the file to edit (relative or absolute)"},` +
		`"edits":{"type":"array","items":{"type":"object","required":["oldText","newText"],"properties":{` +
		`"oldText":{"type":"string","description":"Exact text for one targeted replacement."},` +
		`"newText":{"type":"string","description":"Replacement text for this targeted edit."}},"additionalProperties":false},` +
		`"description":"One or more targeted replacements."}},"additionalProperties":false}`
	grepSchema = `{"type":"object","required":["pattern"],"properties":{` +
		`"pattern":{"type":"string"},"path":{"type":"string"},"glob":{"type":"string"},` +
		`"ignoreCase":{"type":"boolean"},"literal":{"type":"boolean"},"context":{"type":"number"},"limit":{"type":"number"}}}`
	// richSchema uses most keywords, as an MCP server's schema may.
	richSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"pos":{"type":"integer","minimum":1}},` +
		`"properties":{"id":{"type":"string","format":"uuid"},"n":{"$ref":"#/$defs/pos"},"tags":{"type":"array","items":{"type":"string","minLength":1},"uniqueItems":true,"maxItems":8},` +
		`"mode":{"enum":["a","b"]},"when":{"type":"string","format":"date-time"},"v":{"anyOf":[{"type":"number","multipleOf":0.5},{"type":"boolean"}]},` +
		`"meta":{"type":"object","patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false,"propertyNames":{"pattern":"^x-[a-z]+$"}}},` +
		`"required":["id","n"],"dependentRequired":{"when":["mode"]},"if":{"properties":{"mode":{"const":"a"}}},"then":{"required":["tags"]}}`
)

// editArgs is an edit call with three replacements of a few lines each.
var editArgs = func() string {
	var b strings.Builder
	b.WriteString(`{"path":"internal/toolargs/validate.go","edits":[`)
	for i := range 3 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"oldText":"\tif err != nil {\n\t\treturn nil, err\n\t}\n","newText":"\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"compile: %w\", err)\n\t}\n"}`)
	}
	b.WriteString(`]}`)
	return b.String()
}()

// BenchmarkValidate validates typical tool calls through a Cache, as the loop does for each call:
// valid arguments (passed on as they came), arguments that need coercion (rewritten), and a call
// missing a property (pi's error text).
func BenchmarkValidate(b *testing.B) {
	for _, bc := range []struct{ name, schema, args string }{
		{"edit", editSchema, editArgs},
		{"edit-missing", editSchema, `{"path":"a.go","edits":[{"oldText":"x"}]}`},
		{"grep-coerced", grepSchema, `{"pattern":"func \\w+","ignoreCase":"true","context":"2","limit":"50"}`},
		{"rich", richSchema, `{"id":"550e8400-e29b-41d4-a716-446655440000","n":3,"tags":["x","y"],"mode":"a","when":"2024-01-02T03:04:05Z","v":1.5,"meta":{"x-a":"b"}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var c Cache
			schema, args := json.RawMessage(bc.schema), json.RawMessage(bc.args)
			_, wantErr := c.Validate("t", schema, args)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Validate("t", schema, args); (err != nil) != (wantErr != nil) {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompile compiles a schema from its JSON text, as happens once per distinct tool schema.
func BenchmarkCompile(b *testing.B) {
	for _, bc := range []struct{ name, schema string }{{"edit", editSchema}, {"rich", richSchema}} {
		b.Run(bc.name, func(b *testing.B) {
			schema := json.RawMessage(bc.schema)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compile(schema); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
