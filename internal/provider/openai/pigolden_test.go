package openai

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// TestMatchesPiEventSequence replays the stream behind the first answer of the recorded pi 0.73.1 run
// (shared/samples/pi-json-events.jsonl: text in three deltas, then a bash call streamed in fragments)
// and compares the assistant events and the final message with what pi emitted. pi's partial
// snapshots are not compared: pi serialises a message that keeps changing under it.
func TestMatchesPiEventSequence(t *testing.T) {
	c := &openaitest.Chunks{ID: "chatcmpl-mock000045", Model: "mock-model", Created: 1796000696}
	srv := startServer(t)
	srv.Enqueue(openaitest.Response{Events: []string{
		c.Role(), c.Text("Let me l"), c.Text("ook arou"), c.Text("nd."),
		c.ToolCall(0, "call_mock000045_0", "bash", ""),
		c.ToolCall(0, "", "", `{"comman`), c.ToolCall(0, "", "", `d":"ls -`), c.ToolCall(0, "", "", `la"}`),
		c.Finish("tool_calls"), c.Usage(1389, 11, 0), openaitest.Done(),
	}})
	m := &provider.Model{ID: "mock-model", Provider: "mock", API: provider.APIOpenAICompletions, BaseURL: srv.URL}
	p := newTestProvider(t, Config{})
	msg, events := run(t, p, context.Background(), simpleRequest(m))

	// From pi: type, contentIndex and delta of every assistantMessageEvent of that answer.
	want := []string{
		"start", "text_start 0", "text_delta 0 Let me l", "text_delta 0 ook arou", "text_delta 0 nd.",
		"toolcall_start 1", "toolcall_delta 1 ", `toolcall_delta 1 {"comman`, `toolcall_delta 1 d":"ls -`,
		`toolcall_delta 1 la"}`, "text_end 0", "toolcall_end 1", "done",
	}
	var got []string
	for _, e := range events {
		switch e.Type {
		case provider.EventStart, provider.EventDone, provider.EventError:
			got = append(got, string(e.Type))
		case provider.EventTextDelta, provider.EventToolCallDelta:
			got = append(got, fmt.Sprintf("%s %d %s", e.Type, e.ContentIndex, e.Delta))
		default:
			got = append(got, fmt.Sprintf("%s %d", e.Type, e.ContentIndex))
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events\n got: %q\nwant: %q", got, want)
	}
	// pi's message_end for that answer, with the timestamp and duration blanked, and the fields pi
	// 1.6.0's provider adds (testdata/pi16/json-tool-run has the same answer): the reasoning count
	// and totalFromProvider of a priced usage, the raw finish reason, the duration (the thinking
	// level is the agent loop's).
	const piFinal = `{"role":"assistant","content":[{"type":"text","text":"Let me look around."},{"type":"toolCall","id":"call_mock000045_0","name":"bash","arguments":{"command":"ls -la"}}],"api":"openai-completions","provider":"mock","model":"mock-model","usage":{"input":1389,"output":11,"cacheRead":0,"cacheWrite":0,"reasoning":0,"totalTokens":1400,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}},"stopReason":"toolUse","timestamp":0,"responseId":"chatcmpl-mock000045","rawStopReason":"tool_calls","durationMs":0}`
	data, err := msg.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	final := regexp.MustCompile(`"timestamp":\d+`).ReplaceAllString(string(data), `"timestamp":0`)
	final = regexp.MustCompile(`"durationMs":\d+`).ReplaceAllString(final, `"durationMs":0`)
	if final != piFinal {
		t.Fatalf("final message\n got: %s\nwant: %s", final, piFinal)
	}
	// A partial tool call shows its raw arguments and stream index, as pi's partials do.
	last := events[len(events)-4] // the last toolcall_delta
	if pc, _ := last.Partial.Content[1].MarshalJSON(); string(pc) != `{"type":"toolCall","id":"call_mock000045_0","name":"bash","arguments":{"command":"ls -la"},"partialArgs":"{\"command\":\"ls -la\"}","streamIndex":0}` {
		t.Fatalf("partial tool call %s", pc)
	}
	// The toolcall_end event carries the finished call, as pi's does.
	end := events[len(events)-2]
	if tc, _ := end.ToolCall.MarshalJSON(); string(tc) != `{"type":"toolCall","id":"call_mock000045_0","name":"bash","arguments":{"command":"ls -la"}}` {
		t.Fatalf("toolcall_end carries %s", tc)
	}
}
