package toolargs

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// checkValidation runs one call through the validator and compares the arguments Execute would get, or
// the "  - path: message" lines of pi's error text.
func checkValidation(t *testing.T, v *Cache, schema, args, want string, wantErr []string) {
	t.Helper()
	got, err := v.Validate("tool", json.RawMessage(schema), json.RawMessage(args))
	if wantErr == nil {
		if err != nil {
			t.Fatalf("unexpected error:\n%v", err)
		}
		if string(got) != want {
			t.Fatalf("args %s, want %s", got, want)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error; got %s", got)
	}
	lines := make([]string, len(wantErr))
	for i, l := range wantErr {
		lines[i] = "  - " + l
	}
	var pretty bytes.Buffer
	value, order, _ := decodeOrdered([]byte(args))
	encodeJS(&pretty, value, order, "", "  ", 0)
	wantText := "Validation failed for tool \"tool\":\n" + strings.Join(lines, "\n") + "\n\nReceived arguments:\n" + pretty.String()
	if err.Error() != wantText {
		t.Fatalf("error:\n%s\nwant:\n%s", err, wantText)
	}
}

func TestSchemaKeywords(t *testing.T) {
	const tree = `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},` +
		`"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"]}},"$ref":"#/$defs/node"}`
	tests := []struct {
		name, schema, args string
		want               string
		wantErr            []string
	}{
		{name: "$ref into $defs", schema: `{"$defs":{"pos":{"type":"integer","minimum":1}},"properties":{"n":{"$ref":"#/$defs/pos"}}}`,
			args: `{"n":0}`, wantErr: []string{"n: must be >= 1"}},
		// pi coerces by walking the schema as written, without following $ref.
		{name: "no coercion through $ref", schema: `{"$defs":{"pos":{"type":"integer"}},"properties":{"n":{"$ref":"#/$defs/pos"}}}`,
			args: `{"n":"2"}`, wantErr: []string{"n: must be integer"}},
		{name: "draft-07 definitions", schema: `{"definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s"}}}`,
			args: `{"a":[]}`, wantErr: []string{"a: must be string"}},
		{name: "$ref siblings apply", schema: `{"$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s","minLength":3}}}`,
			args: `{"a":"ab"}`, wantErr: []string{"a: must not have fewer than 3 characters"}},
		{name: "percent-encoded and escaped pointer", schema: `{"$defs":{"a/b c":{"type":"boolean"}},"properties":{"f":{"$ref":"#/$defs/a~1b%20c"}}}`,
			args: `{"f":"true"}`, wantErr: []string{"f: must be boolean"}},
		{name: "recursive schema", schema: tree, args: `{"name":"a","children":[{"name":"b","children":[{}]}]}`,
			wantErr: []string{"children.0.children.0.name: must have required properties name"}},
		{name: "recursive schema accepts", schema: tree, args: `{"name":"a","children":[{"name":"b"}]}`,
			want: `{"name":"a","children":[{"name":"b"}]}`},
		{name: "a schema that is its own reference fails", schema: `{"$defs":{"x":{"$ref":"#/$defs/x"}},"$ref":"#/$defs/x"}`,
			args: `{}`, wantErr: []string{"root: the schema refers to itself without end"}},
		{name: "oneOf matching twice", schema: `{"properties":{"v":{"oneOf":[{"type":"integer"},{"type":"number"}]}}}`,
			args: `{"v":1}`, wantErr: []string{"v: must match exactly one schema in oneOf"}},
		{name: "oneOf matching once", schema: `{"properties":{"v":{"oneOf":[{"type":"integer"},{"type":"number"}]}}}`,
			args: `{"v":1.5}`, want: `{"v":1.5}`},
		{name: "not", schema: `{"properties":{"v":{"not":{"type":"string"}}}}`, args: `{"v":"x"}`, wantErr: []string{"v: must not be valid"}},
		{name: "allOf reports every branch in keyword order", schema: `{"properties":{"v":{"allOf":[{"multipleOf":2},{"minimum":2}]}}}`,
			args: `{"v":1}`, wantErr: []string{"v: must be >= 2", "v: must be multiple of 2"}},
		{name: "if then", schema: `{"properties":{"kind":{"type":"string"},"n":{}},"if":{"properties":{"kind":{"const":"num"}}},` +
			`"then":{"properties":{"n":{"type":"number"}}},"else":{"properties":{"n":{"type":"string"}}}}`,
			args: `{"kind":"num","n":"x"}`, wantErr: []string{"n: must be number"}},
		{name: "if else", schema: `{"properties":{"kind":{"type":"string"},"n":{}},"if":{"properties":{"kind":{"const":"num"}}},` +
			`"then":{"properties":{"n":{"type":"number"}}},"else":{"properties":{"n":{"type":"string"}}}}`,
			args: `{"kind":"s","n":1}`, wantErr: []string{"n: must be string"}},
		{name: "prefixItems and items false", schema: `{"properties":{"p":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}}}`,
			args: `{"p":["a","b",3]}`, wantErr: []string{"p.1: must be integer", "p.2: schema is false"}},
		{name: "draft-07 tuple is coerced and bounded", schema: `{"type":"object","properties":{"p":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}}}`,
			args: `{"p":["a","2",3]}`, wantErr: []string{"p: last 1 additionalItem(s) not allowed"}},
		{name: "draft-07 tuple coerced", schema: `{"type":"object","properties":{"p":{"type":"array","items":[{"type":"string"},{"type":"integer"}]}}}`,
			args: `{"p":[1,"2",true]}`, want: `{"p":["1",2,true]}`},
		{name: "uniqueItems compares numbers by value", schema: `{"properties":{"l":{"type":"array","uniqueItems":true}}}`,
			args: `{"l":[{"a":1,"b":[2]},{"b":[2.0],"a":1.0}]}`, wantErr: []string{"l: must not have duplicate items"}},
		{name: "uniqueItems accepts distinct items", schema: `{"properties":{"l":{"type":"array","uniqueItems":true}}}`,
			args: `{"l":[1,"1",[1],{"a":1},null,false]}`, want: `{"l":[1,"1",[1],{"a":1},null,false]}`},
		{name: "formats", schema: `{"properties":{"d":{"type":"string","format":"date"},"e":{"type":"string","format":"email"},` +
			`"u":{"type":"string","format":"uuid"},"c":{"type":"string","format":"color"},"t":{"type":"string","format":"date-time"}}}`,
			args:    `{"d":"2024-02-30","e":"x@y.com","u":"nope","c":"?","t":"2024-02-29T23:59:60.5+01:00"}`,
			wantErr: []string{`d: must match format "date"`, `u: must match format "uuid"`}},
		{name: "dependentRequired", schema: `{"properties":{"a":{},"b":{}},"dependentRequired":{"a":["b"]}}`,
			args: `{"a":1}`, wantErr: []string{"root: must have properties b when property a is present"}},
		{name: "dependencies with a schema", schema: `{"dependencies":{"a":{"required":["c"]}}}`,
			args: `{"a":1}`, wantErr: []string{"c: must have required properties c"}},
		{name: "propertyNames", schema: `{"propertyNames":{"pattern":"^[a-z]+$"}}`,
			args: `{"ok":1,"Bad":2}`, wantErr: []string{"root: property names Bad are invalid"}},
		{name: "maxProperties", schema: `{"maxProperties":1}`, args: `{"a":1,"b":2}`, wantErr: []string{"root: must not have more than 1 properties"}},
		{name: "contains", schema: `{"properties":{"l":{"type":"array","contains":{"type":"string"}}}}`,
			args: `{"l":[1]}`, wantErr: []string{"l: must contain at least 1 valid item"}},
		{name: "patternProperties and additionalProperties", schema: `{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`,
			args: `{"x-a":1,"y":2}`, wantErr: []string{"root: must not have additional properties", "x-a: must be string"}},
		{name: "additionalProperties schema coerces", schema: `{"type":"object","properties":{"a":{}},"additionalProperties":{"type":"integer"}}`,
			args: `{"a":"1","b":"2"}`, want: `{"a":"1","b":2}`},
		{name: "nullable", schema: `{"properties":{"s":{"type":["string","null"]}}}`, args: `{"s":null}`, want: `{"s":null}`},
		{name: "lengths count code points", schema: `{"properties":{"s":{"type":"string","maxLength":2}}}`,
			args: `{"s":"ééé"}`, wantErr: []string{"s: must not have more than 2 characters"}},
		{name: "exclusiveMaximum", schema: `{"properties":{"n":{"type":"number","exclusiveMaximum":1e3}}}`,
			args: `{"n":1000}`, wantErr: []string{"n: must be < 1000"}},
		{name: "multipleOf is exact", schema: `{"properties":{"n":{"type":"number","multipleOf":0.1}}}`, args: `{"n":0.3}`, want: `{"n":0.3}`},
		{name: "integer accepts 1.0", schema: `{"properties":{"n":{"type":"integer"}}}`, args: `{"n":1.0}`, want: `{"n":1.0}`},
		{name: "enum of objects", schema: `{"properties":{"o":{"enum":[{"a":[1]},"x"]}}}`, args: `{"o":{"a":[1.0]}}`, want: `{"o":{"a":[1.0]}}`},
		{name: "boolean root true", schema: `true`, args: `{"a":1}`, want: `{"a":1}`},
		{name: "boolean root false", schema: `false`, args: `{}`, wantErr: []string{"root: schema is false"}},
		// Without "type":"object" at the root nothing is coerced (pi's coercion follows declared types).
		{name: "required before the properties, properties in the model's order",
			schema: `{"properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["c"],"additionalProperties":false}`,
			args:   `{"b":1,"z":0,"a":[]}`, wantErr: []string{
				"c: must have required properties c", "root: must not have additional properties", "b: must be string",
				"a: must be string",
			}},
	}
	v := &Cache{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkValidation(t, v, tc.schema, tc.args, tc.want, tc.wantErr) })
	}
}

func TestInvalidSchemas(t *testing.T) {
	v := &Cache{}
	for schema, want := range map[string]string{
		`{"type":[]}`:                                `at "/type": must be a type name or a non-empty array of type names`,
		`{"type":["string","string"]}`:               `at "/type": type "string" is listed twice`,
		`{"required":"a"}`:                           `at "/required": must be an array of distinct strings`,
		`{"required":["a","a"]}`:                     `at "/required": must be an array of distinct strings`,
		`{"properties":{"a":{"minLength":-1}}}`:      `at "/properties/a/minLength": must be a non-negative integer`,
		`{"properties":{"a":{"minLength":1.5}}}`:     `at "/properties/a/minLength": must be a non-negative integer`,
		`{"pattern":"("}`:                            "at \"/pattern\": invalid pattern \"(\": error parsing regexp: missing closing ): `(`",
		`{"$ref":"#/$defs/missing"}`:                 `at "/$ref": $ref "#/$defs/missing": no "/$defs/missing" in the schema`,
		`{"$ref":"other.json#/x"}`:                   `at "/$ref": $ref "other.json#/x": only references within the schema ("#/...") are supported`,
		`{"$ref":"#anchor"}`:                         `at "/$ref": $ref "#anchor": anchors are not supported, use a JSON pointer`,
		`{"properties":{"a":5}}`:                     `at "/properties/a": a schema must be an object or a boolean, not number`,
		`{"multipleOf":0}`:                           `at "/multipleOf": must be greater than 0`,
		`{"anyOf":[]}`:                               `at "/anyOf": must be a non-empty array of schemas`,
		`{"minimum":"1"}`:                            `at "/minimum": must be a number`,
		`{"definitions":{"unused":{"type":"nope"}}}`: `at "/definitions/unused/type": unknown type "nope"`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","enum":[1,1]}`: `at "/enum": must be a non-empty array of distinct values`,
		`[]`: `a schema must be an object or a boolean, not array`,
	} {
		_, err := v.Validate("t", json.RawMessage(schema), json.RawMessage(`{}`))
		wantText := `Invalid parameter schema for tool "t": ` + want
		if err == nil || err.Error() != wantText {
			t.Errorf("schema %s: error %v\nwant %s", schema, err, wantText)
		}
	}
	// Valid in one draft or the other.
	for _, schema := range []string{
		`{"items":[{"type":"string"}],"additionalItems":false}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"type":"string"}},"$defs":{"b":{"type":"nope"}}}`,
		`{"exclusiveMinimum":true,"minimum":1}`,
		`{"$id":"https://example.com/t.json","$defs":{"a":{}},"$ref":"https://example.com/t.json#/$defs/a"}`,
		`{"x-unknown-keyword":{"type":5},"description":7}`,
	} {
		if _, err := v.Validate("t", json.RawMessage(schema), json.RawMessage(`{}`)); err != nil &&
			strings.HasPrefix(err.Error(), "Invalid parameter schema") {
			t.Errorf("schema %s: %v", schema, err)
		}
	}
}

func TestFormats(t *testing.T) {
	for format, cases := range map[string]map[string]bool{
		"date-time":     {"2024-01-02T03:04:05Z": true, "2024-01-02t03:04:05.123-08:00": true, "2024-01-02 03:04:05Z": false, "2024-01-02T24:00:00Z": false, "2024-01-02T03:04:05": false},
		"date":          {"2024-02-29": true, "2023-02-29": false, "2000-02-29": true, "1900-02-29": false, "2024-13-01": false, "24-01-01": false},
		"time":          {"23:59:60Z": true, "12:00:00+05:30": true, "12:00:00": false, "12:60:00Z": false, "12:00:00.Z": false},
		"email":         {"a.b@example.com": true, "a@[127.0.0.1]": true, "a@[IPv6:::1]": true, "a@": false, "@b.c": false, "a b@c.d": false, "a..b@c.d": false},
		"hostname":      {"example.com": true, "a-b.c": true, "-a.com": false, "a_b.com": false, strings.Repeat("a", 64) + ".com": false},
		"ipv4":          {"1.2.3.4": true, "01.2.3.4": false, "1.2.3": false, "::1": false},
		"ipv6":          {"::1": true, "fe80::1%eth0": false, "1.2.3.4": false},
		"uri":           {"https://x/y?z": true, "mailto:a@b": true, "/relative": false},
		"uri-reference": {"/relative": true, "https://x": true, "%zz": false},
		"uuid":          {"550e8400-e29b-41d4-a716-446655440000": true, "550e8400e29b41d4a716446655440000": false},
		"regex":         {"^a+$": true, "(": false},
		"json-pointer":  {"": true, "/a/~0/~1": true, "a": false, "/~2": false},
	} {
		check := formatChecks[format]
		for s, want := range cases {
			if got := check(s); got != want {
				t.Errorf("%s %q: %v, want %v", format, s, got, want)
			}
		}
	}
}
