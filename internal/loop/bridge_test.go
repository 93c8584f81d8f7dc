package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func deltaEvent(t provider.AssistantEventType, idx int, delta, partialText string) Event {
	partial := &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(partialText)}}
	return Event{Type: EventMessageUpdate, Message: partial,
		AssistantEvent: &provider.AssistantEvent{Type: t, ContentIndex: idx, Delta: delta, Partial: partial}}
}

func bridgeLabel(ev Event) string {
	if ev.IsDelta() {
		return fmt.Sprintf("%s %d %q", ev.AssistantEvent.Type, ev.AssistantEvent.ContentIndex, ev.AssistantEvent.Delta)
	}
	return string(ev.Type)
}

func TestBridgeMergesOnlyConsecutiveDeltasOfOneBlock(t *testing.T) {
	b := NewBridge()
	first := deltaEvent(provider.EventTextDelta, 0, "a", "a")
	b.Push(Event{Type: EventAgentStart})
	b.Push(first)
	b.Push(deltaEvent(provider.EventTextDelta, 0, "b", "ab"))
	b.Push(deltaEvent(provider.EventTextDelta, 0, "c", "abc"))
	b.Push(deltaEvent(provider.EventThinkingDelta, 1, "x", "abc"))
	b.Push(deltaEvent(provider.EventThinkingDelta, 1, "y", "abc"))
	b.Push(deltaEvent(provider.EventTextDelta, 0, "d", "abcd"))
	b.Push(deltaEvent(provider.EventToolCallDelta, 2, `{"a"`, "abcd"))
	b.Push(deltaEvent(provider.EventToolCallDelta, 3, `{}`, "abcd"))
	b.Push(Event{Type: EventToolExecutionUpdate, ToolCallID: "c1"})
	b.Push(Event{Type: EventToolExecutionUpdate, ToolCallID: "c1"})
	last := deltaEvent(provider.EventTextDelta, 0, "e", "abcde")
	b.Push(last)
	if b.Len() != 9 {
		t.Fatalf("queued %d events", b.Len())
	}
	select {
	case <-b.Ready():
	default:
		t.Fatal("ready not signalled")
	}
	got := b.Drain()
	var labels []string
	for _, ev := range got {
		labels = append(labels, bridgeLabel(ev))
	}
	want := []string{"agent_start", `text_delta 0 "abc"`, `thinking_delta 1 "xy"`, `text_delta 0 "d"`,
		`toolcall_delta 2 "{\"a\""`, `toolcall_delta 3 "{}"`, "tool_execution_update", "tool_execution_update", `text_delta 0 "e"`}
	if !slices.Equal(labels, want) {
		t.Fatalf("drained %q\nwant    %q", labels, want)
	}
	merged := got[1]
	if provider.TextOf(merged.Message.(*provider.AssistantMessage).Content, "") != "abc" ||
		provider.TextOf(merged.AssistantEvent.Partial.Content, "") != "abc" {
		t.Error("a merged delta must carry the newest partial")
	}
	if first.AssistantEvent.Delta != "a" {
		t.Error("the provider's event was modified")
	}
	if got[8].AssistantEvent != last.AssistantEvent {
		t.Error("an unmerged event must be passed through as it is")
	}
	if b.Drain() != nil || b.Len() != 0 {
		t.Fatal("drain left events behind")
	}
	// A consumer that keeps up sees every delta.
	b.Push(deltaEvent(provider.EventTextDelta, 0, "f", "f"))
	if evs := b.Drain(); len(evs) != 1 || evs[0].AssistantEvent.Delta != "f" {
		t.Fatalf("%v", evs)
	}
	b.Push(deltaEvent(provider.EventTextDelta, 0, "g", "fg"))
	if evs := b.Drain(); len(evs) != 1 || evs[0].AssistantEvent.Delta != "g" {
		t.Fatalf("deltas merged across a drain: %v", evs)
	}
}

func TestBridgeNext(t *testing.T) {
	b := NewBridge()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next on a cancelled context: %v", err)
	}
	b.Push(Event{Type: EventAgentStart})
	evs, err := b.Next(context.Background())
	if err != nil || len(evs) != 1 {
		t.Fatalf("%v %v", evs, err)
	}
}

// streamChunks streams a thinking block, text and one tool call, each in many small deltas.
func streamChunks(n int, callID string) step {
	return func(ctx context.Context, req *provider.Request, b *provider.StreamBuilder) *provider.AssistantMessage {
		for i := range n {
			b.Thinking(fmt.Sprintf("t%d ", i), "reasoning_content")
		}
		for i := range n {
			b.Text(fmt.Sprintf("w%d ", i))
		}
		if callID != "" {
			idx := 0
			b.ToolCall(&idx, callID, "echo", "")
			b.ToolCall(&idx, "", "", `{"text":`)
			b.ToolCall(&idx, "", "", `"x"}`)
			b.SetStopReason(provider.StopReasonToolUse, "")
		}
		return b.Finish()
	}
}

// checkBridged compares what a consumer got through the bridge with what the agent emitted.
func checkBridged(t *testing.T, direct, bridged []Event) {
	t.Helper()
	var wantOther, gotOther []string
	wantText := map[string]string{}
	gotText := map[string]string{}
	collect := func(evs []Event, other *[]string, text map[string]string) {
		turn := 0
		for _, ev := range evs {
			if ev.Type == EventTurnStart {
				turn++
			}
			if ev.IsDelta() {
				k := fmt.Sprintf("%d/%s/%d", turn, ev.AssistantEvent.Type, ev.AssistantEvent.ContentIndex)
				text[k] += ev.AssistantEvent.Delta
				continue
			}
			*other = append(*other, describeEvent(ev))
		}
	}
	collect(direct, &wantOther, wantText)
	collect(bridged, &gotOther, gotText)
	diffLines(t, gotOther, wantOther)
	if len(gotText) != len(wantText) {
		t.Fatalf("delta blocks %v, want %v", gotText, wantText)
	}
	for k, v := range wantText {
		if gotText[k] != v {
			t.Fatalf("deltas of %s: %q, want %q", k, gotText[k], v)
		}
	}
}

func TestBridgeStalledConsumerGetsEveryOtherEvent(t *testing.T) {
	const n = 500
	s := newScript(t, streamChunks(n, "call_1"), streamChunks(n, ""))
	a, rec := newTestAgent(t, s, Config{}, &testTool{name: "echo", exec: func(ctx context.Context, c ToolCall, up func(ToolResult)) (ToolResult, error) {
		for i := range 3 {
			up(textResult(strings.Repeat("x", i+1)))
		}
		return textResult("done"), nil
	}})
	b := NewBridge()
	a.Subscribe(b.Push)
	// The consumer stalls for the whole run: Prompt must still finish, and nothing but deltas may merge.
	if err := a.Prompt(context.Background(), user("hi")); err != nil {
		t.Fatal(err)
	}
	bridged := b.Drain()
	checkBridged(t, rec.events, bridged)
	deltas := 0
	for _, ev := range bridged {
		if ev.IsDelta() {
			deltas++
			if ev.AssistantEvent.Type == provider.EventTextDelta && ev.Message.(*provider.AssistantMessage).Content[ev.AssistantEvent.ContentIndex].Text != ev.AssistantEvent.Partial.Content[ev.AssistantEvent.ContentIndex].Text {
				t.Fatal("message and partial disagree")
			}
		}
	}
	// Thinking and text of two responses, plus the tool call's argument deltas: five merged deltas.
	if deltas != 5 {
		t.Errorf("%d delta events after merging, want 5", deltas)
	}
	for _, ev := range bridged {
		if ev.IsDelta() && ev.AssistantEvent.Type == provider.EventTextDelta {
			if got := ev.Message.(*provider.AssistantMessage).Content[ev.AssistantEvent.ContentIndex].Text; got != ev.AssistantEvent.Delta {
				t.Errorf("the merged text delta should be the whole text here: %q vs %q", ev.AssistantEvent.Delta, got)
			}
		}
	}
}

func TestBridgeConcurrentConsumer(t *testing.T) {
	const n = 300
	s := newScript(t, streamChunks(n, "call_1"), streamChunks(n, ""))
	a, rec := newTestAgent(t, s, Config{}, &testTool{name: "echo"})
	b := NewBridge()
	a.Subscribe(b.Push)
	got := make(chan []Event)
	go func() {
		var all []Event
		for {
			evs, err := b.Next(context.Background())
			if err != nil {
				break
			}
			all = append(all, evs...)
			if all[len(all)-1].Type == EventAgentEnd {
				break
			}
		}
		got <- all
	}()
	if err := a.Prompt(context.Background(), user("hi")); err != nil {
		t.Fatal(err)
	}
	checkBridged(t, rec.events, <-got)
}
