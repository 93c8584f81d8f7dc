package openai

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// TestTranscripts replays what each kind of server really sends and checks the assembled message.
func TestTranscripts(t *testing.T) {
	type call struct{ id, name, args string }
	tests := []struct {
		file       string
		text       string
		thinking   string
		signature  string
		calls      []call
		stop       provider.StopReason
		usage      provider.Usage
		responseID string
		order      []string // content block types in order
	}{
		{
			file: "openai-text.sse", text: "Hello! How can I help you today?", stop: provider.StopReasonStop,
			usage:      provider.Usage{Input: 86, Output: 10, CacheRead: 1920, TotalTokens: 2016},
			responseID: "chatcmpl-BqD8fTyyJ5WqkrN3fmK2x0PpZ9kLe", order: []string{"text"},
		},
		{
			file: "openai-tool-calls.sse", stop: provider.StopReasonToolUse,
			calls: []call{
				{"call_Q7xWJ8mB2yNvH4kT9pLc1sDe", "bash", `{"command": "ls -la"}`},
				{"call_Zr5Kp0aXe3Lm9QwV2nBy6tUf", "read", `{"path": "README.md"}`},
			},
			usage:      provider.Usage{Input: 812, Output: 52, TotalTokens: 864},
			responseID: "chatcmpl-BqDA2u1vG8fJ3kqPZ7mYwL0sXr4Nt", order: []string{"toolCall", "toolCall"},
		},
		{
			file: "deepseek-reasoning.sse", thinking: "Okay, the user says hi. I should greet them.",
			signature: "reasoning_content", text: "Hi! How can I help?", stop: provider.StopReasonStop,
			usage:      provider.Usage{Input: 13, Output: 27, Reasoning: 19, TotalTokens: 40},
			responseID: "5d3f0e3c-2a7b-4c4e-9a57-1f6e1b8c0d21", order: []string{"thinking", "text"},
		},
		{
			file: "vllm-reasoning.sse", thinking: "\nLet me add 2 and 2.", signature: "reasoning_content",
			text: "\n\n2 + 2 = 4.", stop: provider.StopReasonStop,
			usage:      provider.Usage{Input: 18, Output: 26, TotalTokens: 44},
			responseID: "chatcmpl-8e5c1d9b2f4a4e7a9c3b6d0f1a2e3b4c", order: []string{"thinking", "text"},
		},
		{
			file: "openrouter-reasoning.sse", thinking: "The user's asking about Go. Short answer.",
			signature: "reasoning", text: "Go is a compiled language.", stop: provider.StopReasonStop,
			usage:      provider.Usage{Input: 21, Output: 45, Reasoning: 31, TotalTokens: 66},
			responseID: "gen-1751817400-Xk9vQ2mLp8RtZ3wYb7Nc", order: []string{"thinking", "text"},
		},
		{
			file: "ollama-tool-call.sse", stop: provider.StopReasonToolUse,
			calls:      []call{{"call_x4d9kq2m", "bash", `{"command":"ls -la"}`}},
			usage:      provider.Usage{Input: 312, Output: 24, TotalTokens: 336},
			responseID: "chatcmpl-417", order: []string{"toolCall"},
		},
		{
			file: "llamacpp-reasoning.sse", thinking: "We need to answer.", signature: "reasoning_content",
			text: "The answer is 42.", stop: provider.StopReasonStop,
			usage:      provider.Usage{Input: 71, Output: 9, TotalTokens: 80},
			responseID: "chatcmpl-Vq3bN8kzT1mXf6Lh0cR2yWpE9sJuA4dG", order: []string{"thinking", "text"},
		},
		{
			file: "llamacpp-tool-call.sse", stop: provider.StopReasonToolUse,
			calls:      []call{{"vDq2kR7mXc9bT4wN1pYs8fLz3hJ6gA0e", "read", `{"path":"src/main.go"}`}},
			usage:      provider.Usage{Input: 388, Output: 21, TotalTokens: 409},
			responseID: "chatcmpl-Hn7cT2wQ9mZk4Rb1Xv8Jp3Lf6Ys0Dg5E", order: []string{"toolCall"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t)
			srv.Enqueue(openaitest.Transcript(t, tt.file))
			p := newTestProvider(t, Config{})
			m := testModel(srv.URL)
			msg, events := run(t, p, context.Background(), simpleRequest(m))
			if msg.StopReason != tt.stop {
				t.Fatalf("stop reason %s (%s), want %s", msg.StopReason, msg.ErrorMessage, tt.stop)
			}
			if events[len(events)-1].Type != provider.EventDone {
				t.Fatalf("last event %s", events[len(events)-1].Type)
			}
			var order []string
			var calls []call
			for _, c := range msg.Content {
				order = append(order, c.Type)
				switch c.Type {
				case provider.ContentText:
					if c.Text != tt.text {
						t.Errorf("text %q, want %q", c.Text, tt.text)
					}
				case provider.ContentThinking:
					if c.Thinking != tt.thinking || c.ThinkingSignature != tt.signature {
						t.Errorf("thinking %q (%s), want %q (%s)", c.Thinking, c.ThinkingSignature, tt.thinking, tt.signature)
					}
				case provider.ContentToolCall:
					calls = append(calls, call{c.ID, c.Name, string(c.Arguments)})
				}
			}
			if len(order) != len(tt.order) {
				t.Fatalf("blocks %v, want %v", order, tt.order)
			}
			for i := range order {
				if order[i] != tt.order[i] {
					t.Fatalf("blocks %v, want %v", order, tt.order)
				}
			}
			if len(calls) != len(tt.calls) {
				t.Fatalf("tool calls %v, want %v", calls, tt.calls)
			}
			for i := range calls {
				if calls[i].id != tt.calls[i].id || calls[i].name != tt.calls[i].name || !sameJSON(calls[i].args, tt.calls[i].args) {
					t.Errorf("tool call %d = %v, want %v", i, calls[i], tt.calls[i])
				}
			}
			want := tt.usage
			want.Keys |= provider.UsageReasoning
			want.CalculateCost(m.Cost)
			if msg.Usage != want {
				t.Errorf("usage %+v, want %+v", msg.Usage, want)
			}
			if msg.ResponseID != tt.responseID {
				t.Errorf("response id %q, want %q", msg.ResponseID, tt.responseID)
			}
		})
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
