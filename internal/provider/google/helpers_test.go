package google

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// pi16Model is the model of the recorded runs (scripts/interop/record-apis).
func pi16Model(base string) *provider.Model {
	return &provider.Model{ID: "gemini-2.5-flash", Name: "Mock Gemini", API: provider.APIGoogleGenerativeAI, Provider: "mockgem",
		BaseURL: base + "/v1beta", Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 1048576, MaxTokens: 65536,
		Cost: provider.ModelCost{Input: 0.3, Output: 2.5, CacheRead: 0.03}}
}

// pi16Model3 is the Gemini 3 model of the recorded runs.
func pi16Model3(base string) *provider.Model {
	null := map[provider.ThinkingLevel]*string{provider.ThinkingMinimal: nil, provider.ThinkingMedium: nil}
	return &provider.Model{ID: "gemini-3-pro-preview", Name: "Mock Gemini 3", API: provider.APIGoogleGenerativeAI, Provider: "mockgem",
		BaseURL: base + "/v1beta", Reasoning: true, ThinkingLevelMap: null, Input: []string{"text", "image"}, ContextWindow: 1048576,
		MaxTokens: 65536, Cost: provider.ModelCost{Input: 2, Output: 12, CacheRead: 0.2}}
}

// collect streams req and returns the events and the final message.
func collect(t *testing.T, ctx context.Context, req *provider.Request) ([]*provider.AssistantEvent, *provider.AssistantMessage) {
	t.Helper()
	var events []*provider.AssistantEvent
	msg := New(Config{}).Stream(ctx, req, func(e *provider.AssistantEvent) { events = append(events, e) })
	return events, msg
}

func eventTypes(events []*provider.AssistantEvent) string {
	var b strings.Builder
	for i, e := range events {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(e.Type))
	}
	return b.String()
}

func userRequest(m *provider.Model, text string) *provider.Request {
	return &provider.Request{Model: m, SystemPrompt: "Be brief.", Messages: []provider.Message{provider.NewUserMessage(text)},
		Options: provider.StreamOptions{APIKey: "sk-test-key"}}
}
