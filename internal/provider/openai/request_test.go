package openai

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

var (
	bashTool = provider.ToolDefinition{Name: "bash", Description: "Run a command",
		Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}
	readTool = provider.ToolDefinition{Name: "read", Description: "Read a file",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}
)

const bashToolJSON = `{"type":"function","function":{"name":"bash","description":"Run a command","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}}`
const readToolJSON = `{"type":"function","function":{"name":"read","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}`

// assertJSON compares two JSON texts as values and shows both on a mismatch.
func assertJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		gi, _ := json.MarshalIndent(g, "", "  ")
		wi, _ := json.MarshalIndent(w, "", "  ")
		t.Fatalf("body differs\n got: %s\nwant: %s", gi, wi)
	}
}

func body(t *testing.T, req *provider.Request) []byte {
	t.Helper()
	c := resolveCompat(req.Model)
	b, err := buildBody(req, &c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func toolCall(id, name, args string) provider.Content {
	return provider.ToolCallContent(id, name, json.RawMessage(args))
}

func assistant(m *provider.Model, stop provider.StopReason, content ...provider.Content) *provider.AssistantMessage {
	return &provider.AssistantMessage{Content: content, API: provider.APIOpenAICompletions, Provider: m.Provider,
		Model: m.ID, StopReason: stop, Timestamp: 2}
}

func toolResult(id, name string, content ...provider.Content) *provider.ToolResultMessage {
	return &provider.ToolResultMessage{ToolCallID: id, ToolName: name, Content: content, Timestamp: 3}
}

// TestRequestBodyForATranscript sends a transcript with images, reasoning, tool calls and results,
// an aborted and an errored reply, an orphaned tool call and another model's reply, and compares the
// body that reached the server.
func TestRequestBodyForATranscript(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(openaitest.TextReply("test-model", "ok"))
	m := testModel(srv.URL)
	m.Reasoning = true
	other := &provider.Model{ID: "other-model", Provider: "other"}
	thinking := provider.Content{Type: provider.ContentThinking, Thinking: "I should list files.", ThinkingSignature: "reasoning_content"}
	foreignCall := toolCall("call_X|fc_very/long+id==", "bash", `{"command": "pwd"}`)
	foreignCall.ThoughtSignature = `{"type":"reasoning.encrypted","id":"x","data":"zz"}`
	req := &provider.Request{
		Model:        m,
		SystemPrompt: "You are pi.",
		Tools:        []provider.ToolDefinition{bashTool, readTool},
		Options:      provider.StreamOptions{Reasoning: provider.ThinkingHigh, APIKey: testKey},
		Messages: []provider.Message{
			&provider.UserMessage{Content: []provider.Content{provider.TextContent("Look at this"), provider.ImageContent("iVBORw0KGgo=", "image/png")}, Timestamp: 1},
			assistant(m, provider.StopReasonToolUse, thinking, provider.TextContent("Let me look."),
				toolCall("call_1", "bash", `{"command": "ls"}`), toolCall("call_2", "read", `{"path":"shot.png"}`)),
			toolResult("call_1", "bash", provider.TextContent("a.txt\nb.txt")),
			toolResult("call_2", "read", provider.ImageContent("AAAA", "image/png")),
			assistant(m, provider.StopReasonAborted, provider.TextContent("I was about to")),
			&provider.UserMessage{Content: []provider.Content{provider.TextContent("continue")}, ContentIsString: true, Timestamp: 4},
			assistant(m, provider.StopReasonError, provider.TextContent("half")),
			assistant(m, provider.StopReasonToolUse, toolCall("call_3", "ls", `{}`)),
			&provider.UserMessage{Content: []provider.Content{provider.TextContent("and now?")}, ContentIsString: true, Timestamp: 5},
			assistant(other, provider.StopReasonToolUse,
				provider.Content{Type: provider.ContentThinking, Thinking: "deep thoughts", ThinkingSignature: "reasoning"}, foreignCall),
			toolResult("call_X|fc_very/long+id==", "bash", provider.TextContent("/home")),
		},
	}
	p := newTestProvider(t, Config{})
	msg, _ := run(t, p, context.Background(), req)
	if msg.StopReason != provider.StopReasonStop {
		t.Fatalf("stream failed: %s", msg.ErrorMessage)
	}
	got := srv.Requests()[0]
	if got.Path != "/v1/chat/completions" || got.Method != "POST" {
		t.Fatalf("request %s %s", got.Method, got.Path)
	}
	if got.Header.Get("Authorization") != "Bearer "+testKey || got.Header.Get("Accept") != "text/event-stream" ||
		got.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v", got.Header)
	}
	assertJSON(t, got.Body, `{
  "model": "test-model",
  "messages": [
    {"role": "system", "content": "You are pi."},
    {"role": "user", "content": [
      {"type": "text", "text": "Look at this"},
      {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]},
    {"role": "assistant", "content": "Let me look.", "reasoning_content": "I should list files.", "tool_calls": [
      {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}},
      {"id": "call_2", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"shot.png\"}"}}]},
    {"role": "tool", "content": "a.txt\nb.txt", "tool_call_id": "call_1"},
    {"role": "tool", "content": "(see attached image)", "tool_call_id": "call_2"},
    {"role": "user", "content": [
      {"type": "text", "text": "Attached image(s) from tool result:"},
      {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
    {"role": "user", "content": "continue"},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_3", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
    {"role": "tool", "content": "No result provided", "tool_call_id": "call_3"},
    {"role": "user", "content": "and now?"},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_X", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"pwd\"}"}}]},
    {"role": "tool", "content": "/home", "tool_call_id": "call_X"}
  ],
  "stream": true,
  "stream_options": {"include_usage": true},
  "store": false,
  "max_completion_tokens": 16384,
  "tools": [`+bashToolJSON+`, `+readToolJSON+`],
  "reasoning_effort": "high"
}`)
	// The input was not modified.
	if req.Messages[9].(*provider.AssistantMessage).Content[1].ID != "call_X|fc_very/long+id==" {
		t.Fatal("the transcript was modified")
	}
}

func TestRequestHeaders(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(openaitest.TextReply("test-model", "ok"), openaitest.TextReply("test-model", "ok"))
	m := testModel(srv.URL + "/") // a trailing slash is tolerated
	m.Headers = map[string]string{"X-Title": "pi-go", "HTTP-Referer": "https://example.com"}
	p := newTestProvider(t, Config{})
	req := simpleRequest(m)
	req.Options.Headers = map[string]string{"X-Title": "override", "X-Session": "s1"}
	run(t, p, context.Background(), req)
	h := srv.Requests()[0].Header
	if h.Get("X-Title") != "override" || h.Get("Http-Referer") != "https://example.com" || h.Get("X-Session") != "s1" {
		t.Fatalf("headers %v", h)
	}
	if srv.Requests()[0].Path != "/v1/chat/completions" {
		t.Fatalf("path %s", srv.Requests()[0].Path)
	}

	// A local server needs no key: no Authorization header at all.
	req = simpleRequest(testModel(srv.URL))
	msg := p.Stream(context.Background(), req, nil)
	if msg.StopReason != provider.StopReasonStop {
		t.Fatal(msg.ErrorMessage)
	}
	if _, ok := srv.Requests()[1].Header["Authorization"]; ok {
		t.Fatalf("Authorization sent without a key: %v", srv.Requests()[1].Header)
	}
}

func TestRequestBodyVariants(t *testing.T) {
	local := func() *provider.Model { return testModel("http://localhost:8080/v1") }
	user := []provider.Message{userText("hi")}
	tests := []struct {
		name string
		req  func() *provider.Request
		want string
	}{
		{name: "plain model, no reasoning fields, system role", req: func() *provider.Request {
			return &provider.Request{Model: local(), SystemPrompt: "sys", Messages: user,
				Options: provider.StreamOptions{Reasoning: provider.ThinkingHigh}}
		}, want: `{"model":"test-model","messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"hi"}]}],
			"stream":true,"stream_options":{"include_usage":true},"store":false,"max_completion_tokens":16384}`},
		{name: "options: max tokens, temperature 0, session on api.openai.com", req: func() *provider.Request {
			m := local()
			m.BaseURL, m.Provider = "https://api.openai.com/v1", "openai"
			zero := 0.0
			return &provider.Request{Model: m, Messages: user,
				Options: provider.StreamOptions{MaxTokens: 500, Temperature: &zero, SessionID: "sess-1"}}
		}, want: `{"model":"test-model","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"stream":true,
			"prompt_cache_key":"sess-1","stream_options":{"include_usage":true},"store":false,"max_completion_tokens":500,"temperature":0}`},
		{name: "model max tokens capped at 32000; none when unknown", req: func() *provider.Request {
			m := local()
			m.MaxTokens = 128000
			return &provider.Request{Model: m, Messages: user}
		}, want: `{"model":"test-model","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"stream":true,
			"stream_options":{"include_usage":true},"store":false,"max_completion_tokens":32000}`},
		{name: "explicit compat: the conservative local server", req: func() *provider.Request {
			m := local()
			m.Reasoning = true
			m.MaxTokens = 0
			m.Compat = &provider.Compat{SupportsStore: provider.Ptr(false), SupportsDeveloperRole: provider.Ptr(false),
				SupportsUsageInStreaming: provider.Ptr(false), SupportsStrictMode: provider.Ptr(false),
				SupportsReasoningEffort: provider.Ptr(false), MaxTokensField: "max_tokens"}
			return &provider.Request{Model: m, SystemPrompt: "sys", Messages: user, Tools: []provider.ToolDefinition{bashTool},
				Options: provider.StreamOptions{Reasoning: provider.ThinkingLow, MaxTokens: 100}}
		}, want: `{"model":"test-model","messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"hi"}]}],
			"stream":true,"max_tokens":100,"tools":[{"type":"function","function":{"name":"bash","description":"Run a command",
			"parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}}]}`},
		{name: "tools:[] when the history has tool calls but no tools are given", req: func() *provider.Request {
			m := local()
			m.MaxTokens = 0
			return &provider.Request{Model: m, Messages: []provider.Message{userText("hi"),
				assistant(m, provider.StopReasonToolUse, toolCall("c1", "ls", "{}")), toolResult("c1", "ls", provider.TextContent("x"))}}
		}, want: `{"model":"test-model","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},
			{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},
			{"role":"tool","content":"x","tool_call_id":"c1"}],
			"stream":true,"stream_options":{"include_usage":true},"store":false,"tools":[]}`},
		{name: "assistant after tool results, tool names, thinking as text", req: func() *provider.Request {
			m := local()
			m.MaxTokens = 0
			m.Compat = &provider.Compat{RequiresAssistantAfterToolResult: provider.Ptr(true), RequiresToolResultName: provider.Ptr(true),
				RequiresThinkingAsText: provider.Ptr(true)}
			return &provider.Request{Model: m, Messages: []provider.Message{userText("hi"),
				assistant(m, provider.StopReasonToolUse, provider.Content{Type: provider.ContentThinking, Thinking: "plan", ThinkingSignature: "reasoning_content"},
					provider.TextContent("ok"), toolCall("c1", "ls", "{}")),
				toolResult("c1", "ls", provider.TextContent("x")), userText("next")}}
		}, want: `{"model":"test-model","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},
			{"role":"assistant","content":[{"type":"text","text":"plan"},{"type":"text","text":"ok"}],
			 "tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},
			{"role":"tool","content":"x","tool_call_id":"c1","name":"ls"},
			{"role":"assistant","content":"I have processed the tool results."},
			{"role":"user","content":[{"type":"text","text":"next"}]}],
			"stream":true,"stream_options":{"include_usage":true},"store":false,"tools":[]}`},
		{name: "text-only model: images become placeholders", req: func() *provider.Request {
			m := local()
			m.MaxTokens = 0
			m.Input = []string{"text"}
			return &provider.Request{Model: m, Messages: []provider.Message{
				&provider.UserMessage{Content: []provider.Content{provider.TextContent("see"), provider.ImageContent("A", "image/png"), provider.ImageContent("B", "image/png")}},
				assistant(m, provider.StopReasonToolUse, toolCall("c1", "read", `{"path":"x.png"}`)),
				toolResult("c1", "read", provider.TextContent("Read image"), provider.ImageContent("C", "image/png"))}}
		}, want: `{"model":"test-model","messages":[
			{"role":"user","content":[{"type":"text","text":"see"},{"type":"text","text":"(image omitted: model does not support images)"}]},
			{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"x.png\"}"}}]},
			{"role":"tool","content":"Read image\n(tool image omitted: model does not support images)","tool_call_id":"c1"}],
			"stream":true,"stream_options":{"include_usage":true},"store":false,"tools":[]}`},
		{name: "empty replies and empty users are skipped", req: func() *provider.Request {
			m := local()
			m.MaxTokens = 0
			return &provider.Request{Model: m, Messages: []provider.Message{
				&provider.UserMessage{Content: []provider.Content{}}, userText("hi"),
				assistant(m, provider.StopReasonStop, provider.TextContent("  "), provider.Content{Type: provider.ContentThinking, Thinking: " "})}}
		}, want: `{"model":"test-model","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],
			"stream":true,"stream_options":{"include_usage":true},"store":false}`},
		{name: "results of a dropped reply are dropped with it", req: func() *provider.Request {
			m := local()
			m.MaxTokens = 0
			return &provider.Request{Model: m, Messages: []provider.Message{userText("hi"),
				assistant(m, provider.StopReasonAborted, toolCall("c1", "bash", `{"command":"sleep 9"}`)),
				toolResult("c1", "bash", provider.TextContent("Operation aborted")), userText("again")}}
		}, want: `{"model":"test-model","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},
			{"role":"user","content":[{"type":"text","text":"again"}]}],
			"stream":true,"stream_options":{"include_usage":true},"store":false,"tools":[]}`},
		{name: "OpenAI truncates long foreign tool-call ids", req: func() *provider.Request {
			m := local()
			m.MaxTokens, m.Provider = 0, "openai"
			long := strings.Repeat("x", 50)
			return &provider.Request{Model: m, Messages: []provider.Message{userText("hi"),
				assistant(&provider.Model{ID: "o", Provider: "o"}, provider.StopReasonToolUse, toolCall(long, "ls", "{}")),
				toolResult(long, "ls", provider.TextContent("r"))}}
		}, want: `{"model":"test-model","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},
			{"role":"assistant","content":null,"tool_calls":[{"id":"` + strings.Repeat("x", 40) + `","type":"function","function":{"name":"ls","arguments":"{}"}}]},
			{"role":"tool","content":"r","tool_call_id":"` + strings.Repeat("x", 40) + `"}],
			"stream":true,"stream_options":{"include_usage":true},"store":false,"tools":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertJSON(t, body(t, tt.req()), tt.want)
		})
	}
}

// TestReasoningDialects checks the thinking switch each server understands.
func TestReasoningDialects(t *testing.T) {
	level := func(p string, url string, id string, l provider.ThinkingLevel, edit func(*provider.Model)) map[string]any {
		m := &provider.Model{ID: id, Provider: p, BaseURL: url, Reasoning: true, Input: []string{"text"}}
		if edit != nil {
			edit(m)
		}
		b := body(t, &provider.Request{Model: m, SystemPrompt: "s", Messages: []provider.Message{userText("hi")},
			Options: provider.StreamOptions{Reasoning: l}})
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		// Keep only what differs between dialects.
		out := map[string]any{"role": v["messages"].([]any)[0].(map[string]any)["role"]}
		for _, k := range []string{"reasoning_effort", "enable_thinking", "chat_template_kwargs", "thinking", "reasoning", "store", "max_tokens"} {
			if x, ok := v[k]; ok {
				out[k] = x
			}
		}
		return out
	}
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		got  map[string]any
		want string
	}{
		{"openai high", level("openai", "https://api.openai.com/v1", "o4-mini", provider.ThinkingHigh, nil),
			`{"role":"developer","reasoning_effort":"high","store":false}`},
		{"openai off sends nothing", level("openai", "https://api.openai.com/v1", "o4-mini", provider.ThinkingOff, nil),
			`{"role":"developer","store":false}`},
		{"off mapped to a value", level("openai", "https://api.openai.com/v1", "gpt-5", provider.ThinkingOff,
			func(m *provider.Model) {
				m.ThinkingLevelMap = map[provider.ThinkingLevel]*string{"off": str("minimal")}
			}),
			`{"role":"developer","reasoning_effort":"minimal","store":false}`},
		{"xhigh clamps to high unless mapped", level("openai", "https://api.openai.com/v1", "o3", provider.ThinkingXHigh, nil),
			`{"role":"developer","reasoning_effort":"high","store":false}`},
		{"xhigh mapped", level("openai", "https://api.openai.com/v1", "gpt-5", provider.ThinkingXHigh,
			func(m *provider.Model) {
				m.ThinkingLevelMap = map[provider.ThinkingLevel]*string{"xhigh": str("xhigh")}
			}),
			`{"role":"developer","reasoning_effort":"xhigh","store":false}`},
		{"unsupported level moves up", level("openai", "https://api.openai.com/v1", "m", provider.ThinkingMinimal,
			func(m *provider.Model) { m.ThinkingLevelMap = map[provider.ThinkingLevel]*string{"minimal": nil} }),
			`{"role":"developer","reasoning_effort":"low","store":false}`},
		{"xai: no effort, no store, system role", level("xai", "https://api.x.ai/v1", "grok-4", provider.ThinkingHigh, nil),
			`{"role":"system"}`},
		{"deepseek", level("deepseek", "https://api.deepseek.com", "deepseek-reasoner", provider.ThinkingMedium, nil),
			`{"role":"system","thinking":{"type":"enabled"},"reasoning_effort":"medium"}`},
		{"deepseek off", level("deepseek", "https://api.deepseek.com", "deepseek-reasoner", provider.ThinkingOff, nil),
			`{"role":"system","thinking":{"type":"disabled"}}`},
		{"openrouter", level("openrouter", "https://openrouter.ai/api/v1", "deepseek/deepseek-r1", provider.ThinkingLow, nil),
			`{"role":"system","reasoning":{"effort":"low"},"store":false}`},
		{"openrouter off", level("openrouter", "https://openrouter.ai/api/v1", "deepseek/deepseek-r1", provider.ThinkingOff, nil),
			`{"role":"system","reasoning":{"effort":"none"},"store":false}`},
		{"z.ai", level("zai", "https://api.z.ai/api/paas/v4", "glm-4.6", provider.ThinkingHigh, nil),
			`{"role":"system","enable_thinking":true}`},
		{"qwen chat template", level("local", "http://localhost:8000/v1", "qwen3", provider.ThinkingOff,
			func(m *provider.Model) { m.Compat = &provider.Compat{ThinkingFormat: "qwen-chat-template"} }),
			`{"role":"system","chat_template_kwargs":{"enable_thinking":false,"preserve_thinking":true},"store":false}`},
		{"chutes uses max_tokens", level("chutes", "https://llm.chutes.ai/v1", "m", provider.ThinkingOff,
			func(m *provider.Model) { m.MaxTokens = 1000 }),
			`{"role":"system","max_tokens":1000}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := json.Marshal(tt.got)
			assertJSON(t, got, tt.want)
		})
	}
}

func TestDeepSeekReplaysReasoningContent(t *testing.T) {
	m := &provider.Model{ID: "deepseek-reasoner", Provider: "deepseek", BaseURL: "https://api.deepseek.com", Reasoning: true}
	b := body(t, &provider.Request{Model: m, Messages: []provider.Message{userText("hi"),
		assistant(m, provider.StopReasonStop, provider.TextContent("hello")), userText("again")}})
	var v struct {
		Messages []map[string]any `json:"messages"`
	}
	json.Unmarshal(b, &v)
	if rc, ok := v.Messages[1]["reasoning_content"]; !ok || rc != "" {
		t.Fatalf("assistant message %v", v.Messages[1])
	}
}

func TestAnthropicCacheControlThroughOpenRouter(t *testing.T) {
	m := &provider.Model{ID: "anthropic/claude-sonnet-4", Provider: "openrouter", BaseURL: "https://openrouter.ai/api/v1", Input: []string{"text"}}
	b := body(t, &provider.Request{Model: m, SystemPrompt: "sys", Tools: []provider.ToolDefinition{bashTool, readTool},
		Messages: []provider.Message{userText("hi"), assistant(m, provider.StopReasonStop, provider.TextContent("hello")),
			&provider.UserMessage{Content: []provider.Content{provider.TextContent("again")}, ContentIsString: true}}})
	assertJSON(t, b, `{"model":"anthropic/claude-sonnet-4","messages":[
		{"role":"system","content":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}]},
		{"role":"user","content":[{"type":"text","text":"hi"}]},
		{"role":"assistant","content":"hello"},
		{"role":"user","content":[{"type":"text","text":"again","cache_control":{"type":"ephemeral"}}]}],
		"stream":true,"stream_options":{"include_usage":true},"store":false,
		"tools":[`+bashToolJSON+`,{"type":"function","function":{"name":"read","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},"cache_control":{"type":"ephemeral"}}]}`)
}

func TestInvalidToolSchemaIsAClearError(t *testing.T) {
	srv := startServer(t)
	p := newTestProvider(t, Config{})
	req := simpleRequest(testModel(srv.URL))
	req.Tools = []provider.ToolDefinition{{Name: "broken", Parameters: json.RawMessage(`{"type":`)}}
	msg, _ := run(t, p, context.Background(), req)
	if msg.StopReason != provider.StopReasonError || !strings.Contains(msg.ErrorMessage, `tool "broken" has an invalid parameters schema`) {
		t.Fatalf("got %q", msg.ErrorMessage)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("a request was sent")
	}
}

// pi 1.6's defaults: the system prompt goes as "developer" to OpenAI's own API only, and tools carry
// no "strict" unless the model's compat declares strict mode.
func TestPi16InstructionRoleAndStrict(t *testing.T) {
	roleAndStrict := func(m *provider.Model) (string, bool) {
		b := body(t, &provider.Request{Model: m, SystemPrompt: "sys", Tools: []provider.ToolDefinition{bashTool}, Messages: []provider.Message{userText("hi")}})
		var v struct {
			Messages []map[string]any `json:"messages"`
			Tools    []struct {
				Function map[string]any `json:"function"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		_, strict := v.Tools[0].Function["strict"]
		return v.Messages[0]["role"].(string), strict
	}
	local := &provider.Model{ID: "m", Provider: "mock", BaseURL: "http://127.0.0.1:1/v1", Reasoning: true}
	if role, strict := roleAndStrict(local); role != "system" || strict {
		t.Errorf("custom reasoning model: role %s, strict %v", role, strict)
	}
	for _, m := range []*provider.Model{
		{ID: "o4-mini", Provider: "openai", BaseURL: "https://example.test/v1", Reasoning: true},
		{ID: "o4-mini", Provider: "proxy", BaseURL: "https://api.openai.com/v1", Reasoning: true},
		{ID: "m", Provider: "mock", BaseURL: "http://127.0.0.1:1/v1", Reasoning: true, Compat: &provider.Compat{SupportsDeveloperRole: provider.Ptr(true)}},
	} {
		if role, _ := roleAndStrict(m); role != "developer" {
			t.Errorf("%s at %s: role %s", m.Provider, m.BaseURL, role)
		}
	}
	nonReasoning := &provider.Model{ID: "gpt-4.1", Provider: "openai", BaseURL: "https://api.openai.com/v1"}
	if role, _ := roleAndStrict(nonReasoning); role != "system" {
		t.Errorf("non-reasoning OpenAI model: role %s", role)
	}
	declared := &provider.Model{ID: "m", Provider: "mock", BaseURL: "http://127.0.0.1:1/v1", Compat: &provider.Compat{SupportsStrictMode: provider.Ptr(true)}}
	if _, strict := roleAndStrict(declared); !strict {
		t.Error("compat supportsStrictMode: no strict")
	}
}
