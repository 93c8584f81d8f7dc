package loop

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// TestRunEventsJSON checks the JSON lines of a run with a failing tool call against pi's shapes.
func TestRunEventsJSON(t *testing.T) {
	s := newScript(t, callTools([]callSpec{call("call_1", "nope", `{"a":1}`)}), reply("ok"))
	a, rec := newTestAgent(t, s, Config{})
	if err := a.Prompt(context.Background(), user("hi")); err != nil {
		t.Fatal(err)
	}
	stamp := regexp.MustCompile(`"timestamp":\d+`)
	usage := `"usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`
	assistant := `{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"nope","arguments":{"a":1}}],"api":"openai-completions","provider":"mock","model":"mock-model",` +
		usage + `,"stopReason":"toolUse","timestamp":0}`
	result := `{"role":"toolResult","toolCallId":"call_1","toolName":"nope","content":[{"type":"text","text":"Tool nope not found"}],"details":{},"isError":true,"timestamp":0}`
	want := map[EventType]string{
		EventToolExecutionStart: `{"type":"tool_execution_start","toolCallId":"call_1","toolName":"nope","args":{"a":1}}`,
		EventToolExecutionEnd:   `{"type":"tool_execution_end","toolCallId":"call_1","toolName":"nope","result":{"content":[{"type":"text","text":"Tool nope not found"}],"details":{}},"isError":true}`,
		EventTurnEnd:            `{"type":"turn_end","message":` + assistant + `,"toolResults":[` + result + `]}`,
	}
	seen := map[EventType]bool{}
	for _, ev := range rec.events {
		data, err := json.Marshal(&ev)
		if err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
		if !json.Valid(data) {
			t.Fatalf("%s: invalid JSON %s", ev.Type, data)
		}
		line := stamp.ReplaceAllString(string(data), `"timestamp":0`)
		if w, ok := want[ev.Type]; ok && !seen[ev.Type] {
			seen[ev.Type] = true
			if line != w {
				t.Errorf("%s:\n got %s\nwant %s", ev.Type, line, w)
			}
		}
	}
	if len(seen) != len(want) {
		t.Errorf("missing events: saw %v", seen)
	}
	// The transcript holds the same result message the events carried.
	if msg := a.Messages()[2].(*provider.ToolResultMessage); !msg.IsError || msg.ToolName != "nope" {
		t.Errorf("result message %+v", msg)
	}
}
