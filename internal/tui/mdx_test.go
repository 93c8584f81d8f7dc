package tui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/screen"
)

// While a text streams, one request is in flight; of the states that come meanwhile only the
// newest is asked next, and the last answer stands in for the grown text.
func TestMdxCacheCoalescesAStreamingText(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var asked []string
	answered := make(chan mdxAnsweredMsg, 8)
	c := newMdxCache(context.Background(), []string{render.MDAssistant},
		func(_ context.Context, md string, mc extensions.MarkdownContext) (string, error) {
			mu.Lock()
			asked = append(asked, md)
			mu.Unlock()
			<-release
			return strings.ReplaceAll(md, "-->", "→"), nil
		}, func(a mdxAnsweredMsg) { answered <- a })
	slot := new(int)
	ctx := render.MarkdownContext{MessageType: render.MDAssistant, Streaming: true, Width: 80, Slot: slot}
	for _, text := range []string{"a -->", "a --> b", "a --> b -->"} {
		if out, n, ok := c.Transform(text, ctx); ok || out != "" || n != 0 {
			t.Fatalf("before any answer: %q %d %v", out, n, ok)
		}
	}
	release <- struct{}{}
	if a := receive(t, "the first answer", answered); !a.streaming || !a.changed {
		t.Fatalf("answer %+v", a)
	}
	// The newest state is asked next; meanwhile the first answer stands in for its prefix.
	if out, n, ok := c.Transform("a --> b -->", ctx); ok || out != "a →" || n != len("a -->") {
		t.Fatalf("stand-in %q for %d bytes %v", out, n, ok)
	}
	close(release)
	receive(t, "the second answer", answered)
	if out, _, ok := c.Transform("a --> b -->", ctx); !ok || out != "a → b →" {
		t.Fatalf("after the answer: %q %v", out, ok)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(asked, "|") != "a -->|a --> b -->" {
		t.Fatalf("asked %q: not one request in flight with the newest state next", asked)
	}
	if c.misses.Load() != 4 {
		t.Fatalf("stand-ins counted: %d", c.misses.Load())
	}
}

// A finished text is asked once however often it is drawn before the answer; the answer is cached
// by surface and width.
func TestMdxCacheFinishedText(t *testing.T) {
	release := make(chan struct{})
	var asked []extensions.MarkdownContext
	answered := make(chan mdxAnsweredMsg, 8)
	c := newMdxCache(context.Background(), []string{render.MDUser},
		func(_ context.Context, md string, mc extensions.MarkdownContext) (string, error) {
			asked = append(asked, mc)
			<-release
			return md, fmt.Errorf("transformer down")
		}, func(a mdxAnsweredMsg) { answered <- a })
	ctx := render.MarkdownContext{MessageType: render.MDUser, Width: 50, MessageID: "e1", Timestamp: "T"}
	c.Transform("same", ctx)
	c.Transform("same", ctx)
	if !c.busy() {
		t.Fatal("no request in flight")
	}
	close(release)
	if a := receive(t, "the answer", answered); a.changed || a.streaming || a.err == nil {
		t.Fatalf("answer %+v", a)
	}
	if out, _, ok := c.Transform("same", ctx); !ok || out != "same" || c.busy() {
		t.Fatalf("cached: %q %v", out, ok)
	}
	ctx.Width = 40
	c.Transform("same", ctx)
	receive(t, "the answer at another width", answered)
	want := extensions.MarkdownContext{MessageType: "user", AvailableWidth: 50, MessageID: "e1", Timestamp: "T"}
	if len(asked) != 2 || asked[0] != want || asked[1].AvailableWidth != 40 {
		t.Fatalf("asked %+v", asked)
	}
}

// In fullscreen the transcript is drawn from its blocks: they are drawn again once the answers are in.
func TestMarkdownTransformerFullscreen(t *testing.T) {
	ext := NewExtensionUI()
	newFakeExtHost(ext)
	ext.hooks.TransformMarkdown = func(_ context.Context, md string, c extensions.MarkdownContext) (string, error) {
		return strings.ReplaceAll(md, "-->", "→") + " <" + c.MessageType + ">", nil
	}
	sess := newTestSession(t, newScript(textTurn("answer --> here")), nil)
	u := startUI(t, sess, Options{ExtensionUI: ext, TUIMode: TUIModeFullscreen})
	ext.SetMarkdownTransformers([]string{"user", "assistant"})
	u.submit("ask --> now")
	screen := u.waitScreen("the transformed transcript", contains("ask → now <user>", "answer → here <assistant>"))
	if strings.Contains(screen, "-->") {
		t.Fatalf("untransformed text on the screen:\n%s", screen)
	}
}

// BenchmarkFrameMarkdownTransformer is BenchmarkFrame's streaming frame (regular mode, 1,000
// finished messages) without a transformer and with one answering in-process at once: what the
// TUI's side of a transformer costs per frame (lookups, coalescing, applying answers). answer is how
// much of the answer streamed before the measured frames (each adds one byte): the cost must not
// grow with it. The transcript's own transforms are in before the timer starts. The round trip
// itself is BenchmarkTransformMarkdown in internal/extensions.
func BenchmarkFrameMarkdownTransformer(b *testing.B) {
	for _, with := range []bool{false, true} {
		for _, size := range []int{1 << 10, 20 << 10, 200 << 10} {
			b.Run(fmt.Sprintf("transformer=%v/answer=%dKB", with, size>>10), func(b *testing.B) { benchFrameMdx(b, with, size) })
		}
	}
}

func benchFrameMdx(b *testing.B, with bool, size int) {
	para := "The streaming answer grows by one delta per frame --> and wraps at the width " +
		"of the terminal, with `code` and **bold** words.\n\n"
	answer := strings.Repeat(para, (size+b.N)/len(para)+2)
	// The transformer rewrites "-->" into "→" (the same number of bytes). A text streamed so far is a
	// prefix of answer, so it is answered from the whole answer rewritten once: the figures are the
	// TUI's, not those of a ReplaceAll over the whole text per request (an extension's own cost).
	whole := strings.ReplaceAll(answer, "-->", "→")
	ext := NewExtensionUI()
	answers := make(chan tea.Msg, 1024)
	ext.relay.attach(func(m tea.Msg) { answers <- m })
	ext.hooks.TransformMarkdown = func(_ context.Context, md string, _ extensions.MarkdownContext) (string, error) {
		if len(md) <= len(answer) && answer[:len(md)] == md && !strings.HasSuffix(md, "-") {
			return whole[:len(md)], nil
		}
		return strings.ReplaceAll(md, "-->", "→"), nil
	}
	sess := sessionWith(b, 1000)
	m := newModel(context.Background(), sess, Options{Out: io.Discard, TUIMode: TUIModeRegular, ExtensionUI: ext}, 120, 40, screen.OpenTerminal(nil, io.Discard))
	defer m.shutdown()
	m.printHeader()
	m.printHistoryNow()
	if with {
		extMarkdownTypesMsg{types: []string{"user", "assistant", "assistant-thinking"}}.apply(m)
	}
	apply := func() {
		for {
			select {
			case a := <-answers:
				if u, ok := a.(extUIMsg); ok {
					u.apply(m)
				}
			default:
				return
			}
		}
	}
	// settle draws until done says the transforms asked for are in (the held transcript is printed
	// a block per frame: each frame asks for what the one before let through).
	settle := func(done func() bool) {
		deadline := time.Now().Add(30 * time.Second)
		for m.drawFrame(); !done(); m.drawFrame() {
			if time.Now().After(deadline) {
				b.Fatalf("the transforms do not come in: chat %d busy %v", len(m.chat), m.mdx != nil && m.mdx.busy())
			}
			select {
			case a := <-answers:
				if u, ok := a.(extUIMsg); ok {
					u.apply(m)
				}
			case <-time.After(time.Millisecond):
			}
			apply()
		}
	}
	settle(func() bool { return len(m.chat) == 0 && (m.mdx == nil || !m.mdx.busy()) })
	m.handleAgentEvent(&loop.Event{Type: loop.EventAgentStart})
	m.handleAgentEvent(&loop.Event{Type: loop.EventMessageStart, Message: &provider.AssistantMessage{}})
	delta := &provider.AssistantEvent{Type: provider.EventTextDelta}
	update := func(k int) {
		msg := &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(answer[:k])}}
		m.handleAgentEvent(&loop.Event{Type: loop.EventMessageUpdate, Message: msg, AssistantEvent: delta})
	}
	update(size)
	settle(func() bool {
		it := m.chat[len(m.chat)-1]
		return it.kind != chatAssistant || !it.stream.Transforming()
	})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		update(size + 1 + i)
		apply() // as Update does with the answers that came since the last frame
		m.drawFrame()
	}
	b.StopTimer()
}

// A resumed conversation's blocks are told their session entries (a transformer's messageId and
// timestamp): messages by the message their entry holds, custom messages by type and time; blocks
// in several lists are found in one reading of the session.
func TestMdxEntryRefs(t *testing.T) {
	store := session.InMemory(t.TempDir())
	user := provider.NewUserMessage("question")
	userID, err := store.AppendMessage(user)
	if err != nil {
		t.Fatal(err)
	}
	custom := &provider.CustomMessage{CustomType: "card", Display: true, ContentIsString: true,
		Content: []provider.Content{provider.TextContent("a card")}, Timestamp: 1700000000000}
	customID, err := store.AppendCustomMessageEntry(custom)
	if err != nil {
		t.Fatal(err)
	}
	sess := newTestSession(t, newScript(), store)
	m := newModel(context.Background(), sess, Options{Out: io.Discard}, 80, 24, screen.OpenTerminal(nil, io.Discard))
	defer m.shutdown()
	items := historyItems(sess.Messages())
	if len(items) != 2 {
		t.Fatalf("%d blocks", len(items))
	}
	live := &chatItem{kind: chatLines, msg: provider.NewUserMessage("typed now")}
	m.mdxEntryRefs(items[:1], append(items[1:], live))
	for i, want := range []string{userID, customID} {
		if items[i].entryID != want || items[i].entryTime == "" {
			t.Errorf("block %d: entry %q at %q, want %q", i, items[i].entryID, items[i].entryTime, want)
		}
	}
	if live.entryID != "" {
		t.Errorf("a live message got the entry %q", live.entryID)
	}
}
