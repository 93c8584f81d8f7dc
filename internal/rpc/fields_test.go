package rpc

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// agreeWithEncodingJSON checks splitObject and unquoteJSON against encoding/json on a valid document.
func agreeWithEncodingJSON(t *testing.T, doc string) {
	t.Helper()
	var want map[string]json.RawMessage
	if err := json.Unmarshal([]byte(doc), &want); err != nil {
		return // not an object
	}
	got, err := splitObject(doc)
	if err != nil {
		t.Fatalf("%q: %v", doc, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d members, encoding/json has %d", doc, len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok || !bytes.Equal(bytes.TrimSpace([]byte(g)), bytes.TrimSpace(w)) {
			t.Fatalf("%q: member %q = %q, encoding/json has %q", doc, k, g, w)
		}
		var ws string
		if w[0] == '"' && json.Unmarshal(w, &ws) == nil {
			if gs, ok := unquoteJSON(g); !ok || gs != ws {
				t.Fatalf("%q: %s unquotes to %q, encoding/json to %q", doc, g, gs, ws)
			}
		}
		var arr []json.RawMessage
		if w[0] == '[' && json.Unmarshal(w, &arr) == nil {
			elems, err := splitArray(g)
			if err != nil || len(elems) != len(arr) {
				t.Fatalf("%q: array %s split into %q (%v)", doc, g, elems, err)
			}
		}
	}
}

func TestSplitObjectAgreesWithEncodingJSON(t *testing.T) {
	for _, doc := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a" : "x\"y\\" , "b":[1,{"c":"]}"}],"d":null}`,
		`{"a":1,"a":2}`, `{"k\u00e9y":"v\ud83d\ude00 \ud800 \/ \b\f\n\r\t"}`,
		`{"images":[{"type":"image","data":"aGk=","mimeType":"image/png"}, {} ,[]]}`,
		`{"n":-1.5e+10,"t":true,"f":false,"s":"\\\\"}`, "{\"sep\":\"\u2028\u2029\"}",
	} {
		if err := checkJSON(doc); err != nil {
			t.Fatalf("%s is not valid", doc)
		}
		agreeWithEncodingJSON(t, doc)
	}
}

func TestSplittersRefuseMalformedInput(t *testing.T) {
	for _, doc := range []string{``, `{`, `{"a"}`, `{"a":}`, `{"a":1`, `{"a":1,}`, `{"a":"x}`, `[1,`, `{"a":1 "b":2}`} {
		if _, err := splitObject(doc); err == nil {
			t.Errorf("splitObject(%q) accepted it", doc)
		}
	}
	for _, doc := range []string{`[`, `[1`, `[1,`, `[1 2]`, `{}`} {
		if _, err := splitArray(doc); err == nil {
			t.Errorf("splitArray(%q) accepted it", doc)
		}
	}
	for _, raw := range []string{`"`, `x`, `"\"`, `"\x"`, `"\u12"`, `"\u12g4"`} {
		if _, ok := unquoteJSON(raw); ok {
			t.Errorf("unquoteJSON(%q) accepted it", raw)
		}
	}
}

func FuzzSplitObject(f *testing.F) {
	f.Add(`{"id":"x","type":"prompt","message":"hi \"there\" \u00e9","images":[{"type":"image","data":"aGk="}]}`)
	f.Add(`{"a":[1,2,{"b":"}"}],"c":"\\"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		if !utf8.ValidString(doc) {
			return
		}
		if checkJSON(doc) != nil {
			_, _ = splitObject(doc) // must not panic on anything
			return
		}
		agreeWithEncodingJSON(t, doc)
	})
}
