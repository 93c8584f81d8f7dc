package provider

import (
	"encoding/json"
	"testing"
)

// TestTransformMessagesAcrossAPIs: a Claude reply continued on an OpenAI model (and back) is converted as
// pi 1.6's transformMessages converts it: another model's thinking, redacted or readable, is dropped; tool-call ids are normalised for the new API and their results
// follow; the model's own replies pass untouched.
func TestTransformMessagesAcrossAPIs(t *testing.T) {
	claude := &Model{ID: "claude-sonnet-4-5", Provider: "anthropic", API: APIAnthropicMessages, Input: []string{"text", "image"}}
	gpt := &Model{ID: "gpt-4.1", Provider: "openai", API: APIOpenAICompletions, Input: []string{"text"}}
	reply := &AssistantMessage{API: APIAnthropicMessages, Provider: "anthropic", Model: "claude-sonnet-4-5",
		StopReason: StopReasonToolUse, Content: []Content{
			{Type: ContentThinking, Thinking: "plan", ThinkingSignature: "sig"},
			{Type: ContentThinking, Thinking: "[Reasoning redacted]", ThinkingSignature: "enc", Redacted: true},
			ToolCallContent("toolu/01", "bash", json.RawMessage(`{"command":"ls"}`)),
		}}
	result := &ToolResultMessage{ToolCallID: "toolu/01", ToolName: "bash", Content: []Content{TextContent("x"),
		ImageContent("aGk=", "image/png")}}
	msgs := []Message{NewUserMessage("hi"), reply, result}

	norm := func(id string) string { return "n_" + id[len(id)-2:] }
	out := TransformMessages(msgs, gpt, norm)
	got, _ := json.Marshal(out[1].(*AssistantMessage).Content)
	want := `[{"type":"toolCall","id":"n_01","name":"bash","arguments":{"command":"ls"}}]`
	if string(got) != want {
		t.Errorf("on gpt:\n%s\nwant\n%s", got, want)
	}
	tr := out[2].(*ToolResultMessage)
	if tr.ToolCallID != "n_01" || len(tr.Content) != 2 || tr.Content[1].Text != toolImageOmitted {
		t.Errorf("result on gpt: %+v", tr)
	}
	if back := TransformMessages(msgs, claude, norm); back[1] != reply || back[2] != result {
		t.Error("the model's own reply and its result must pass untouched")
	}
	if reply.Content[1].Type != ContentThinking || result.ToolCallID != "toolu/01" {
		t.Error("the input was modified")
	}
}
