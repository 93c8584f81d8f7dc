package loop

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// TestRunEventsJSON checks the JSON lines of a run against pi 1.6's shapes: a call of an unknown tool
// (an immediate error result: no duration) and a call of a tool that ran and failed with a result of
// its own (isError and structured content in the result, the duration in the event and the message),
// the answer marked with the requested thinking level.
func TestRunEventsJSON(t *testing.T) {
	s := newScript(t, callTools([]callSpec{call("call_1", "nope", `{"a":1}`), call("call_2", "exit", `{}`)}), reply("ok"))
	exit := &testTool{name: "exit", exec: func(ctx context.Context, c ToolCall, onUpdate func(ToolResult)) (ToolResult, error) {
		return ToolResult{Content: []provider.Content{provider.TextContent("Command exited with code 3")},
			StructuredContent: map[string]any{"output": "", "exit_code": 3}, IsError: true}, nil
	}}
	a, rec := newTestAgent(t, s, Config{}, exit)
	a.SetThinkingLevel(provider.ThinkingHigh)
	if err := a.Prompt(context.Background(), user("hi")); err != nil {
		t.Fatal(err)
	}
	measured := regexp.MustCompile(`"(timestamp|durationMs)":\d+`)
	usage := `"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`
	assistant := `{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"nope","arguments":{"a":1}},{"type":"toolCall","id":"call_2","name":"exit","arguments":{}}],"api":"openai-completions","provider":"mock","model":"mock-model",` +
		usage + `,"stopReason":"toolUse","timestamp":0,"rawStopReason":"tool_calls","durationMs":0,"thinkingLevel":"high"}`
	notFound := `{"role":"toolResult","toolCallId":"call_1","toolName":"nope","content":[{"type":"text","text":"Tool nope not found"}],"details":{},"isError":true,"timestamp":0}`
	exited := `{"role":"toolResult","toolCallId":"call_2","toolName":"exit","content":[{"type":"text","text":"Command exited with code 3"}],"isError":true,"durationMs":0,"timestamp":0}`
	want := []string{
		`{"type":"tool_execution_start","toolCallId":"call_1","toolName":"nope","args":{"a":1}}`,
		`{"type":"tool_execution_end","toolCallId":"call_1","toolName":"nope","result":{"content":[{"type":"text","text":"Tool nope not found"}],"details":{}},"isError":true}`,
		`{"type":"tool_execution_start","toolCallId":"call_2","toolName":"exit","args":{}}`,
		`{"type":"tool_execution_end","toolCallId":"call_2","toolName":"exit","result":{"content":[{"type":"text","text":"Command exited with code 3"}],"structuredContent":{"exit_code":3,"output":""},"isError":true},"isError":true,"durationMs":0}`,
		`{"type":"message_start","message":` + notFound + `}`,
		`{"type":"message_end","message":` + notFound + `}`,
		`{"type":"message_start","message":` + exited + `}`,
		`{"type":"message_end","message":` + exited + `}`,
		`{"type":"turn_end","message":` + assistant + `,"toolResults":[` + notFound + `,` + exited + `]}`,
	}
	var got []string
	inBatch := false
	for _, ev := range rec.events {
		data, err := json.Marshal(&ev)
		if err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
		if !json.Valid(data) {
			t.Fatalf("%s: invalid JSON %s", ev.Type, data)
		}
		if ev.Type == EventToolExecutionStart {
			inBatch = true
		}
		if inBatch {
			got = append(got, measured.ReplaceAllString(string(data), `"$1":0`))
		}
		if ev.Type == EventTurnEnd {
			break
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d events from the first tool_execution_start to turn_end, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	// The transcript holds the same result messages the events carried (after system, user, assistant
	// and nope's result).
	if msg := a.Messages()[4].(*provider.ToolResultMessage); !msg.IsError || msg.ToolName != "exit" || msg.DurationMs == nil {
		t.Errorf("result message %+v", msg)
	}
}
