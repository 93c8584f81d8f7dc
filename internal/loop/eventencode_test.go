package loop

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// TestEventEncoderMatchesMarshalJSON runs a two-turn prompt (thinking, a long streamed text, a tool
// call, its result, a second answer) and writes every event through one encoder: each line must be
// MarshalJSON's bytes.
func TestEventEncoderMatchesMarshalJSON(t *testing.T) {
	longText := func(ctx context.Context, req *provider.Request, b *provider.StreamBuilder) *provider.AssistantMessage {
		b.Start()
		b.Thinking("Let me think about \"this\".", "reasoning_content")
		for i := range 500 {
			b.Text(string(rune('a'+i%26)) + "é\n")
		}
		i := 0
		b.ToolCall(&i, "call_1", "echo", `{"text":`)
		b.ToolCall(&i, "", "", `"hi"}`)
		b.SetStopReason(provider.StopReasonToolUse, "")
		return b.Finish()
	}
	s := newScript(t, longText, reply(strings.Repeat("done ", 40)))
	a, _ := newTestAgent(t, s, Config{}, &testTool{name: "echo"})
	var enc EventEncoder
	var buf []byte
	n := 0
	a.Subscribe(func(e Event) {
		want, err := e.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if buf, err = enc.AppendJSON(buf[:0], &e); err != nil {
			t.Fatal(err)
		}
		if string(buf) != string(want) {
			t.Fatalf("event %d (%s):\n got %s\nwant %s", n, e.Type, buf, want)
		}
		n++
	})
	if err := a.Prompt(context.Background(), user("hi")); err != nil {
		t.Fatal(err)
	}
	if n < 500 {
		t.Fatalf("only %d events", n)
	}
}
