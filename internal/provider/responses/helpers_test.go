package responses

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// pi16Model is the model of the recorded runs (scripts/interop/record-apis).
func pi16Model(base string) *provider.Model {
	return &provider.Model{ID: "mock-resp", Name: "Mock Responses", API: provider.APIOpenAIResponses, Provider: "mockresp",
		BaseURL: base + "/v1", Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 200000, MaxTokens: 32000,
		Cost: provider.ModelCost{Input: 1.25, Output: 10, CacheRead: 0.125}}
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
