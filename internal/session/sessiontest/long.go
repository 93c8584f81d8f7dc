// Package sessiontest writes large, realistic session files for benchmarks: the 5,000-turn, 50 MB
// session that cmd/pi's resume benchmark and scripts/bench-vs-pi load in pi-go and in pi. It knows
// nothing of how they are run.
package sessiontest

import (
	"fmt"
	"math/rand"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// text makes code-like text: mostly ASCII, with quotes, tabs and newlines (escaped in JSON) and some
// non-ASCII, as a coding session's prompts, tool output and answers are.
type text struct{ r *rand.Rand }

var words = strings.Fields(`func main() { return err != nil if := range for _, v fmt.Println("hello") x.y = z
	// comment the of to and a in is it that for package import struct type interface map[string]int
	ok total += n; "quoted" 'c' path/to/file.go:42 error: failed café naïve 日本 → ✓`)

func (g text) text(n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		b.WriteString(words[g.r.Intn(len(words))])
		switch g.r.Intn(10) {
		case 0:
			b.WriteString("\n\t")
		case 1:
			b.WriteByte('\n')
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// WriteLong writes a session of the given number of turns into dir, through the session package as
// pi-go writes one, for the working directory cwd: each turn a prompt, a reply of the demo model with
// thinking, text and an edit call, the edit's output and a final answer (about 10 KB of JSON a turn,
// so 5,000 turns make 50 MB). The text is the same for the same number of turns. It returns the file's
// path.
func WriteLong(cwd, dir string, turns int) (path string, err error) {
	g := text{rand.New(rand.NewSource(1))}
	s := session.Create(cwd, dir)
	defer func() {
		if cerr := s.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("closing the session: %w", cerr)
		}
	}()
	if _, err := s.AppendModelChange("demo", "pi-go-demo"); err != nil {
		return "", err
	}
	if _, err := s.AppendThinkingLevelChange(provider.ThinkingOff); err != nil {
		return "", err
	}
	ts := int64(1746093600000)
	for t := range turns {
		ts += 1000
		u := provider.NewUserMessage(g.text(300))
		u.Timestamp = ts
		args, err := provider.MarshalJS(map[string]string{"path": "src/main.go", "oldText": g.text(600), "newText": g.text(600)})
		if err != nil {
			return "", err
		}
		id := fmt.Sprintf("call_%d", t)
		messages := []provider.Message{
			u,
			&provider.AssistantMessage{
				Content: []provider.Content{
					{Type: provider.ContentThinking, Thinking: g.text(800), ThinkingSignature: "reasoning_content"},
					provider.TextContent(g.text(200)),
					provider.ToolCallContent(id, "edit", args),
				},
				API: provider.APIOpenAICompletions, Provider: "demo", Model: "pi-go-demo",
				Usage:      provider.Usage{Input: 1000 + t, Output: 300, TotalTokens: 1300 + t},
				StopReason: provider.StopReasonToolUse, Timestamp: ts + 100,
			},
			&provider.ToolResultMessage{ToolCallID: id, ToolName: "edit",
				Content: []provider.Content{provider.TextContent(g.text(4550))}, Timestamp: ts + 200},
			&provider.AssistantMessage{
				Content: []provider.Content{provider.TextContent(g.text(900))},
				API:     provider.APIOpenAICompletions, Provider: "demo", Model: "pi-go-demo",
				Usage:      provider.Usage{Input: 2000 + t, Output: 250, TotalTokens: 2250 + t},
				StopReason: provider.StopReasonStop, Timestamp: ts + 300,
			},
		}
		for _, m := range messages {
			if _, err := s.AppendMessage(m); err != nil {
				return "", err
			}
		}
	}
	if err := s.Sync(); err != nil {
		return "", err
	}
	return s.SessionFile(), nil
}
