package provider

import (
	"strings"
	"sync"
	"testing"
)

func TestBlockBuilderEvents(t *testing.T) {
	var got []string
	var kept *AssistantMessage
	b := NewBlockBuilder(&Model{ID: "m", API: APIOpenAIResponses, Provider: "p"}, func(e *AssistantEvent) {
		s := string(e.Type)
		if e.Delta != "" {
			s += "(" + e.Delta + ")"
		}
		got = append(got, s)
		if e.Type == EventTextDelta && kept == nil {
			kept = e.Snapshot()
		}
	})
	th := b.Open(Content{Type: ContentThinking})
	b.Append(th, "hmm")
	b.Update(th, func(c *Content) { c.ThinkingSignature = "sig" })
	b.Close(th)
	tx := b.Open(Content{Type: ContentText})
	b.Append(tx, "Hel")
	b.Append(tx, "lo")
	args := `{"a":`
	tc := b.Open(Content{Type: ContentToolCall, ID: "c1", Name: "f", PartialArgs: &args})
	b.Append(tc, `1`)
	b.SetArguments(tc, `{"a":12}`) // continues the text: the rest is a delta
	b.SetStopReason("done", StopReasonToolUse, "")
	msg := b.Finish()
	want := "start thinking_start thinking_delta(hmm) thinking_end text_start text_delta(Hel) text_delta(lo) toolcall_start " +
		"toolcall_delta(1) toolcall_delta(2}) text_end toolcall_end done"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("events\n got: %s\nwant: %s", g, want)
	}
	if kept.Content[1].Text != "Hel" {
		t.Errorf("kept snapshot changed: %q", kept.Content[1].Text)
	}
	if c := msg.Content[2]; string(c.Arguments) != `{"a":12}` || c.PartialArgs != nil || msg.Content[0].ThinkingSignature != "sig" {
		t.Errorf("final %+v", msg.Content)
	}
}

// Snapshots taken on another goroutine while the builder streams are consistent (run with -race).
func TestBlockBuilderConcurrentSnapshots(t *testing.T) {
	events := make(chan *AssistantEvent, 1)
	b := NewBlockBuilder(&Model{ID: "m"}, func(e *AssistantEvent) {
		select {
		case events <- e:
		default:
		}
	})
	var wg sync.WaitGroup
	wg.Add(1)
	stop := make(chan struct{})
	go func() {
		defer wg.Done()
		for {
			select {
			case e := <-events:
				if s := e.Snapshot(); s != nil {
					for _, c := range s.Content {
						if c.Type == ContentText && strings.Trim(c.Text, "x") != "" {
							t.Errorf("torn text %q", c.Text)
						}
					}
				}
			case <-stop:
				return
			}
		}
	}()
	for i := 0; i < 50; i++ {
		blk := b.Open(Content{Type: ContentText})
		for j := 0; j < 20; j++ {
			b.Append(blk, "x")
		}
		b.Close(blk)
	}
	b.SetStopReason("stop", StopReasonStop, "")
	b.Finish()
	close(stop)
	wg.Wait()
}

func TestBlockBuilderFailKeepsContent(t *testing.T) {
	var last *AssistantEvent
	b := NewBlockBuilder(&Model{ID: "m"}, func(e *AssistantEvent) { last = e })
	partial := `{"path":"a`
	i := b.Open(Content{Type: ContentToolCall, ID: "c", Name: "read", PartialArgs: &partial})
	_ = i
	msg := b.Fail(StopReasonError, "boom")
	if last.Type != EventError || msg.ErrorMessage != "boom" || string(msg.Content[0].Arguments) != `{"path":"a"}` || msg.Content[0].PartialArgs != nil {
		t.Errorf("failed message %+v, last event %s", msg, last.Type)
	}
}
