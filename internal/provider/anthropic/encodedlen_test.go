package anthropic

import (
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// TestEncodedLenIsExact: the body is allocated once at the size the messages announce; a message
// whose length is misjudged would make the body grow (and be copied) again.
func TestEncodedLenIsExact(t *testing.T) {
	m, ok := provider.BuiltinModel("anthropic", "claude-sonnet-4-5")
	if !ok {
		t.Fatal("no claude-sonnet-4-5")
	}
	msgs := curveTranscriptForTest(&m)
	conv := convertMessages(provider.TransformMessages(msgs, &m, normalizeToolCallID), convertOptions{providerName: m.Provider}, nil)
	if len(conv.messages) == 0 {
		t.Fatal("nothing converted")
	}
	for i := range conv.messages {
		w := &conv.messages[i]
		if got, want := w.encodedLen(), len(w.appendTo(nil)); got != want {
			t.Errorf("message %d (%s): encodedLen %d, written %d bytes", i, w.appendTo(nil), got, want)
		}
	}
}

func curveTranscriptForTest(m *provider.Model) []provider.Message {
	msgs := curveTranscript(m, 3)
	img := provider.ImageContent("aGVsbG8=", "image/png")
	return append(msgs, provider.NewUserMessage("a \"quoted\" prompt\n", img),
		&provider.AssistantMessage{Content: []provider.Content{provider.ToolCallContent("t1", "read", []byte(`{}`))},
			API: m.API, Provider: m.Provider, Model: m.ID, StopReason: provider.StopReasonToolUse},
		&provider.ToolResultMessage{ToolCallID: "t1", ToolName: "read", IsError: true, Content: []provider.Content{img}},
		provider.NewUserMessage("last"))
}
