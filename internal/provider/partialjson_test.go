package provider

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRepairJSONObject(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, `{}`},
		{`[1,2]`, `{}`},
		{`{"a":1}`, `{"a":1}`},
		{`  {"a": 1} `, `{"a": 1}`},
		{`{"command": "ls -`, `{"command": "ls -"}`},
		{`{"a": [1, 2`, `{"a": [1, 2]}`},
		{`{"a": 1, "b`, `{"a": 1}`},
		{`{"a": "x\`, `{"a": "x"}`},
		{`{"a": "\u00`, `{"a": ""}`},
		// pi's repair: raw control characters and invalid escapes inside strings.
		{"{\"content\": \"line 1\nline 2\ttab\"}", `{"content": "line 1\nline 2\ttab"}`},
		{`{"path": "C:\Users\me"}`, `{"path": "C:\\Users\\me"}`},
		{"{\"content\": \"a\nb", `{"content": "a\nb"}`},
		{`{"ok": "\u00e9\n\"q\""}`, `{"ok": "\u00e9\n\"q\""}`},
	}
	for _, tt := range tests {
		if got := string(RepairJSONObject(tt.in)); got != tt.want {
			t.Errorf("RepairJSONObject(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func FuzzRepairJSONObject(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a": "b\`, "{\"a\": \"x\ny\"", `{"a": [1, {"b": "\u12`, `{"a":"\q"}`, `{`, `{"a":tr`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := RepairJSONObject(s)
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("RepairJSONObject(%q) = %s: not a JSON object: %v", s, out, err)
		}
		trimmed := strings.TrimSpace(s)
		var orig map[string]any
		if json.Unmarshal([]byte(trimmed), &orig) == nil && string(out) != trimmed {
			t.Fatalf("a valid object was changed: %q -> %s", s, out)
		}
	})
}
