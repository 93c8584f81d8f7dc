package strictschema

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// Make makes the schemas pi 1.6's makeStrictJsonSchema makes (testdata/strict-schemas.json: pi's
// built-in tools and a few more, run through pi-ai's own function), member for member in pi's order,
// and refuses the ones it refuses.
func TestMakeIsPis(t *testing.T) {
	raw, err := os.ReadFile("testdata/strict-schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
		Strict     json.RawMessage `json:"strict"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		schema, err := Parse(c.Parameters)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		before := string(schema.AppendJSON(nil))
		got, err := Make(schema, nil)
		if string(schema.AppendJSON(nil)) != before {
			t.Errorf("%s: Make changed its input", c.Name)
		}
		if string(c.Strict) == "null" {
			if err == nil {
				t.Errorf("%s: made strict, pi refuses it", c.Name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: refused (%v), pi makes it strict", c.Name, err)
			continue
		}
		var want bytes.Buffer
		if err := json.Compact(&want, c.Strict); err != nil {
			t.Fatal(err)
		}
		if g := got.AppendJSON(nil); string(g) != want.String() {
			t.Errorf("%s:\n got %s\nwant %s", c.Name, g, want.String())
		}
	}
}

// A provider's own unsupported keywords make a schema refused (Anthropic's list, say).
func TestMakeRefusesAProvidersKeywords(t *testing.T) {
	schema, err := Parse([]byte(`{"type":"object","properties":{"n":{"type":"number","minimum":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Make(schema, nil); err != nil {
		t.Fatalf("without a hook: %v", err)
	}
	_, err = Make(schema, func(key string, _ *Node) bool { return key == "minimum" })
	if err == nil {
		t.Fatal("minimum accepted")
	}
}

func TestWanted(t *testing.T) {
	for _, c := range []struct {
		in             string
		wanted, needed bool
	}{
		{``, false, false},
		{`{"type":"grammar"}`, false, false},
		{`{"type":"json_schema"}`, true, false},
		{`{"type":"json_schema","strict":"prefer"}`, true, false},
		{`{"type":"json_schema","strict":"require"}`, true, true},
	} {
		w, r := Wanted(json.RawMessage(c.in))
		if w != c.wanted || r != c.needed {
			t.Errorf("%s: %v %v", c.in, w, r)
		}
	}
}
