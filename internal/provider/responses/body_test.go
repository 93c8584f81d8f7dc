package responses

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func TestShortHashIsPis(t *testing.T) {
	// Values from pi-ai 1.6's utils/hash.js.
	for in, want := range map[string]string{"item_2": "rjkytg3rl8is", "toolu_01ABCdef": "11th46g8nu9yr", "héllo😀": "1olj6nu1frhbfw", "": "k4n83c7h0j2b"} {
		if got := shortHash(in); got != want {
			t.Errorf("shortHash(%q) = %s, want %s", in, got, want)
		}
	}
}

func openaiModel() *provider.Model {
	return &provider.Model{ID: "gpt-5", API: provider.APIOpenAIResponses, Provider: "openai", BaseURL: "http://127.0.0.1:1/v1",
		Reasoning: true, Input: []string{"text"}, ContextWindow: 400000, MaxTokens: 128000}
}

func inputOf(t *testing.T, req *provider.Request) []map[string]any {
	t.Helper()
	b, err := buildBody(req)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatal(err)
	}
	return body.Input
}

// History from other models goes back as pi 1.6 sends it: their thinking dropped, tool-call ids made
// acceptable, item ids of other APIs hashed, item ids of another model of this API dropped, text
// without an item id under pi's fallback ids.
func TestForeignHistory(t *testing.T) {
	m := openaiModel()
	args := json.RawMessage(`{"command":"ls"}`)
	msgs := []provider.Message{
		provider.NewUserMessage("one"),
		&provider.AssistantMessage{API: provider.APIAnthropicMessages, Provider: "anthropic", Model: "claude", StopReason: provider.StopReasonToolUse,
			Content: []provider.Content{{Type: provider.ContentThinking, Thinking: "hmm", ThinkingSignature: "sig"},
				provider.TextContent("Looking."), provider.ToolCallContent("toolu_01ABCdef", "bash", args)}},
		&provider.ToolResultMessage{ToolCallID: "toolu_01ABCdef", ToolName: "bash", Content: []provider.Content{provider.TextContent("ok")}},
		&provider.AssistantMessage{API: provider.APIOpenAICompletions, Provider: "openai", Model: "gpt-4o", StopReason: provider.StopReasonToolUse,
			Content: []provider.Content{provider.ToolCallContent("call_9|item_2", "bash", args)}},
		&provider.ToolResultMessage{ToolCallID: "call_9|item_2", ToolName: "bash", Content: []provider.Content{provider.TextContent("ok2")}},
		&provider.AssistantMessage{API: provider.APIOpenAIResponses, Provider: "openai", Model: "gpt-5-mini", StopReason: provider.StopReasonToolUse,
			Content: []provider.Content{provider.ToolCallContent("call_7|fc_7", "bash", args)}},
		&provider.ToolResultMessage{ToolCallID: "call_7|fc_7", ToolName: "bash", Content: []provider.Content{provider.TextContent("ok3")}},
	}
	in := inputOf(t, &provider.Request{Model: m, Messages: msgs})
	got, _ := json.Marshal(in)
	for _, want := range []string{
		`{"content":[{"text":"one","type":"input_text"}],"role":"user"},{"content":[{"annotations":[],"text":"Looking.","type":"output_text"}],"id":"msg_pi_1","role":"assistant","status":"completed","type":"message"}`,
		`{"arguments":"{\"command\":\"ls\"}","call_id":"toolu_01ABCdef","name":"bash","type":"function_call"}`,
		`{"call_id":"toolu_01ABCdef","output":"ok","type":"function_call_output"}`,
		`{"arguments":"{\"command\":\"ls\"}","call_id":"call_9","id":"fc_rjkytg3rl8is","name":"bash","type":"function_call"}`,
		`{"call_id":"call_9","output":"ok2","type":"function_call_output"}`,
		`{"arguments":"{\"command\":\"ls\"}","call_id":"call_7","name":"bash","type":"function_call"}`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("input lacks %s\n in: %s", want, got)
		}
	}
}

func TestToolResultImages(t *testing.T) {
	m := openaiModel()
	img := provider.ImageContent("AAAA", "image/png")
	call := &provider.AssistantMessage{API: m.API, Provider: m.Provider, Model: m.ID, StopReason: provider.StopReasonToolUse,
		Content: []provider.Content{provider.ToolCallContent("c1|fc_1", "read", nil)}}
	result := &provider.ToolResultMessage{ToolCallID: "c1|fc_1", ToolName: "read", Content: []provider.Content{provider.TextContent("a picture"), img}}
	req := &provider.Request{Model: m, Messages: []provider.Message{provider.NewUserMessage("look"), call, result}}
	in := inputOf(t, req)
	if out := in[len(in)-1]["output"]; out != "a picture\n(tool image omitted: model does not support images)" {
		t.Errorf("text-only model: output %v", out)
	}
	m.Input = []string{"text", "image"}
	in = inputOf(t, req)
	got, _ := json.Marshal(in[len(in)-1]["output"])
	if want := `[{"text":"a picture","type":"input_text"},{"detail":"auto","image_url":"data:image/png;base64,AAAA","type":"input_image"}]`; string(got) != want {
		t.Errorf("image output %s, want %s", got, want)
	}
}

func TestReasoningEffort(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name  string
		level provider.ThinkingLevel
		tmap  map[provider.ThinkingLevel]*string
		want  string
	}{
		{"off", provider.ThinkingOff, nil, `"reasoning":{"effort":"none"}}`},
		{"unset", "", nil, `"reasoning":{"effort":"none"}}`},
		{"off unsupported", provider.ThinkingOff, map[provider.ThinkingLevel]*string{provider.ThinkingOff: nil}, `"max_output_tokens":128000}`},
		{"off mapped", provider.ThinkingOff, map[provider.ThinkingLevel]*string{provider.ThinkingOff: str("minimal")}, `"reasoning":{"effort":"minimal"}}`},
		{"medium", provider.ThinkingMedium, nil, `"reasoning":{"effort":"medium","summary":"auto"},"include":["reasoning.encrypted_content"]}`},
		{"xhigh clamps", provider.ThinkingXHigh, nil, `"reasoning":{"effort":"high","summary":"auto"}`},
		{"xhigh mapped", provider.ThinkingXHigh, map[provider.ThinkingLevel]*string{provider.ThinkingXHigh: str("xhigh")}, `"reasoning":{"effort":"xhigh","summary":"auto"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := openaiModel()
			m.ThinkingLevelMap = tc.tmap
			req := &provider.Request{Model: m, Messages: []provider.Message{provider.NewUserMessage("hi")},
				Options: provider.StreamOptions{Reasoning: tc.level}}
			b, err := buildBody(req)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tc.want) {
				t.Errorf("body %s\nlacks %s", b, tc.want)
			}
		})
	}
	m := openaiModel()
	m.Reasoning = false
	b, _ := buildBody(&provider.Request{Model: m, Messages: []provider.Message{provider.NewUserMessage("hi")}})
	if strings.Contains(string(b), "reasoning") || !strings.Contains(string(b), `"role":"user"`) {
		t.Errorf("model without reasoning: %s", b)
	}
}
