package demo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openai"
)

// These tests run the demo through the real OpenAI-compatible provider, as the harness wires them.

func providerTools() []provider.ToolDefinition {
	var defs []provider.ToolDefinition
	for _, name := range []string{"read", "bash", "edit", "write"} {
		defs = append(defs, provider.ToolDefinition{Name: name, Description: "the " + name + " tool", Parameters: json.RawMessage(toolSchemas[name])})
	}
	return defs
}

func TestThroughOpenAIProvider(t *testing.T) {
	p := openai.New(openai.Config{HTTPClient: HTTPClient(Options{FullSpeed: true})})
	req := &provider.Request{
		Model:        Model(),
		SystemPrompt: "You are an expert coding assistant.",
		Messages:     []provider.Message{provider.NewUserMessage("read README.md")},
		Tools:        providerTools(),
		Options:      provider.StreamOptions{Reasoning: provider.ThinkingMedium},
	}
	var types []provider.AssistantEventType
	msg := p.Stream(context.Background(), req, func(ev *provider.AssistantEvent) { types = append(types, ev.Type) })
	if msg.StopReason != provider.StopReasonToolUse || msg.ErrorMessage != "" {
		t.Fatalf("stop %q error %q", msg.StopReason, msg.ErrorMessage)
	}
	if len(msg.Content) != 3 || msg.Content[0].Type != provider.ContentThinking || msg.Content[1].Type != provider.ContentText ||
		msg.Content[2].Type != provider.ContentToolCall {
		t.Fatalf("want thinking, text, toolCall blocks; got %+v", msg.Content)
	}
	if !strings.Contains(msg.Content[1].Text, "offline demo model") || msg.Content[0].Thinking == "" {
		t.Errorf("content %+v", msg.Content)
	}
	call := msg.Content[2]
	if call.Name != "read" || string(call.Arguments) != `{"path":"README.md"}` || !strings.HasPrefix(call.ID, "call_") {
		t.Errorf("tool call %s %s %s", call.ID, call.Name, call.Arguments)
	}
	if msg.Usage.Input == 0 || msg.Usage.Output == 0 || msg.Usage.Cost.Total != 0 || !strings.HasPrefix(msg.ResponseID, "chatcmpl-") {
		t.Errorf("usage %+v response id %q", msg.Usage, msg.ResponseID)
	}
	if types[0] != provider.EventStart || types[len(types)-1] != provider.EventDone {
		t.Errorf("events %v", types)
	}

	// The tool result goes back; the demo answers from it.
	req.Messages = append(req.Messages, msg, &provider.ToolResultMessage{
		ToolCallID: call.ID, ToolName: "read", Timestamp: provider.Now(),
		Content: []provider.Content{provider.TextContent("# Widget\n\nMakes widgets quickly.\n")},
	})
	answer := p.Stream(context.Background(), req, func(*provider.AssistantEvent) {})
	if answer.StopReason != provider.StopReasonStop {
		t.Fatalf("stop %q error %q", answer.StopReason, answer.ErrorMessage)
	}
	if text := provider.TextOf(answer.Content, ""); !strings.Contains(text, "Makes widgets quickly.") || !strings.Contains(text, "3 lines") {
		t.Errorf("the answer does not use the tool result:\n%s", text)
	}
}

func TestAbortThroughOpenAIProvider(t *testing.T) {
	p := openai.New(openai.Config{HTTPClient: HTTPClient(Options{Delay: time.Millisecond})})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := &provider.Request{Model: Model(), Messages: []provider.Message{provider.NewUserMessage("help")}, Tools: providerTools()}
	deltas := 0
	var msg *provider.AssistantMessage
	within(t, "an aborted stream", func() {
		msg = p.Stream(ctx, req, func(ev *provider.AssistantEvent) {
			if ev.Type == provider.EventTextDelta {
				if deltas++; deltas == 5 {
					cancel()
				}
			}
		})
	})
	if msg.StopReason != provider.StopReasonAborted {
		t.Fatalf("stop %q error %q", msg.StopReason, msg.ErrorMessage)
	}
	text := provider.TextOf(msg.Content, "")
	if text == "" || strings.Contains(text, "models.json") {
		t.Errorf("the partial answer should be kept and cut short, got %q", text)
	}
}
