package harness

import (
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// TestLLMConverterKeepsConvertedMessages: a summary or bash execution is the same user message on
// every request while it stays in the transcript, and a new one once it was dropped and comes back.
func TestLLMConverterKeepsConvertedMessages(t *testing.T) {
	sum := &provider.CompactionSummaryMessage{Summary: "s"}
	bash := &provider.BashExecutionMessage{Command: "ls", Output: "a"}
	hidden := &provider.BashExecutionMessage{Command: "pwd", ExcludeFromContext: true}
	u := provider.NewUserMessage("hi")
	var c llmConverter
	first := c.convert([]provider.Message{sum, u, bash, hidden})
	if len(first) != 3 || first[1] != provider.Message(u) {
		t.Fatalf("converted %d messages: %v", len(first), first)
	}
	again := c.convert([]provider.Message{sum, u, bash, provider.NewUserMessage("more")})
	if again[0] != first[0] || again[2] != first[2] {
		t.Fatal("a message still in the transcript was converted again")
	}
	if got := provider.TextOf(again[0].(*provider.UserMessage).Content, ""); got != compactionSummaryPrefix+"s"+compactionSummarySuffix {
		t.Fatalf("summary sent as %q", got)
	}
	c.convert([]provider.Message{u})
	if back := c.convert([]provider.Message{sum}); back[0] == first[0] {
		t.Fatal("a dropped message's conversion was kept")
	}
}
