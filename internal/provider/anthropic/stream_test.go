package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/anthropictest"
)

func testModel(srv *anthropictest.Server) *provider.Model {
	m, ok := provider.BuiltinModel("anthropic", "claude-sonnet-4-5")
	if !ok {
		panic("no claude-sonnet-4-5")
	}
	m.BaseURL = srv.URL
	return &m
}

func startServer(t *testing.T) *anthropictest.Server {
	srv := anthropictest.New()
	t.Cleanup(srv.Close)
	return srv
}

func stream(t *testing.T, srv *anthropictest.Server, req *provider.Request) (*provider.AssistantMessage, []*provider.AssistantEvent) {
	t.Helper()
	if req.Model == nil {
		req.Model = testModel(srv)
	}
	if req.Options.APIKey == "" {
		req.Options.APIKey = "sk-ant-test"
	}
	if req.Messages == nil {
		req.Messages = []provider.Message{provider.NewUserMessage("hi")}
	}
	var events []*provider.AssistantEvent
	msg := New(Config{}).Stream(context.Background(), req, func(e *provider.AssistantEvent) {
		cp := *e
		events = append(events, &cp)
	})
	return msg, events
}

func eventTypes(events []*provider.AssistantEvent) string {
	var out []string
	for _, e := range events {
		out = append(out, string(e.Type))
	}
	return strings.Join(out, " ")
}

func TestStreamTextThinkingToolsAndUsage(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(anthropictest.Reply{Answer: anthropictest.Answer{Ping: true, Model: "claude-sonnet-4-5",
		Usage: &anthropictest.Usage{Input: 100, Output: 57, CacheRead: 2000, CacheWrite: 300},
		Blocks: []anthropictest.Block{
			anthropictest.Thinking("sig-A", "Let me ", "think."),
			anthropictest.Redacted("opaque=="),
			anthropictest.Text("Hello", ", world"),
			anthropictest.ToolUse("toolu_1", "bash", `{"comm`, `and":"ls"}`),
		}}})
	msg, events := stream(t, srv, &provider.Request{})
	if msg.StopReason != provider.StopReasonToolUse || msg.ErrorMessage != "" {
		t.Fatalf("stop %s %q", msg.StopReason, msg.ErrorMessage)
	}
	want := "start thinking_start thinking_delta thinking_delta thinking_end thinking_start thinking_end " +
		"text_start text_delta text_delta text_end toolcall_start toolcall_delta toolcall_delta toolcall_end done"
	if got := eventTypes(events); got != want {
		t.Errorf("events\n%s\nwant\n%s", got, want)
	}
	data, err := json.Marshal(msg.Content)
	if err != nil {
		t.Fatal(err)
	}
	wantContent := `[{"type":"thinking","thinking":"Let me think.","thinkingSignature":"sig-A"},` +
		`{"type":"thinking","thinking":"[Reasoning redacted]","thinkingSignature":"opaque==","redacted":true},` +
		`{"type":"text","text":"Hello, world"},{"type":"toolCall","id":"toolu_1","name":"bash","arguments":{"command":"ls"}}]`
	if string(data) != wantContent {
		t.Errorf("content\n%s\nwant\n%s", data, wantContent)
	}
	u := msg.Usage
	if u.Input != 100 || u.Output != 57 || u.CacheRead != 2000 || u.CacheWrite != 300 || u.TotalTokens != 2457 {
		t.Errorf("usage %+v", u)
	}
	// claude-sonnet-4-5: 3 / 15 / 0.3 / 3.75 per million.
	wantCost := (3*100 + 15*57 + 0.3*2000 + 3.75*300) / 1e6
	if d := u.Cost.Total - wantCost; d > 1e-12 || d < -1e-12 {
		t.Errorf("cost %v, want %v", u.Cost.Total, wantCost)
	}
	if msg.API != provider.APIAnthropicMessages || msg.ResponseID != "msg_test00000001" || msg.RawStopReason != "tool_use" {
		t.Errorf("message %+v", msg)
	}
	usage, _ := json.Marshal(msg.Usage)
	if !strings.Contains(string(usage), `"cacheWrite1h":0`) {
		t.Errorf("usage JSON lacks pi's cacheWrite1h: %s", usage)
	}
	r := srv.Requests()[0]
	if r.Header.Get("X-Api-Key") != "sk-ant-test" || r.Header.Get("Authorization") != "" ||
		r.Header.Get("Anthropic-Version") != "2023-06-01" || r.Header.Get("Anthropic-Beta") != "" {
		t.Errorf("headers %v", r.Header)
	}
}

func TestStreamReplaysThinkingVerbatim(t *testing.T) {
	srv := startServer(t)
	m := testModel(srv)
	prior := &provider.AssistantMessage{API: provider.APIAnthropicMessages, Provider: "anthropic", Model: m.ID,
		StopReason: provider.StopReasonStop, Content: []provider.Content{
			{Type: provider.ContentThinking, Thinking: "plan", ThinkingSignature: "sig-1"},
			{Type: provider.ContentThinking, Thinking: "[Reasoning redacted]", ThinkingSignature: "enc==", Redacted: true},
			provider.TextContent("done"),
		}}
	other := &provider.AssistantMessage{API: provider.APIOpenAICompletions, Provider: "openai", Model: "gpt-x",
		StopReason: provider.StopReasonToolUse, Content: []provider.Content{
			{Type: provider.ContentThinking, Thinking: "their plan", ThinkingSignature: "reasoning_content"},
			provider.ToolCallContent("call|item:1", "bash", json.RawMessage(`{"command":"ls"}`)),
		}}
	result := &provider.ToolResultMessage{ToolCallID: "call|item:1", ToolName: "bash", Content: []provider.Content{provider.TextContent("a\nb")}}
	msgs := []provider.Message{provider.NewUserMessage("one"), prior, provider.NewUserMessage("two"), other, result}
	stream(t, srv, &provider.Request{Model: m, Messages: msgs})
	var body struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	got := func(i, j int) string { return string(body.Messages[i].Content[j]) }
	if got(1, 0) != `{"type":"thinking","thinking":"plan","signature":"sig-1"}` ||
		got(1, 1) != `{"type":"redacted_thinking","data":"enc=="}` {
		t.Errorf("own thinking not replayed verbatim: %s %s", got(1, 0), got(1, 1))
	}
	// Another model's thinking is dropped; its tool-call id is normalised, the result follows it.
	if len(body.Messages[3].Content) != 1 ||
		got(3, 0) != `{"type":"tool_use","id":"call_item_1","name":"bash","input":{"command":"ls"}}` {
		t.Errorf("other model's reply: %s", body.Messages[3].Content)
	}
	if got(4, 0) != `{"type":"tool_result","tool_use_id":"call_item_1","content":"a\nb","is_error":false,"cache_control":{"type":"ephemeral"}}` {
		t.Errorf("tool result: %s", got(4, 0))
	}
}

func TestStreamImages(t *testing.T) {
	srv := startServer(t)
	img := provider.ImageContent("aGVsbG8=", "image/png")
	msgs := []provider.Message{provider.NewUserMessage("look", img)}
	stream(t, srv, &provider.Request{Messages: msgs})
	body := string(srv.Requests()[0].Body)
	want := `"messages":[{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGVsbG8="},"cache_control":{"type":"ephemeral"}}]}]`
	if !strings.Contains(body, want) {
		t.Errorf("body %s\nwant %s", body, want)
	}
}

func TestStreamFailures(t *testing.T) {
	cases := []struct {
		name      string
		reply     anthropictest.Reply
		retryable bool
		want      string
		events    string
	}{
		{"overloaded 529", anthropictest.Reply{Status: 529, Body: anthropictest.ErrorBody("overloaded_error", "Overloaded")},
			true, `529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_test"}`, "error"},
		{"rate limit 429", anthropictest.Reply{Status: 429, Header: map[string]string{"retry-after": "7"},
			Body: anthropictest.ErrorBody("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")},
			true, "(retry after 7s)", "error"},
		{"bad request 400", anthropictest.Reply{Status: 400, Body: anthropictest.ErrorBody("invalid_request_error", "messages: field required")},
			false, "400 ", "error"},
		{"overflow 400", anthropictest.Reply{Status: 400, Body: anthropictest.ErrorBody("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")},
			false, "prompt is too long", "error"},
		{"overloaded mid-stream", anthropictest.Reply{Raw: anthropictest.SSE(
			anthropictest.Answer{ID: "msg_1", Model: "claude-sonnet-4-5", Blocks: []anthropictest.Block{anthropictest.Text("par")}}.Events()[:3]...) +
			anthropictest.ErrorEvent("overloaded_error", "Overloaded")},
			true, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "start text_start text_delta error"},
		{"cut before message_stop", anthropictest.Reply{Raw: anthropictest.SSE(
			anthropictest.Answer{ID: "msg_1", Model: "claude-sonnet-4-5", Blocks: []anthropictest.Block{anthropictest.Text("par")}}.Events()[:4]...)},
			true, "Anthropic stream ended before message_stop", "start text_start text_delta text_end error"},
		{"refusal", anthropictest.Reply{Answer: anthropictest.Answer{StopReason: "refusal", Blocks: []anthropictest.Block{anthropictest.Text("no")}}},
			false, "The model refused to complete the request", "start text_start text_delta text_end error"},
		{"unknown stop reason", anthropictest.Reply{Answer: anthropictest.Answer{StopReason: "galaxy_brain"}},
			false, "Unhandled stop reason: galaxy_brain", "start error"},
		{"malformed event", anthropictest.Reply{Raw: "event: message_start\ndata: {nope\n\n"},
			false, "Could not parse Anthropic SSE event message_start", "start error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServer(t)
			srv.Enqueue(tc.reply)
			msg, events := stream(t, srv, &provider.Request{})
			if msg.StopReason != provider.StopReasonError || !strings.Contains(msg.ErrorMessage, tc.want) {
				t.Fatalf("stop %s, error %q, want %q", msg.StopReason, msg.ErrorMessage, tc.want)
			}
			if provider.IsRetryable(msg) != tc.retryable {
				t.Errorf("IsRetryable(%q) = %v", msg.ErrorMessage, !tc.retryable)
			}
			if strings.Contains(msg.ErrorMessage, "sk-ant-test") {
				t.Errorf("key in error: %q", msg.ErrorMessage)
			}
			if got := eventTypes(events); got != tc.events {
				t.Errorf("events %q, want %q", got, tc.events)
			}
		})
	}
}

func TestStreamRetryAfterBeyondLimitIsNotRetried(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(anthropictest.Reply{Status: 429, Header: map[string]string{"retry-after": "120"},
		Body: anthropictest.ErrorBody("rate_limit_error", "slow down")})
	msg, _ := stream(t, srv, &provider.Request{Options: provider.StreamOptions{MaxRetryDelay: 60e9}})
	if provider.IsRetryable(msg) || !strings.Contains(msg.ErrorMessage, "retry.maxAgentDelayMs") {
		t.Errorf("%q retryable %v", msg.ErrorMessage, provider.IsRetryable(msg))
	}
}

func TestStreamConnectionRefusedLocallyIsNotRetried(t *testing.T) {
	srv := startServer(t)
	m := testModel(srv)
	srv.Close()
	msg, _ := stream(t, srv, &provider.Request{Model: m})
	if msg.StopReason != provider.StopReasonError || provider.IsRetryable(msg) ||
		!strings.Contains(msg.ErrorMessage, "nothing is listening on 127.0.0.1:") {
		t.Errorf("%s %q", msg.StopReason, msg.ErrorMessage)
	}
}

func TestStreamDroppedConnectionIsRetryable(t *testing.T) {
	srv := startServer(t)
	// The server answers 200 and hangs up mid-event: the body ends without message_stop.
	srv.Enqueue(anthropictest.Reply{Raw: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"claude-sonnet-4-5\",\"usage\":{}}}\n\nevent: content_blo"})
	msg, _ := stream(t, srv, &provider.Request{})
	if msg.StopReason != provider.StopReasonError || msg.ErrorMessage != "Anthropic stream ended before message_stop" ||
		!provider.IsRetryable(msg) {
		t.Errorf("%s %q", msg.StopReason, msg.ErrorMessage)
	}
}

func TestStreamAuthTokenAndNoKey(t *testing.T) {
	srv := startServer(t)
	m := testModel(srv)
	msg, _ := New(Config{}).Stream(context.Background(), &provider.Request{Model: m,
		Messages: []provider.Message{provider.NewUserMessage("hi")},
		Options:  provider.StreamOptions{Headers: map[string]string{"Authorization": "Bearer tok-1"}}}, nil), 0
	_ = msg
	r := srv.Requests()[0]
	if r.Header.Get("Authorization") != "Bearer tok-1" || r.Header.Get("X-Api-Key") != "" {
		t.Errorf("headers %v", r.Header)
	}
	none := New(Config{}).Stream(context.Background(), &provider.Request{Model: m,
		Messages: []provider.Message{provider.NewUserMessage("hi")}}, nil)
	if none.ErrorMessage != "No API key for provider: anthropic" || len(srv.Requests()) != 1 {
		t.Errorf("no key: %q", none.ErrorMessage)
	}
}

func TestStreamAbort(t *testing.T) {
	srv := startServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msg := New(Config{}).Stream(ctx, &provider.Request{Model: testModel(srv), Options: provider.StreamOptions{APIKey: "k"},
		Messages: []provider.Message{provider.NewUserMessage("hi")}}, nil)
	if msg.StopReason != provider.StopReasonAborted || msg.ErrorMessage != "Request was aborted" {
		t.Errorf("%s %q", msg.StopReason, msg.ErrorMessage)
	}
}

// TestStreamOAuthTokenSpeaksAsClaudeCode: a Claude subscription token goes out as a bearer token with
// Claude Code's identity, betas and tool casing, and the answer's tool names come back as the
// request's own.
func TestStreamOAuthTokenSpeaksAsClaudeCode(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(anthropictest.Reply{Answer: anthropictest.Answer{Blocks: []anthropictest.Block{
		anthropictest.ToolUse("toolu_1", "Bash", `{"command":"ls"}`)}}})
	tools := []provider.ToolDefinition{{Name: "bash", Description: "run", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
	msg, _ := stream(t, srv, &provider.Request{SystemPrompt: "Be brief.", Tools: tools,
		Options: provider.StreamOptions{APIKey: "sk-ant-oat01-abc"}})
	if calls := msg.ToolCalls(); len(calls) != 1 || calls[0].Name != "bash" {
		t.Fatalf("tool calls %+v (%s)", calls, msg.ErrorMessage)
	}
	r := srv.Requests()[0]
	if r.Header.Get("Authorization") != "Bearer sk-ant-oat01-abc" || r.Header.Get("X-Api-Key") != "" ||
		r.Header.Get("User-Agent") != "claude-cli/"+claudeCodeVersion || r.Header.Get("X-App") != "cli" ||
		!strings.HasPrefix(r.Header.Get("Anthropic-Beta"), "claude-code-20250219,oauth-2025-04-20") {
		t.Errorf("headers %v", r.Header)
	}
	body := string(r.Body)
	for _, want := range []string{`"system":[{"type":"text","text":"You are Claude Code, Anthropic's official CLI for Claude.","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}]`,
		`"tools":[{"name":"Bash"`} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s:\n%s", want, body)
		}
	}
}

// TestStreamStallEndsWithARetryableTimeout: a stream that stops sending ends after the idle timeout
// with an error the harness retries, keeping what arrived.
func TestStreamStallEndsWithARetryableTimeout(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(anthropictest.Reply{Stall: true, Raw: anthropictest.SSE(
		anthropictest.Answer{ID: "msg_1", Model: "claude-sonnet-4-5", Blocks: []anthropictest.Block{anthropictest.Text("par")}}.Events()[:3]...)})
	msg, _ := stream(t, srv, &provider.Request{Options: provider.StreamOptions{IdleTimeout: time.Second}}) // long enough for the head to arrive on a loaded machine
	if msg.StopReason != provider.StopReasonError || !strings.Contains(msg.ErrorMessage, "Request timed out: no data from") ||
		!provider.IsRetryable(msg) || provider.TextOf(msg.Content, "") != "par" {
		t.Errorf("%s %q %+v", msg.StopReason, msg.ErrorMessage, msg.Content)
	}
}
