package compaction

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// serializeConversation is the whole serialized text of msgs (pi's serializeConversation).
func serializeConversation(msgs []provider.Message) string {
	return concat(serializedPieces(nil, msgs))
}

func toolResult(text string) *provider.ToolResultMessage {
	return &provider.ToolResultMessage{ToolCallID: "tc1", ToolName: "read", Content: []provider.Content{provider.TextContent(text)}}
}

func TestSerializeTruncatesLongToolResults(t *testing.T) {
	got := serializeConversation([]provider.Message{toolResult(strings.Repeat("x", 5000))})
	if !strings.Contains(got, "[Tool result]:") || !strings.Contains(got, "[... 3000 more characters truncated]") {
		t.Errorf("got %q", got[:100])
	}
	if strings.Contains(got, strings.Repeat("x", 3000)) && strings.Count(got, "x") != 2000 {
		t.Error("more than 2000 characters kept")
	}
	if want := "[Tool result]: " + strings.Repeat("x", 2000) + "\n\n[... 3000 more characters truncated]"; got != want {
		t.Errorf("got %q…", got[len(got)-60:])
	}
}

func TestSerializeKeepsShortToolResults(t *testing.T) {
	short := strings.Repeat("x", 1500)
	if got := serializeConversation([]provider.Message{toolResult(short)}); got != "[Tool result]: "+short {
		t.Errorf("got %q", got)
	}
	exact := strings.Repeat("y", 2000)
	if got := serializeConversation([]provider.Message{toolResult(exact)}); got != "[Tool result]: "+exact {
		t.Error("exactly 2000 characters are not cut")
	}
}

func TestSerializeNeverTruncatesUserOrAssistant(t *testing.T) {
	long := strings.Repeat("y", 5000)
	got := serializeConversation([]provider.Message{provider.NewUserMessage(long), assistantMsg(provider.Usage{}, provider.TextContent(long))})
	if strings.Contains(got, "truncated") || got != "[User]: "+long+"\n\n[Assistant]: "+long {
		t.Error("user and assistant text must stay whole")
	}
}

func TestSerializeCountsJavaScriptCharacters(t *testing.T) {
	// 1999 ASCII characters then an emoji (two UTF-16 units) straddling the limit, then 10 more.
	text := strings.Repeat("a", 1999) + "😀" + strings.Repeat("b", 10)
	got := serializeConversation([]provider.Message{toolResult(text)})
	// pi 1.6 leaves the character the limit falls inside out whole (0.73.1 kept half of it).
	if want := "[Tool result]: " + strings.Repeat("a", 1999) + "\n\n[... 11 more characters truncated]"; got != want {
		t.Errorf("got …%q", got[len(got)-50:])
	}
}

func TestSerializeFormat(t *testing.T) {
	msgs := []provider.Message{
		provider.NewUserMessage("fix the bug"),
		&provider.UserMessage{Content: []provider.Content{provider.TextContent("part one"), provider.ImageContent("AA", "image/png"), provider.TextContent(" part two")}},
		provider.NewUserMessage(""),
		assistantMsg(provider.Usage{},
			provider.Content{Type: provider.ContentThinking, Thinking: "hmm"},
			provider.TextContent("Looking."),
			provider.Content{Type: provider.ContentThinking, Thinking: "more"},
			provider.TextContent("Still looking."),
			provider.ToolCallContent("c1", "read", json.RawMessage(`{"path": "a.go", "offset": 10, "limit": 2.50}`)),
			provider.ToolCallContent("c2", "bash", json.RawMessage(`{"command":"go test ./...\n","timeout":null,"env":{"A":"1"}}`)),
			provider.ToolCallContent("c3", "ls", json.RawMessage(`{}`)),
		),
		&provider.ToolResultMessage{ToolCallID: "c1", ToolName: "read", Content: []provider.Content{provider.TextContent("line1\n"), provider.ImageContent("AA", "image/png"), provider.TextContent("line2")}},
		&provider.ToolResultMessage{ToolCallID: "c3", ToolName: "ls", Content: []provider.Content{}},
		assistantMsg(provider.Usage{}),
		&provider.BashExecutionMessage{Command: "ls", Output: "x"}, // not an LLM role: left to ConvertToLLM
	}
	want := strings.Join([]string{
		"[User]: fix the bug",
		"[User]: part one part two",
		"[Assistant]: Looking.\nStill looking.", // thinking is not quoted (pi 1.6)
		`[Assistant tool calls]: read(path="a.go", offset=10, limit=2.5); bash(command="go test ./...\n", timeout=null, env={"A":"1"}); ls()`,
		"[Tool result]: line1\nline2",
	}, "\n\n")
	if got := serializeConversation(msgs); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := serializeConversation(nil); got != "" {
		t.Errorf("empty: %q", got)
	}
}
