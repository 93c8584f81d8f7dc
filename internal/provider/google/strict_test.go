package google

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/pi16fixture"
)

// strictSchema makes the schemas pi 1.6's makeStrictJsonSchema makes (testdata/strict-schemas.json:
// pi's built-in tools and a few more, run through pi-ai's own function), and refuses the ones it
// refuses.
func TestStrictSchemaIsPis(t *testing.T) {
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
		got, ok := strictSchema(c.Parameters)
		if string(c.Strict) == "null" {
			if ok {
				t.Errorf("%s: made strict, pi refuses it", c.Name)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: refused, pi makes it strict", c.Name)
			continue
		}
		gotJSON, _ := json.Marshal(got)
		g, _ := pi16fixture.Canonical(gotJSON)
		w, _ := pi16fixture.Canonical(c.Strict)
		if g != w {
			t.Errorf("%s:\n got %s\nwant %s", c.Name, g, w)
		}
	}
}

// On Gemini 3 a tool that prefers strict sampling goes with its strict schema and the VALIDATED mode;
// on Gemini 2.5 as it is.
func TestStrictToolsOnGemini3(t *testing.T) {
	tool := provider.ToolDefinition{Name: "read", Description: "Read a file",
		Parameters:          json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"number"}},"required":["path"]}`),
		ConstrainedSampling: json.RawMessage(`{"type":"json_schema","strict":"prefer"}`)}
	for _, tc := range []struct {
		id, want string
		strict   bool
	}{
		{"gemini-3-pro-preview", `"parametersJsonSchema":{"additionalProperties":false,"properties":{"limit":{"anyOf":[{"type":"number"},{"type":"null"}]},"path":{"type":"string"}},"required":["path","limit"],"type":"object"}`, true},
		{"gemini-2.5-pro", `"parametersJsonSchema":{"properties":{"limit":{"type":"number"},"path":{"type":"string"}},"required":["path"],"type":"object"}`, false},
	} {
		m := gemini(tc.id)
		body := sent(t, m, &provider.Request{Tools: []provider.ToolDefinition{tool}, Messages: []provider.Message{provider.NewUserMessage("hi")},
			Options: provider.StreamOptions{APIKey: "k"}})
		if !strings.Contains(body, tc.want) {
			t.Errorf("%s: body lacks %s\nbody: %s", tc.id, tc.want, body)
		}
		if got := strings.Contains(body, `"toolConfig":{"functionCallingConfig":{"mode":"VALIDATED"}}`); got != tc.strict {
			t.Errorf("%s: VALIDATED mode %v, want %v", tc.id, got, tc.strict)
		}
	}
}
