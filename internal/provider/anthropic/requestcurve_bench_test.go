package anthropic

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/provider"
)

// BenchmarkRequestCurve is what building one request of a long session costs at 100, 1,000 and
// 5,000 turns of about 8 KB each (issue 22's curve, as openai's BenchmarkRequestCurve): the whole
// body is written into memory before it is sent. cpu-ms/op is process CPU time.
func BenchmarkRequestCurve(b *testing.B) {
	m, ok := provider.BuiltinModel("anthropic", "claude-sonnet-4-5")
	if !ok {
		b.Fatal("no claude-sonnet-4-5")
	}
	for _, turns := range []int{100, 1000, 5000} {
		req := &provider.Request{Model: &m, SystemPrompt: "You are pi.", Messages: curveTranscript(&m, turns)}
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			b.ReportAllocs()
			var cpu time.Duration
			var size int
			for b.Loop() {
				cpu0, _ := cputime.Process()
				r, err := buildRequest(req, CacheShort)
				if err != nil {
					b.Fatal(err)
				}
				cpu1, _ := cputime.Process()
				cpu += cpu1 - cpu0
				size = len(r.body)
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(size)/1e6, "body-MB")
		})
	}
}

// curveTranscript is turns turns of a prompt, a reply of m with thinking, text and an edit call,
// its result and a closing reply.
func curveTranscript(m *provider.Model, turns int) []provider.Message {
	text := func(n int, seed int) string {
		words := []string{"func", "main()", "{", "return", "err", "!=", "nil", "\"quoted\"", "café", "日本", "→", "\n"}
		var s strings.Builder
		for i := 0; s.Len() < n; i++ {
			s.WriteString(words[(i*7+seed)%len(words)])
			s.WriteByte(' ')
		}
		return s.String()
	}
	var msgs []provider.Message
	for t := range turns {
		id := fmt.Sprintf("toolu_%d", t)
		args, _ := provider.MarshalJS(map[string]string{"path": "main.go", "oldText": text(600, t), "newText": text(600, t+1)})
		msgs = append(msgs, provider.NewUserMessage(text(300, t)),
			&provider.AssistantMessage{Content: []provider.Content{
				{Type: provider.ContentThinking, Thinking: text(800, t), ThinkingSignature: "sig"},
				provider.TextContent(text(200, t)), provider.ToolCallContent(id, "edit", args)},
				API: m.API, Provider: m.Provider, Model: m.ID, StopReason: provider.StopReasonToolUse},
			&provider.ToolResultMessage{ToolCallID: id, ToolName: "edit", Content: []provider.Content{provider.TextContent(text(4700, t))}},
			&provider.AssistantMessage{Content: []provider.Content{provider.TextContent(text(900, t))},
				API: m.API, Provider: m.Provider, Model: m.ID, StopReason: provider.StopReasonStop})
	}
	return msgs
}
