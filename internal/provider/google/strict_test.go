package google

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

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
