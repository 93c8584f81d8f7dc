package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// TestMaxTokensFitTheWindow: near a full window max_tokens and the thinking budget shrink as pi's
// clampMaxTokensToContext and adjustMaxTokensForThinking shrink them.
func TestMaxTokensFitTheWindow(t *testing.T) {
	m, _ := provider.BuiltinModel("anthropic", "claude-sonnet-4-5") // 200K window, 64K output
	full := &provider.AssistantMessage{API: m.API, Provider: m.Provider, Model: m.ID, StopReason: provider.StopReasonStop,
		Timestamp: 2, Usage: provider.Usage{Input: 10, CacheRead: 189990, Output: 0},
		Content: []provider.Content{provider.TextContent("ok")}}
	next := &provider.UserMessage{Content: []provider.Content{provider.TextContent("0123456")}, Timestamp: 3} // 2 tokens
	msgs := []provider.Message{&provider.UserMessage{Content: []provider.Content{provider.TextContent("a")}, Timestamp: 1}, full, next}
	for _, tc := range []struct {
		level             provider.ThinkingLevel
		maxTokens, budget float64
	}{
		// input 190002: room = min(32768, 200000-190002-4096) = 5902.
		{"", 5902, 0},
		{provider.ThinkingMedium, 5902, 5902 - 1024},
	} {
		built, err := buildRequest(&provider.Request{Model: &m, Messages: msgs, Options: provider.StreamOptions{Reasoning: tc.level}}, CacheShort)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			MaxTokens float64 `json:"max_tokens"`
			Thinking  struct {
				Budget float64 `json:"budget_tokens"`
			} `json:"thinking"`
		}
		if err := json.Unmarshal(built.body, &body); err != nil {
			t.Fatal(err)
		}
		if body.MaxTokens != tc.maxTokens || body.Thinking.Budget != tc.budget {
			t.Errorf("%q: max_tokens %v budget %v, want %v %v", tc.level, body.MaxTokens, body.Thinking.Budget, tc.maxTokens, tc.budget)
		}
	}
	// A fresh conversation keeps the model's own limit.
	built, _ := buildRequest(&provider.Request{Model: &m, Messages: msgs[:1]}, CacheShort)
	var body struct {
		MaxTokens int `json:"max_tokens"`
	}
	_ = json.Unmarshal(built.body, &body)
	if body.MaxTokens != 64000 {
		t.Errorf("fresh: max_tokens %d", body.MaxTokens)
	}
}
