package tui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/screen"
)

// sessionWith returns a session whose transcript holds n messages (prompts and markdown answers).
func sessionWith(b testing.TB, n int, turns ...turn) *harness.Session {
	b.Helper()
	store := session.InMemory(b.TempDir())
	for i := 0; i < n; i++ {
		var msg provider.Message
		if i%2 == 0 {
			msg = provider.NewUserMessage(fmt.Sprintf("Question %d: how does the **renderer** handle `this`?", i))
		} else {
			msg = &provider.AssistantMessage{API: provider.APIOpenAICompletions,
				Provider: "test", Model: "test-model", StopReason: provider.StopReasonStop,
				Content: []provider.Content{provider.TextContent(fmt.Sprintf(
					"Answer %d.\n\nIt prints *finished* blocks once:\n\n- into the scrollback\n- never again\n\n```go\nfmt.Println(%d)\n```", i, i))}}
		}
		if _, err := store.AppendMessage(msg); err != nil {
			b.Fatal(err)
		}
	}
	return newTestSession(b, newScript(turns...), store)
}

// BenchmarkFrame measures one frame while an answer streams, in a session that already holds 10,
// 1,000 or 10,000 finished messages: the stream takes one more delta, finished paragraphs go to the
// scrollback, the live region is redrawn. Finished messages are in the scrollback, so the cost must
// not depend on how many there are.
func BenchmarkFrame(b *testing.B) {
	for _, mode := range tuiModes {
		for _, n := range []int{10, 1000, 10000} {
			b.Run(fmt.Sprintf("mode=%s/messages=%d", mode, n), func(b *testing.B) { benchFrame(b, mode, n) })
		}
	}
}

func benchFrame(b *testing.B, mode string, n int) {
	sess := sessionWith(b, n)
	m := newModel(context.Background(), sess, Options{Out: io.Discard, TUIMode: mode}, 120, 40, screen.OpenTerminal(nil, io.Discard))
	defer m.shutdown()
	m.printHeader()
	m.printHistoryNow()
	m.drawFrame()
	answer := strings.Repeat("The streaming answer grows by one delta per frame and wraps at the width "+
		"of the terminal, with `code` and **bold** words.\n\n", 200)
	m.handleAgentEvent(&loop.Event{Type: loop.EventAgentStart})
	m.handleAgentEvent(&loop.Event{Type: loop.EventMessageStart, Message: &provider.AssistantMessage{}})
	delta := &provider.AssistantEvent{Type: provider.EventTextDelta}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := 1 + i%len(answer)
		msg := &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(answer[:k])}}
		m.handleAgentEvent(&loop.Event{Type: loop.EventMessageUpdate, Message: msg, AssistantEvent: delta})
		m.drawFrame()
	}
	b.StopTimer() // giving the terminal back (fullscreen prints the transcript) is not a frame
}

// BenchmarkIdleFrame is a frame with nothing new (a spinner tick while nothing else changes).
func BenchmarkIdleFrame(b *testing.B) {
	for _, mode := range tuiModes {
		b.Run("mode="+mode, func(b *testing.B) { benchIdleFrame(b, mode) })
	}
}

func benchIdleFrame(b *testing.B, mode string) {
	m := newModel(context.Background(), sessionWith(b, 10), Options{Out: io.Discard, TUIMode: mode}, 120, 40, screen.OpenTerminal(nil, io.Discard))
	defer m.shutdown()
	m.printHistoryNow()
	m.drawFrame()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.drawFrame()
	}
}

// BenchmarkResumeHistory is printing a resumed session's conversation (10,000 messages).
func BenchmarkResumeHistory(b *testing.B) {
	sess := sessionWith(b, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := newModel(context.Background(), sess, Options{Out: io.Discard, TUIMode: TUIModeRegular}, 120, 40, screen.OpenTerminal(nil, io.Discard))
		m.printHistoryNow()
		m.drawFrame()
		m.unsubscribe()
	}
}

// printHistoryNow prints the history and waits for a background rendering to land.
func (m *model) printHistoryNow() {
	if cmd := m.printHistory(); cmd != nil {
		cmd()
		for _, it := range m.in.drain() {
			if h, ok := it.msg.(historyMsg); ok {
				m.placeHistory(h)
			}
		}
	}
}
