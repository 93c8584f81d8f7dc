package render

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// streamedSnapshots plays a thinking block, a text block and a tool call through the provider's
// StreamBuilder in small random deltas and returns every partial snapshot and the final message.
func streamedSnapshots(t *testing.T, thinking, text string, seed int64) ([]*provider.AssistantMessage, *provider.AssistantMessage) {
	t.Helper()
	var snaps []*provider.AssistantMessage
	b := provider.NewStreamBuilder(&provider.Model{ID: "m", Provider: "p"}, func(e *provider.AssistantEvent) {
		if e.Partial != nil {
			snaps = append(snaps, e.Snapshot())
		}
	})
	b.Start()
	rng := rand.New(rand.NewSource(seed))
	feed := func(s string, f func(string)) {
		for i := 0; i < len(s); {
			n := min(1+rng.Intn(9), len(s)-i)
			f(s[i : i+n])
			i += n
		}
	}
	feed(thinking, func(d string) { b.Thinking(d, "reasoning_content") })
	feed(text, b.Text)
	idx := 0
	b.ToolCall(&idx, "call_1", "bash", `{"command":"ls"}`)
	b.SetStopReason("tool_calls", provider.StopReasonToolUse, "")
	return snaps, b.Finish()
}

// Streaming an assistant message, flushing at random moments, prints exactly what rendering the
// final message at once shows; at every step the flushed lines plus the live lines are the whole
// message so far.
func TestAssistantStreamFlushEqualsWhole(t *testing.T) {
	r := newGoldenRenderer()
	thinking := "Let me think about this.\n\nFirst, the file.\n\nThen the test."
	for _, hide := range []bool{false, true} {
		for seed := int64(1); seed <= 3; seed++ {
			snaps, final := streamedSnapshots(t, thinking, longAnswer(60), seed)
			opts := AssistantOptions{HideThinking: hide}
			s := r.NewAssistantStream(opts)
			rng := rand.New(rand.NewSource(seed))
			var printed []string
			for _, m := range snaps {
				s.Update(m)
				live := s.Live(90)
				assertFits(t, live, 90)
				all := append(append([]string(nil), printed...), live...)
				if got, want := strings.Join(all, "\n"), strings.Join(s.Lines(90), "\n"); got != want {
					t.Fatalf("hide=%v: flushed+live != lines\n%s\n---\n%s", hide, got, want)
				}
				if rng.Intn(4) == 0 {
					printed = append(printed, s.Flush(90)...)
				}
			}
			s.Finish(final)
			printed = append(printed, s.Flush(90)...)
			if live := s.Live(90); len(live) > 0 {
				t.Fatalf("live lines after the final flush: %q", live)
			}
			want := r.AssistantMessage(final, opts, 90)
			if got := strings.Join(printed, "\n"); got != strings.Join(want, "\n") {
				t.Errorf("hide=%v seed=%d: streamed output differs from the whole message\n--- streamed\n%s\n--- whole\n%s",
					hide, seed, plain(printed), plain(want))
			}
		}
	}
}

func TestAssistantStreamCollapsedThinkingFlushesWhenDone(t *testing.T) {
	r := newGoldenRenderer()
	s := r.NewAssistantStream(AssistantOptions{HideThinking: true})
	s.Update(&provider.AssistantMessage{Content: []provider.Content{{Type: provider.ContentThinking, Thinking: "step one\n\nstep two\n\n"}}})
	if got := s.Flush(80); len(got) != 0 {
		t.Fatalf("collapsed thinking flushed while still streaming: %q", got)
	}
	if got := plain(s.Live(80)); got != "\n Thinking...\n" {
		t.Fatalf("live = %q", got)
	}
	s.Update(&provider.AssistantMessage{Content: []provider.Content{
		{Type: provider.ContentThinking, Thinking: "step one\n\nstep two\n\n"}, provider.TextContent("Answer"),
	}})
	if got := plain(s.Flush(80)); got != "\n Thinking...\n" {
		t.Fatalf("flush after thinking ended = %q", got)
	}
	if got := plain(s.Live(80)); got != "\n Answer\n" {
		t.Fatalf("live = %q", got)
	}
}

// A block that is empty while it is the last one disappears when the next starts: its successor must
// not inherit its kind.
func TestAssistantStreamEmptyBlockDropped(t *testing.T) {
	r := newGoldenRenderer()
	s := r.NewAssistantStream(AssistantOptions{})
	s.Update(&provider.AssistantMessage{Content: []provider.Content{{Type: provider.ContentThinking, Thinking: " "}}})
	s.Update(&provider.AssistantMessage{Content: []provider.Content{{Type: provider.ContentThinking, Thinking: " "}, provider.TextContent("Hi")}})
	s.Finish(&provider.AssistantMessage{Content: []provider.Content{{Type: provider.ContentThinking, Thinking: " "}, provider.TextContent("Hi")}})
	if got := s.Lines(80); len(got) != 2 || s.r.text() != s.parts[0].stream.md {
		t.Fatalf("lines %q, text rendered by the thinking renderer: %v", got, s.parts[0].stream.md == s.r.thinking())
	}
}

func TestAssistantStreamToggleThinkingBeforeFlush(t *testing.T) {
	r := newGoldenRenderer()
	m := thinkingMessage()
	s := r.NewAssistantStream(AssistantOptions{})
	s.Update(m)
	s.SetHideThinking(true)
	if got := plain(s.Live(80)); !strings.HasPrefix(got, "\n Thinking...\n") {
		t.Fatalf("after hiding: %q", got)
	}
	s.SetHideThinking(false)
	if got := plain(s.Live(80)); !strings.Contains(got, "The user wants a fix") {
		t.Fatalf("after showing: %q", got)
	}
}

// An earlier block that grows again before it was flushed keeps streaming and ends up complete.
func TestAssistantStreamEarlierBlockGrows(t *testing.T) {
	r := newGoldenRenderer()
	msg := func(thinking, text string) *provider.AssistantMessage {
		return &provider.AssistantMessage{Content: []provider.Content{{Type: provider.ContentThinking, Thinking: thinking}, provider.TextContent(text)}}
	}
	s := r.NewAssistantStream(AssistantOptions{})
	s.Update(msg("first thought", "answer"))
	s.Update(msg("first thought and a second one", "answer grows"))
	final := msg("first thought and a second one", "answer grows")
	s.Finish(final)
	got := plain(append(s.Flush(80), s.Live(80)...))
	if want := plain(r.AssistantMessage(final, AssistantOptions{}, 80)); got != want || !strings.Contains(got, "second one") {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
