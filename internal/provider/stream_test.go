package provider

import (
	"strings"
	"sync"
	"testing"
)

// streamEverything drives a builder through every kind of block, several tool calls among them.
func streamEverything(sb *StreamBuilder) *AssistantMessage {
	sb.Start()
	sb.SetResponseID("resp-1")
	sb.Thinking("let me ", "reasoning_content")
	sb.Thinking("think", "reasoning_content")
	sb.Text("Hello")
	sb.Text(", world")
	for i := range 6 {
		idx := i
		id := "call_" + string(rune('a'+i))
		sb.ToolCall(&idx, id, "write", `{"path":`)
		sb.ToolCall(&idx, "", "", `"f`+string(rune('0'+i))+`.txt"`)
		sb.ToolCall(&idx, "", "", `,"content":"x"}`)
		sb.Text("!") // the text block grows while later blocks exist
	}
	sb.SetResponseModel("served-model")
	sb.SetUsage(Usage{Input: 3, Output: 4, TotalTokens: 7})
	sb.SetStopReason("tool_calls", StopReasonToolUse, "")
	return sb.Finish()
}

// TestStreamSnapshotsNeverChange: a snapshot taken while an event is handled reads the same at the end
// of the stream, for every block kind and any number of blocks, and is the event's partial message as
// it was then. The partial itself is the builder's own message (no copy per event).
func TestStreamSnapshotsNeverChange(t *testing.T) {
	type seen struct {
		ev   *AssistantEvent
		snap *AssistantMessage
		json string
	}
	var events []seen
	var live *AssistantMessage
	m := &Model{ID: "m", Provider: "p", API: APIOpenAICompletions}
	final := streamEverything(NewStreamBuilder(m, func(e *AssistantEvent) {
		if e.Partial != nil {
			if live == nil {
				live = e.Partial
			} else if e.Partial != live {
				t.Fatalf("%s: a partial message of its own", e.Type)
			}
		}
		var data []byte
		if e.Partial != nil {
			var err error
			if data, err = e.Partial.MarshalJSON(); err != nil {
				t.Fatal(err)
			}
		}
		events = append(events, seen{e, e.Snapshot(), string(data)})
	}))
	if len(events) < 40 {
		t.Fatalf("only %d events", len(events))
	}
	for i, s := range events {
		if s.ev.Partial == nil {
			continue
		}
		data, err := s.snap.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != s.json {
			t.Fatalf("event %d (%s): its snapshot changed after it was taken:\nthen %s\nnow  %s", i, s.ev.Type, s.json, data)
		}
	}
	// The partials show the stream's progress: the text grows, partial arguments accumulate.
	var sawPartialArgs bool
	for _, s := range events {
		if s.ev.Type == EventToolCallDelta && strings.Contains(s.json, `"partialArgs":"{\"path\":\"f0.txt\""`) {
			sawPartialArgs = true
		}
	}
	if !sawPartialArgs {
		t.Error("no snapshot with the accumulated partial arguments of the first call")
	}
	if got := TextOf(final.Content, ""); got != "Hello, world!!!!!!" {
		t.Errorf("final text %q", got)
	}
	if len(final.Content) != 8 || final.Content[7].PartialArgs != nil || string(final.Content[7].Arguments) != `{"path":"f5.txt","content":"x"}` {
		t.Errorf("final blocks %+v", final.Content)
	}
	if final == live {
		t.Error("the final message must be a copy of its own")
	}
}

// TestStreamSnapshotsAcrossGoroutines: consumers on other goroutines take snapshots while the builder
// goes on (run with -race); a snapshot holds at least what the event it came from announced.
func TestStreamSnapshotsAcrossGoroutines(t *testing.T) {
	ch := make(chan *AssistantEvent, 16)
	var wg sync.WaitGroup
	wg.Add(1)
	var bytes int
	go func() {
		defer wg.Done()
		for e := range ch {
			snap := e.Snapshot()
			if snap == nil {
				continue
			}
			if e.Partial != nil && len(snap.Content) <= e.ContentIndex && e.Type != EventStart {
				t.Errorf("%s of block %d: a snapshot of %d blocks", e.Type, e.ContentIndex, len(snap.Content))
			}
			data, err := snap.MarshalJSON()
			if err != nil {
				t.Error(err)
				return
			}
			bytes += len(data)
			for _, c := range snap.Content {
				if c.PartialArgs != nil {
					bytes += len(*c.PartialArgs)
				}
			}
		}
	}()
	m := &Model{ID: "m", Provider: "p"}
	streamEverything(NewStreamBuilder(m, func(e *AssistantEvent) { ch <- e }))
	close(ch)
	wg.Wait()
	if bytes == 0 {
		t.Fatal("consumer saw nothing")
	}
}
