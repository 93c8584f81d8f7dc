package jsonx

import (
	"encoding/json"
	"testing"
)

func TestObjectKeepsOrderAndValues(t *testing.T) {
	obj, err := ParseObject([]byte(`{"b": 1, "a": {"x": [1, 2]}, "c": "<&>"}`))
	if err != nil {
		t.Fatal(err)
	}
	obj.Set("a", json.RawMessage(`true`)) // replaced in place
	obj.Set("a<b", json.RawMessage(`null`))
	obj.Delete("b")
	obj.Delete("missing")
	got, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":true,"c":"<&>","a<b":null}`; string(got) != want {
		t.Errorf("MarshalJSON = %s, want %s", got, want)
	}
	if obj.Len() != 3 || !obj.Has("c") || obj.Has("b") {
		t.Errorf("Len %d, Has(c) %v, Has(b) %v", obj.Len(), obj.Has("c"), obj.Has("b"))
	}
	var keys []string
	for k := range obj.All() {
		keys = append(keys, k)
	}
	if len(keys) != 3 || keys[0] != "a" || keys[1] != "c" || keys[2] != "a<b" {
		t.Errorf("All keys = %q", keys)
	}
}

func TestObjectCloneIsIndependent(t *testing.T) {
	obj, _ := ParseObject([]byte(`{"a":1,"b":2}`))
	c := obj.Clone()
	c.Delete("a")
	c.Set("z", json.RawMessage(`3`))
	if got, _ := obj.MarshalJSON(); string(got) != `{"a":1,"b":2}` {
		t.Errorf("original changed: %s", got)
	}
	if got, _ := c.MarshalJSON(); string(got) != `{"b":2,"z":3}` {
		t.Errorf("clone = %s", got)
	}
}

func TestObjectMarshalIndentAsJSONStringify(t *testing.T) {
	obj, _ := ParseObject([]byte(`{"a":{"b":[1,{"c":[]}],"d":{}},"e":"x"}`))
	got, err := obj.MarshalIndent("  ")
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": {\n    \"b\": [\n      1,\n      {\n        \"c\": []\n      }\n    ],\n    \"d\": {}\n  },\n  \"e\": \"x\"\n}"
	if string(got) != want {
		t.Errorf("MarshalIndent =\n%s\nwant\n%s", got, want)
	}
	if got, _ := NewObject().MarshalIndent("\t"); string(got) != "{}" {
		t.Errorf("empty object = %q", got)
	}
}

func TestParseObjectRejectsOtherJSON(t *testing.T) {
	for _, in := range []string{``, `[]`, `"s"`, `{"a":}`, `{"a":1} {}`, `{"a":1`} {
		if _, err := ParseObject([]byte(in)); err == nil {
			t.Errorf("ParseObject(%q) accepted", in)
		}
	}
	if !IsObject([]byte(" \n{}")) || IsObject([]byte(`[]`)) || IsObject(nil) {
		t.Error("IsObject")
	}
}
