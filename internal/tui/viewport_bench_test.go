package tui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	bubblesviewport "github.com/charmbracelet/bubbles/viewport"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/screen"
)

// BenchmarkBubblesViewportFrame is BenchmarkFrame's fullscreen frame with the transcript in a
// bubbles viewport instead of pi-go's own: the measurement behind the package doc's reason for
// keeping its own. Every frame of a streaming answer changes the transcript, and the viewport only
// takes its content whole (SetContent splits the string and measures every line), so each frame
// joins the lines of every block (each block's render is cached, as in fullscreen mode) and gives
// them to the viewport, which then shows the last page.
func BenchmarkBubblesViewportFrame(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			m := newModel(context.Background(), sessionWith(b, n), Options{Out: io.Discard, TUIMode: TUIModeFullscreen},
				120, 40, screen.OpenTerminal(nil, io.Discard))
			defer m.shutdown()
			m.printHeader()
			m.printHistoryNow()
			m.drawFrame()
			answer := strings.Repeat("The streaming answer grows by one delta per frame and wraps at the width "+
				"of the terminal, with `code` and **bold** words.\n\n", 200)
			m.handleAgentEvent(&loop.Event{Type: loop.EventAgentStart})
			m.handleAgentEvent(&loop.Event{Type: loop.EventMessageStart, Message: &provider.AssistantMessage{}})
			delta := &provider.AssistantEvent{Type: provider.EventTextDelta}
			vp := bubblesviewport.New(120, 30)
			var content strings.Builder
			for blk := range m.fsCount() { // every block rendered once and cached before timing
				m.fsLines(blk, m.lastFrame)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := 1 + i%len(answer)
				msg := &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(answer[:k])}}
				m.handleAgentEvent(&loop.Event{Type: loop.EventMessageUpdate, Message: msg, AssistantEvent: delta})
				m.flushChat(m.width)
				content.Reset()
				for blk := range m.fsCount() {
					for _, l := range m.fsLines(blk, m.lastFrame) {
						content.WriteString(l)
						content.WriteByte('\n')
					}
				}
				vp.SetContent(content.String())
				vp.GotoBottom()
				_ = vp.View()
			}
		})
	}
}
