package compaction

import (
	"reflect"
	"strings"
	"testing"
)

// The expectations below were produced by node (v20) from the same input.
const jsProbe = `{"b":1,"2":2,"a":{"10":1,"1":2},"1":3, "n":[1.0,1e21,1e-7,-0,0.1,123456789012345678901234,1.5e300,2e-6, 1E2], "s":"a\u2028<>&\"\\\n\t\u0001\u00e9😀", "b":"dup", "4294967295": 1, "4294967294": 0, "01": 5}`

func TestJSStringifyMatchesJavaScript(t *testing.T) {
	got, err := jsStringify([]byte(jsProbe))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"1\":3,\"2\":2,\"4294967294\":0,\"b\":\"dup\",\"a\":{\"1\":2,\"10\":1},\"n\":[1,1e+21,1e-7,0,0.1,1.2345678901234569e+23,1.5e+300,0.000002,100],\"s\":\"a\u2028<>&\\\"\\\\\\n\\t\\u0001é😀\",\"4294967295\":1,\"01\":5}"
	if string(got) != want {
		t.Fatalf("stringify:\n got %s\nwant %s", got, want)
	}
	if n := jsLen(string(got)); n != 178 {
		t.Errorf("length %d, want 178", n)
	}
	if n := argumentsLen([]byte(jsProbe)); n != 178 {
		t.Errorf("argumentsLen %d, want 178", n)
	}
}

func TestJSObjectEntriesOrder(t *testing.T) {
	members, err := jsObjectEntries([]byte(jsProbe))
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, m := range members {
		parts = append(parts, m.key+"="+string(m.value))
	}
	want := "1=3, 2=2, 4294967294=0, b=\"dup\", a={\"1\":2,\"10\":1}, n=[1,1e+21,1e-7,0,0.1,1.2345678901234569e+23,1.5e+300,0.000002,100], s=\"a\u2028<>&\\\"\\\\\\n\\t\\u0001é😀\", 4294967295=1, 01=5"
	if got := strings.Join(parts, ", "); got != want {
		t.Fatalf("entries:\n got %s\nwant %s", got, want)
	}
}

func TestJSONInvalid(t *testing.T) {
	for _, in := range []string{``, `[]`, `"x"`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1} x`, `{"a":tru}`, `{"a":01}`, `{"a":"x}`, `{"a":[1,]}`} {
		if _, err := jsObjectEntries([]byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	if n := argumentsLen([]byte(`not json`)); n != 2 {
		t.Errorf("invalid arguments count as {}: %d", n)
	}
	if n := argumentsLen(nil); n != 2 {
		t.Errorf("missing arguments count as {}: %d", n)
	}
}

func TestJSLengthSliceAndSort(t *testing.T) {
	if n := jsLen("é😀"); n != 3 {
		t.Errorf("jsLen = %d, want 3", n)
	}
	if n := jsLen("abc"); n != 3 {
		t.Errorf("jsLen ascii = %d", n)
	}
	if got := jsSliceHead("x😀y", 2); got != "x" {
		t.Errorf("a pair straddling the limit is left out whole: %q", got)
	}
	if got := jsSliceHead("x😀y", 1); got != "x" {
		t.Errorf("jsSliceHead 1 = %q", got)
	}
	if got := jsSliceHead("x😀y", 3); got != "x😀" {
		t.Errorf("jsSliceHead 3 = %q", got)
	}
	if got := jsSliceHead("abc", 10); got != "abc" {
		t.Errorf("jsSliceHead past the end = %q", got)
	}
	ss := []string{"b", "a", "\uff01", "😀", "ab", "a\u00e9"}
	sortJS(ss)
	if want := []string{"a", "ab", "aé", "b", "😀", "！"}; !reflect.DeepEqual(ss, want) {
		t.Errorf("sort = %q, want %q", ss, want)
	}
}

func TestPathArgument(t *testing.T) {
	cases := map[string]string{
		`{"path":"a.go"}`: "a.go",
		`{ "content" : "x \"path\":\"no\" }{", "n": [1, {"path": "nested"}], "path" : "b\u00e9.go" }`: "bé.go",
		`{"path":"first","path":"second"}`: "second",
		`{"path":"first","path":7}`:        "",
		`{"path":null}`:                    "",
		`{"Path":"x"}`:                     "",
		`{"other":"x"}`:                    "",
		`{}`:                               "",
		`["path","x"]`:                     "",
		`{"path":"x"`:                      "",
		`{"a":{"b":[}`:                     "",
		``:                                 "",
	}
	for in, want := range cases {
		if got := pathArgument([]byte(in)); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}
