package tui

import (
	"testing"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

func agentEv(t loop.EventType, text string) harness.Event {
	e := loop.Event{Type: t}
	if text != "" {
		e.Message = &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(text)}}
	}
	return harness.Event{Type: string(t), Agent: &e}
}

func TestInboxMergesStreamUpdatesOnly(t *testing.T) {
	b := newInbox()
	b.pushEvent(agentEv(loop.EventMessageStart, ""))
	for _, s := range []string{"a", "ab", "abc"} {
		b.pushEvent(agentEv(loop.EventMessageUpdate, s))
	}
	b.pushEvent(agentEv(loop.EventToolExecutionStart, ""))
	b.pushEvent(agentEv(loop.EventMessageUpdate, "abcd"))
	b.pushMsg(bashChunkMsg{id: 1, text: "x"})
	b.pushMsg(bashChunkMsg{id: 1, text: "y"})
	b.pushMsg(bashChunkMsg{id: 2, text: "z"})
	b.pushEvent(harness.Event{Type: harness.EventQueueUpdate})
	b.pushEvent(harness.Event{Type: harness.EventQueueUpdate})
	got := b.drain()
	var kinds []string
	for _, it := range got {
		switch {
		case it.msg != nil:
			c := it.msg.(bashChunkMsg)
			kinds = append(kinds, "bash:"+c.text)
		case it.ev.Agent != nil && it.ev.Agent.Message != nil:
			kinds = append(kinds, it.ev.Type+":"+provider.TextOf(it.ev.Agent.Message.(*provider.AssistantMessage).Content, ""))
		default:
			kinds = append(kinds, it.ev.Type)
		}
	}
	want := []string{"message_start", "message_update:abc", "tool_execution_start", "message_update:abcd",
		"bash:xy", "bash:z", "queue_update", "queue_update"}
	if len(kinds) != len(want) {
		t.Fatalf("got %q\nwant %q", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("got %q\nwant %q", kinds, want)
		}
	}
	if b.drain() != nil {
		t.Fatal("drain did not empty the inbox")
	}
}
