package tui

import (
	"context"
	"fmt"
	"strings"
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

func TestInboxWaitDeliversOrStops(t *testing.T) {
	b := newInbox()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if msg := b.wait(ctx)(); msg != nil {
		t.Fatalf("wait on a cancelled context with nothing queued: %v", msg)
	}
	b.pushEvent(agentEv(loop.EventAgentStart, ""))
	if items, ok := b.wait(context.Background())().(inboxMsg); !ok || len(items) != 1 || items[0].ev.Type != "agent_start" {
		t.Fatalf("wait delivered %v", items)
	}
}

// TestInboxConcurrentConsumer pushes from one goroutine while Update's command drains on another, as
// in the TUI: every event but a superseded stream update arrives, in order, and each run of updates
// ends with the newest one. Run with -race.
func TestInboxConcurrentConsumer(t *testing.T) {
	const rounds, updates = 200, 20
	b := newInbox()
	go func() {
		for i := range rounds {
			for j := range updates {
				b.pushEvent(agentEv(loop.EventMessageUpdate, fmt.Sprintf("%d.%d", i, j)))
			}
			b.pushEvent(agentEv(loop.EventToolExecutionStart, ""))
			b.pushMsg(bashChunkMsg{id: i, text: "a"})
			b.pushMsg(bashChunkMsg{id: i, text: "b"})
		}
		b.pushEvent(agentEv(loop.EventAgentEnd, ""))
	}()
	var got []inboxItem
	for len(got) == 0 || got[len(got)-1].ev.Type != "agent_end" {
		items, ok := b.wait(context.Background())().(inboxMsg)
		if !ok || len(items) == 0 {
			t.Fatalf("wait delivered %v", items)
		}
		got = append(got, items...)
	}
	round, bash := 0, map[int]string{}
	for i, it := range got {
		switch {
		case it.msg != nil:
			c := it.msg.(bashChunkMsg)
			bash[c.id] += c.text
		case it.ev.Type == "tool_execution_start":
			prev := got[i-1]
			if prev.msg != nil || prev.ev.Type != "message_update" {
				t.Fatalf("round %d: tool_execution_start after %v", round, prev)
			}
			if text := provider.TextOf(prev.ev.Agent.Message.(*provider.AssistantMessage).Content, ""); text != fmt.Sprintf("%d.%d", round, updates-1) {
				t.Fatalf("round %d ended its updates with %q", round, text)
			}
			round++
		}
	}
	if round != rounds || len(bash) != rounds || strings.Count(fmt.Sprint(bash), "ab") != rounds {
		t.Fatalf("%d rounds, bash output %v", round, bash)
	}
}
