package compaction

import (
	"strconv"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
)

// ToolResultMaxChars is how much of a tool result's text a summary request shows (JavaScript
// characters); the rest is replaced by a note saying how much was left out.
const ToolResultMaxChars = 2000

// serializedPieces appends to pieces, as the strings it is made of (the messages' own texts among
// them), the plain text a summary request quotes for LLM messages (convert coding-agent roles first),
// so the summariser reads a transcript instead of continuing a conversation; a summary prompt of a
// long history is then written once into its final size instead of through a copy per step. Parts are
// separated by blank lines:
//
//	[User]: <text>
//	[Assistant]: <text blocks, one per line>
//	[Assistant tool calls]: name(key=<JSON value>, ...); ...
//	[Tool result]: <text, cut after 2000 characters>
//
// Empty user and tool-result texts are left out; user and assistant text is never cut. Thinking is
// not quoted (pi 1.6; 0.73.1 quoted it as "[Assistant thinking]").
func serializedPieces(pieces []string, msgs []provider.Message) []string {
	first := len(pieces)
	part := func(label, text string) {
		if len(pieces) > first {
			pieces = append(pieces, "\n\n")
		}
		pieces = append(pieces, label, text)
	}
	for _, m := range msgs {
		switch m := m.(type) {
		case *provider.UserMessage:
			if text := joinText(m.Content); text != "" {
				part("[User]: ", text)
			}
		case *provider.AssistantMessage:
			var text, calls []string
			for i := range m.Content {
				c := &m.Content[i]
				switch c.Type {
				case provider.ContentText:
					text = append(text, c.Text)
				case provider.ContentToolCall:
					calls = append(calls, formatToolCall(c))
				}
			}
			if len(text) > 0 {
				part("[Assistant]: ", strings.Join(text, "\n"))
			}
			if len(calls) > 0 {
				part("[Assistant tool calls]: ", strings.Join(calls, "; "))
			}
		case *provider.ToolResultMessage:
			if text := joinText(m.Content); text != "" {
				kept, note := summaryCut(text, ToolResultMaxChars)
				part("[Tool result]: ", kept)
				if note != "" {
					pieces = append(pieces, note)
				}
			}
		}
	}
	return pieces
}

// concat joins pieces with one allocation.
func concat(pieces []string) string {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range pieces {
		b.WriteString(p)
	}
	return b.String()
}

// joinText concatenates the text blocks of content with nothing between them.
func joinText(content []provider.Content) string {
	if len(content) == 1 && content[0].Type == provider.ContentText {
		return content[0].Text
	}
	var b strings.Builder
	for _, c := range content {
		if c.Type == provider.ContentText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// formatToolCall writes name(key=<value as JSON.stringify writes it>, ...) in the arguments' own order.
func formatToolCall(c *provider.Content) string {
	var b strings.Builder
	b.WriteString(c.Name)
	b.WriteByte('(')
	members, _ := jsObjectEntries(c.Arguments) // arguments that are not an object show as ()
	for i, m := range members {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.key)
		b.WriteByte('=')
		b.Write(m.value)
	}
	b.WriteByte(')')
	return b.String()
}

// summaryCut keeps the first max characters of text and says how many more there were, in two
// parts: the text kept (a slice of text, but for a surrogate pair cut in two) and the note ("" when
// nothing was left out).
func summaryCut(text string, max int) (kept, note string) {
	n := jsLen(text)
	if n <= max {
		return text, ""
	}
	return jsSliceHead(text, max), "\n\n[... " + strconv.Itoa(n-max) + " more characters truncated]"
}
