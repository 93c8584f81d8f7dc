package toolargs

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestValidateArguments(t *testing.T) {
	obj := func(props string, extra ...string) string {
		return `{"type":"object","properties":{` + props + `}` + strings.Join(extra, "") + `}`
	}
	tests := []struct {
		name    string
		schema  string
		args    string
		want    string   // the arguments Execute receives
		wantErr []string // the "  - path: message" lines
	}{
		{name: "valid arguments are passed as they came", schema: obj(`"n":{"type":"number"}`), args: `{"n":1.0, "x":"<"}`, want: `{"n":1.0, "x":"<"}`},
		{name: "number to string", schema: obj(`"s":{"type":"string"}`), args: `{"s":12.50}`, want: `{"s":"12.5"}`},
		{name: "boolean to string", schema: obj(`"s":{"type":"string"}`), args: `{"s":false}`, want: `{"s":"false"}`},
		{name: "null to string", schema: obj(`"s":{"type":"string"}`), args: `{"s":null}`, want: `{"s":""}`},
		{name: "string to integer", schema: obj(`"n":{"type":"integer"}`), args: `{"n":"5"}`, want: `{"n":5}`},
		{name: "decimal string is not an integer", schema: obj(`"n":{"type":"integer"}`), args: `{"n":"5.5"}`, wantErr: []string{"n: must be integer"}},
		{name: "string to number with spaces", schema: obj(`"n":{"type":"number"}`), args: `{"n":" 3.25 "}`, want: `{"n":3.25}`},
		{name: "hex string to number", schema: obj(`"n":{"type":"number"}`), args: `{"n":"0x10"}`, want: `{"n":16}`},
		{name: "boolean to number", schema: obj(`"n":{"type":"number"}`), args: `{"n":true}`, want: `{"n":1}`},
		{name: "non-numeric string stays", schema: obj(`"n":{"type":"number"}`), args: `{"n":"abc"}`, wantErr: []string{"n: must be number"}},
		{name: "string to boolean", schema: obj(`"b":{"type":"boolean"}`), args: `{"b":"true"}`, want: `{"b":true}`},
		{name: "number to boolean", schema: obj(`"b":{"type":"boolean"}`), args: `{"b":0}`, want: `{"b":false}`},
		{name: "other strings are not booleans", schema: obj(`"b":{"type":"boolean"}`), args: `{"b":"yes"}`, wantErr: []string{"b: must be boolean"}},
		{name: "empty string to null", schema: obj(`"z":{"type":"null"}`), args: `{"z":""}`, want: `{"z":null}`},
		{name: "type union takes the first type that converts", schema: obj(`"s":{"type":["string","null"]}`), args: `{"s":5}`, want: `{"s":"5"}`},
		{name: "type union member is kept", schema: obj(`"s":{"type":["number","string"]}`), args: `{"s":"5"}`, want: `{"s":"5"}`},
		{name: "anyOf takes the branch that validates", schema: obj(`"v":{"anyOf":[{"type":"number"},{"type":"boolean"}]}`), args: `{"v":"true"}`, want: `{"v":true}`},
		{name: "anyOf failure", schema: obj(`"v":{"anyOf":[{"type":"number"},{"type":"boolean"}]}`), args: `{"v":"x"}`, wantErr: []string{"v: must match a schema in anyOf"}},
		{name: "array items are coerced", schema: obj(`"l":{"type":"array","items":{"type":"integer"}}`), args: `{"l":["1",2,"3"]}`, want: `{"l":[1,2,3]}`},
		{
			name:   "nested objects keep key order",
			schema: obj(`"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}}}}`),
			args:   `{"edits":[{"oldText":1,"newText":"b"}],"path":"x"}`, want: `{"edits":[{"oldText":"1","newText":"b"}],"path":"x"}`,
		},
		{
			name:   "missing properties are named with their path",
			schema: obj(`"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["oldText","newText"]}}`),
			args:   `{"edits":[{"oldText":"a"}]}`, wantErr: []string{"edits.0.newText: must have required properties newText"},
		},
		{
			name: "several missing properties make one line", schema: obj(`"path":{"type":"string"},"content":{"type":"string"}`, `,"required":["path","content"]`),
			args: `{}`, wantErr: []string{"path: must have required properties path, content"},
		},
		{name: "enum", schema: obj(`"m":{"type":"string","enum":["a","b"]}`), args: `{"m":"c"}`, wantErr: []string{"m: must be equal to one of the allowed values"}},
		{name: "const", schema: obj(`"m":{"const":"a"}`), args: `{"m":"c"}`, wantErr: []string{"m: must be equal to constant"}},
		{name: "minimum", schema: obj(`"n":{"type":"number","minimum":1}`), args: `{"n":0}`, wantErr: []string{"n: must be >= 1"}},
		{name: "maximum", schema: obj(`"n":{"type":"number","maximum":10.5}`), args: `{"n":11}`, wantErr: []string{"n: must be <= 10.5"}},
		{name: "exclusive bounds", schema: obj(`"n":{"type":"number","exclusiveMinimum":0}`), args: `{"n":0}`, wantErr: []string{"n: must be > 0"}},
		{name: "minItems", schema: obj(`"l":{"type":"array","minItems":1}`), args: `{"l":[]}`, wantErr: []string{"l: must not have fewer than 1 items"}},
		{name: "maxItems", schema: obj(`"l":{"type":"array","maxItems":1}`), args: `{"l":[1,2]}`, wantErr: []string{"l: must not have more than 1 items"}},
		{name: "minLength", schema: obj(`"s":{"type":"string","minLength":2}`), args: `{"s":"a"}`, wantErr: []string{"s: must not have fewer than 2 characters"}},
		{name: "pattern", schema: obj(`"s":{"type":"string","pattern":"^a"}`), args: `{"s":"b"}`, wantErr: []string{`s: must match pattern "^a"`}},
		{name: "type list in the schema's order", schema: obj(`"s":{"type":["string","null"]}`), args: `{"s":[]}`, wantErr: []string{"s: must be either string or null"}},
		{name: "additional properties", schema: obj(`"a":{"type":"string"}`, `,"additionalProperties":false`), args: `{"a":"x","b":1}`, wantErr: []string{"root: must not have additional properties"}},
		{name: "wrong type of a property", schema: obj(`"a":{"type":"array"}`), args: `{"a":{"x":1}}`, wantErr: []string{"a: must be array"}},
		{name: "no schema accepts anything", schema: ``, args: `{"a":1}`, want: `{"a":1}`},
		{
			name:   "errors follow the order the model sent the properties",
			schema: obj(`"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"integer"}`, `,"required":["d"]`),
			args:   `{"c":"x","a":"y","b":1}`,
			wantErr: []string{
				"d: must have required properties d",
				"c: must be integer",
				"a: must be integer",
			},
		},
	}
	v := &Cache{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := v.Validate("tool", json.RawMessage(tc.schema), json.RawMessage(tc.args))
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("no error; got %s", got)
				}
				lines := make([]string, len(tc.wantErr))
				for i, l := range tc.wantErr {
					lines[i] = "  - " + l
				}
				var pretty bytes.Buffer
				value, order, _ := decodeOrdered([]byte(tc.args))
				encodeJS(&pretty, value, order, "", "  ", 0)
				want := "Validation failed for tool \"tool\":\n" + strings.Join(lines, "\n") + "\n\nReceived arguments:\n" + pretty.String()
				if err.Error() != want {
					t.Fatalf("error:\n%s\nwant:\n%s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("args %s, want %s", got, tc.want)
			}
		})
	}
}

func TestInvalidSchema(t *testing.T) {
	v := &Cache{}
	if _, err := v.Validate("t", json.RawMessage(`{"type":"object"`), json.RawMessage(`{}`)); err == nil ||
		!strings.HasPrefix(err.Error(), `Invalid parameter schema for tool "t"`) {
		t.Fatalf("err %v", err)
	}
	if _, err := v.Validate("t", json.RawMessage(`{"type":"nonsense"}`), json.RawMessage(`{}`)); err == nil {
		t.Fatal("a schema with an unknown type compiled")
	}
}

func TestReceivedArgumentsAreJSONStringifyOutput(t *testing.T) {
	value, order, err := decodeOrdered([]byte(`{"z":{"b":[1,2.0,"x<y\u2028"],"a":true},"c":{},"d":[],"e":null,"f":1e-7,"g":"\u0007"}`))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	encodeJS(&b, value, order, "", "  ", 0)
	want := "{\n  \"z\": {\n    \"b\": [\n      1,\n      2,\n      \"x<y\u2028\"\n    ],\n    \"a\": true\n  },\n" +
		"  \"c\": {},\n  \"d\": [],\n  \"e\": null,\n  \"f\": 1e-7,\n  \"g\": \"\\u0007\"\n}"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	encodeJS(&b, value, order, "", "", 0)
	if b.String() != `{"z":{"b":[1,2,"x<y`+"\u2028"+`"],"a":true},"c":{},"d":[],"e":null,"f":1e-7,"g":"\u0007"}` {
		t.Fatalf("compact %s", b.String())
	}
	if _, _, err := decodeOrdered([]byte(`{"a":1} {}`)); err == nil {
		t.Fatal("trailing data accepted")
	}
}

func TestJSNumbers(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0", math.Copysign(0, -1): "0", 1: "1", -1.5: "-1.5", 0.1: "0.1", 1e21: "1e+21", 1e-7: "1e-7",
		1.5e-10: "1.5e-10", 1.2345678901234568e20: "123456789012345680000", 1e300: "1e+300", math.Inf(1): "null",
	} {
		if got := jsNumberString(f); got != want {
			t.Errorf("jsNumberString(%v) = %s, want %s", f, got, want)
		}
	}
	for s, want := range map[string]float64{
		" 42 ": 42, "1e3": 1000, ".5": 0.5, "5.": 5, "+5": 5, "-2.5": -2.5, "0x1F": 31, "0b11": 3, "0o17": 15,
		"Infinity": math.Inf(1), "1e400": math.Inf(1),
	} {
		if got, ok := jsStringToNumber(s); !ok || got != want {
			t.Errorf("Number(%q) = %v %v, want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"abc", "1_000", "0x", "-0x10", "1.2.3", "inf", "NaN", "0x1p3"} {
		if got, ok := jsStringToNumber(s); ok {
			t.Errorf("Number(%q) = %v, want NaN", s, got)
		}
	}
}

func TestCoercionCorners(t *testing.T) {
	v := &Cache{}
	tests := []struct{ schema, args, want string }{
		{`{"type":"object","additionalProperties":{"type":"number"}}`, `{"a":"1","b":2}`, `{"a":1,"b":2}`},
		{`{"type":"object","properties":{"t":{"type":"array","items":[{"type":"string"},{"type":"boolean"}]}}}`, `{"t":[1,"false",3]}`, `{"t":["1",false,3]}`},
		{`{"type":"object","properties":{"n":{"type":"number"}}}`, `{"n":null}`, `{"n":0}`},
		{`{"type":"object","properties":{"n":{"type":["integer","boolean"]}}}`, `{"n":"1"}`, `{"n":1}`},
		{`{"type":"object","properties":{"b":{"type":"boolean"}}}`, `{"b":null}`, `{"b":false}`},
		{`{"type":"object","properties":{"a/b~":{"type":"string"}}}`, `{"a/b~":1}`, `{"a/b~":"1"}`},
		{`{"allOf":[{"type":"object","properties":{"n":{"type":"integer"}}}]}`, `{"n":"4"}`, `{"n":4}`},
		{`{"type":"object","properties":{"o":{"oneOf":[{"type":"integer"},{"type":"array"}]}}}`, `{"o":"9"}`, `{"o":9}`},
	}
	for _, tc := range tests {
		got, err := v.Validate("t", json.RawMessage(tc.schema), json.RawMessage(tc.args))
		if err != nil || string(got) != tc.want {
			t.Errorf("%s with %s: %s %v, want %s", tc.schema, tc.args, got, err, tc.want)
		}
	}
}
