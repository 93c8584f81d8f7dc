// Package curvetest builds the long transcripts of issue 22's request-cost curve, one definition for
// every provider's BenchmarkRequestCurve.
package curvetest

import (
	"fmt"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
)

// Transcript is turns turns of about 8 KB each: a prompt, a reply of m with thinking (signed with
// signature), text and an edit call (ids callPrefix0, callPrefix1, ...), its result and a closing reply.
// Messages are a second apart, and replies carry usage, as every answer a server finished does: the
// context estimate starts from the last one.
func Transcript(m *provider.Model, turns int, callPrefix, signature string) []provider.Message {
	var msgs []provider.Message
	for t := range turns {
		id := fmt.Sprintf("%s%d", callPrefix, t)
		usage := provider.Usage{Input: 2000 * (t + 1), Output: 500}
		ts := start + int64(t)*4000
		args, _ := provider.MarshalJS(map[string]string{"path": "main.go", "oldText": text(600, t), "newText": text(600, t+1)})
		prompt := provider.NewUserMessage(text(300, t))
		prompt.Timestamp = ts
		msgs = append(msgs, prompt,
			&provider.AssistantMessage{Content: []provider.Content{
				{Type: provider.ContentThinking, Thinking: text(800, t), ThinkingSignature: signature},
				provider.TextContent(text(200, t)), provider.ToolCallContent(id, "edit", args)},
				API: m.API, Provider: m.Provider, Model: m.ID, StopReason: provider.StopReasonToolUse, Usage: usage, Timestamp: ts + 1000},
			&provider.ToolResultMessage{ToolCallID: id, ToolName: "edit", Content: []provider.Content{provider.TextContent(text(4700, t))}, Timestamp: ts + 2000},
			&provider.AssistantMessage{Content: []provider.Content{provider.TextContent(text(900, t))},
				API: m.API, Provider: m.Provider, Model: m.ID, StopReason: provider.StopReasonStop, Usage: usage, Timestamp: ts + 3000})
	}
	return msgs
}

// start is the first prompt's time (1 May 2025, in Unix milliseconds).
const start = 1746093600000

// text is about n bytes of code-like words, with quotes, newlines and non-ASCII letters to escape.
func text(n int, seed int) string {
	words := []string{"func", "main()", "{", "return", "err", "!=", "nil", "\"quoted\"", "café", "日本", "→", "\n"}
	var s strings.Builder
	for i := 0; s.Len() < n; i++ {
		s.WriteString(words[(i*7+seed)%len(words)])
		s.WriteByte(' ')
	}
	return s.String()
}
