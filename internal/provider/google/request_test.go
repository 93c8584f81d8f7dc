package google

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	gt "github.com/pi-go/pi-go/internal/provider/google/googletest"
	"github.com/pi-go/pi-go/internal/provider/loopback"
	"github.com/pi-go/pi-go/internal/provider/pi16fixture"
)

// sent streams req against a loopback server and returns the body the SDK sent, canonical.
func sent(t *testing.T, m *provider.Model, req *provider.Request) string {
	t.Helper()
	s := loopback.New(t, loopback.SSE(gt.NewStream("r", m.ID, 5).Finish("STOP", gt.Usage{Candidates: 1}, gt.Text("ok", ""))))
	m.BaseURL = s.URL + "/v1beta"
	req.Model = m
	_, msg := collect(t, context.Background(), req)
	if msg.StopReason == provider.StopReasonError {
		t.Fatalf("%s", msg.ErrorMessage)
	}
	body, err := pi16fixture.Canonical(s.Body(0))
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func gemini(id string) *provider.Model {
	return &provider.Model{ID: id, API: provider.APIGoogleGenerativeAI, Provider: "google", Reasoning: true,
		Input: []string{"text", "image"}, ContextWindow: 1048576, MaxTokens: 65536}
}

func history(m *provider.Model) []provider.Message {
	args := json.RawMessage(`{"path":"a.png"}`)
	return []provider.Message{
		provider.NewUserMessage("look"),
		&provider.AssistantMessage{API: m.API, Provider: m.Provider, Model: m.ID, StopReason: provider.StopReasonToolUse,
			Content: []provider.Content{
				{Type: provider.ContentThinking, Thinking: "mine", ThinkingSignature: "c2ln"},
				{Type: provider.ContentText, Text: "", TextSignature: "bm90LWJhc2U2NA"}, // not base64 (length): dropped, and the empty text with it
				{Type: provider.ContentToolCall, ID: "call.1", Name: "read", Arguments: args, ThoughtSignature: "Y2FsbA=="}}},
		&provider.ToolResultMessage{ToolCallID: "call.1", ToolName: "read", IsError: true,
			Content: []provider.Content{provider.ImageContent("AAAA", "image/png")}},
		&provider.AssistantMessage{API: provider.APIAnthropicMessages, Provider: "anthropic", Model: "claude", StopReason: provider.StopReasonStop,
			Content: []provider.Content{{Type: provider.ContentThinking, Thinking: "theirs", ThinkingSignature: "xyz"}, provider.TextContent("done")}},
		provider.NewUserMessage("again"),
	}
}

func TestGemini3Request(t *testing.T) {
	m := gemini("gemini-3-pro-preview")
	req := &provider.Request{Messages: history(m), Options: provider.StreamOptions{APIKey: "k", Reasoning: provider.ThinkingHigh}}
	body := sent(t, m, req)
	for _, want := range []string{
		`{"parts":[{"text":"mine","thought":true,"thoughtSignature":"c2ln"},{"functionCall":{"args":{"path":"a.png"},"id":"call.1","name":"read"},"thoughtSignature":"Y2FsbA=="}],"role":"model"}`,
		`{"parts":[{"functionResponse":{"id":"call.1","name":"read","parts":[{"inlineData":{"data":"AAAA","mimeType":"image/png"}}],"response":{"error":"(see attached image)"}}}],"role":"user"}`,
		`{"parts":[{"text":"done"}],"role":"model"}`, // another model's thinking is dropped (pi 1.6)
		`"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"HIGH"}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s\nbody: %s", want, body)
		}
	}
}

func TestGemini25ImageResult(t *testing.T) {
	m := gemini("gemini-2.5-pro")
	req := &provider.Request{Messages: history(m), Options: provider.StreamOptions{APIKey: "k", Reasoning: provider.ThinkingMinimal}}
	body := sent(t, m, req)
	for _, want := range []string{
		`{"functionCall":{"args":{"path":"a.png"},"name":"read"}`,
		`{"parts":[{"functionResponse":{"name":"read","response":{"error":"(see attached image)"}}}],"role":"user"},{"parts":[{"text":"Tool result image:"},{"inlineData":{"data":"AAAA","mimeType":"image/png"}}],"role":"user"}`,
		`"thinkingConfig":{"includeThoughts":true,"thinkingBudget":128}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s\nbody: %s", want, body)
		}
	}
}

func TestThinkingConfig(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		id    string
		level provider.ThinkingLevel
		tmap  map[provider.ThinkingLevel]*string
		want  string
	}{
		{"gemini-2.5-flash", provider.ThinkingOff, nil, `{"thinkingBudget":0}`},
		{"gemini-2.5-flash", provider.ThinkingHigh, nil, `{"includeThoughts":true,"thinkingBudget":24576}`},
		{"gemini-2.5-flash-lite", provider.ThinkingMinimal, nil, `{"includeThoughts":true,"thinkingBudget":512}`},
		{"gemini-2.0-flash-thinking", provider.ThinkingLow, nil, `{"includeThoughts":true,"thinkingBudget":-1}`},
		{"gemini-3-flash-preview", provider.ThinkingMedium, nil, `{"includeThoughts":true,"thinkingLevel":"MEDIUM"}`},
		{"gemini-3-pro-preview", provider.ThinkingOff, map[provider.ThinkingLevel]*string{provider.ThinkingOff: nil, provider.ThinkingMinimal: nil}, `{"thinkingLevel":"LOW"}`},
		{"gemini-3-pro-preview", provider.ThinkingXHigh, map[provider.ThinkingLevel]*string{provider.ThinkingXHigh: str("HIGH")}, `{"includeThoughts":true,"thinkingLevel":"HIGH"}`},
	} {
		m := gemini(tc.id)
		m.ThinkingLevelMap = tc.tmap
		cfg, err := thinkingConfig(m, tc.level)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.id, tc.level, err)
		}
		got, _ := json.Marshal(cfg)
		if string(got) != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.id, tc.level, got, tc.want)
		}
	}
	m := gemini("gemini-3-pro-preview")
	m.ThinkingLevelMap = map[provider.ThinkingLevel]*string{provider.ThinkingHigh: str("extreme")}
	if _, err := thinkingConfig(m, provider.ThinkingHigh); err == nil ||
		err.Error() != "Unsupported Google thinking level mapping for google/gemini-3-pro-preview: high -> extreme" {
		t.Errorf("bad mapping: %v", err)
	}
	m.Reasoning = false
	if cfg, _ := thinkingConfig(m, provider.ThinkingHigh); cfg != nil {
		t.Errorf("model without reasoning: %+v", cfg)
	}
}

func TestConstAsEnum(t *testing.T) {
	var schema any
	json.Unmarshal([]byte(`{"type":"object","properties":{"const":{"type":"string","const":"x"},"n":{"anyOf":[{"const":3},{"const":true}]}}}`), &schema)
	got, _ := json.Marshal(constAsEnum(schema, false))
	if want := `{"properties":{"const":{"enum":["x"],"type":"string"},"n":{"anyOf":[{"enum":[3]},{"const":true}]}},"type":"object"}`; string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
