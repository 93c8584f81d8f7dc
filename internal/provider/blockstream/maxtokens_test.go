package blockstream

import (
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func TestOutputLimit(t *testing.T) {
	// 1143 tokens: pi estimates 3.5 characters a token, rounded up.
	user := &provider.UserMessage{Content: []provider.Content{provider.TextContent(strings.Repeat("x", 4000))}, Timestamp: 1}
	later := &provider.UserMessage{Content: user.Content, Timestamp: 3}
	for _, tc := range []struct {
		name              string
		window, maxTokens int
		call              int
		msgs              []provider.Message
		want              int
	}{
		{"large window: the model's limit", 200000, 32000, 0, []provider.Message{user}, 32000},
		{"the call's limit first", 200000, 32000, 500, []provider.Message{user}, 500},
		{"small window: what is left after the input and 4096", 20000, 16000, 0, []provider.Message{user}, 20000 - 1143 - 4096},
		{"no window known", 0, 8000, 0, []provider.Message{user}, 8000},
		{"no limit", 200000, 0, 0, []provider.Message{user}, 0},
		{"full window: at least one token", 4000, 1000, 0, []provider.Message{user}, 1},
		{"the last usage counts what came before it", 100000, 80000, 0, []provider.Message{user,
			&provider.AssistantMessage{StopReason: provider.StopReasonStop, Usage: provider.Usage{TotalTokens: 50000}, Timestamp: 2}, later},
			100000 - 51143 - 7672}, // margin: 15% of the input, rounded up, above 4096
		{"an answer older than what precedes it reports no usable context", 100000, 80000, 0, []provider.Message{later,
			&provider.AssistantMessage{StopReason: provider.StopReasonStop, Usage: provider.Usage{TotalTokens: 50000}, Timestamp: 2}, user},
			80000},
	} {
		m := &provider.Model{ContextWindow: tc.window, MaxTokens: tc.maxTokens}
		req := &provider.Request{Model: m, Messages: tc.msgs, Options: provider.StreamOptions{MaxTokens: tc.call}}
		if got := OutputLimit(req); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
