package tui

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/screen"
)

// chatText is everything the chat and the transcript would show, plain.
func chatText(m *model) string {
	var out []string
	for _, it := range append(append([]*chatItem(nil), m.done...), m.chat...) {
		out = append(out, m.itemLines(it, m.width, m.lastFrame)...)
	}
	return strings.Join(out, "\n")
}

// A turn that ends (an Escape) before it showed anything leaves no "turn N" rule behind; a turn that
// shows something gets its rule before it.
func TestTurnRuleOnlyWithTheTurnsContent(t *testing.T) {
	m := newModel(context.Background(), newTestSession(t, newScript(), nil), Options{Out: io.Discard, TUIMode: TUIModeRegular},
		80, 24, screen.OpenTerminal(nil, io.Discard))
	defer m.shutdown()
	m.handleAgentEvent(&loop.Event{Type: loop.EventAgentStart})
	m.handleAgentEvent(&loop.Event{Type: loop.EventTurnStart})
	m.handleAgentEvent(&loop.Event{Type: loop.EventTurnStart})
	m.handleAgentEvent(&loop.Event{Type: loop.EventAgentEnd})
	if s := chatText(m); strings.Contains(s, "turn 2") {
		t.Fatalf("an aborted empty turn left its rule:\n%s", s)
	}
	m.handleAgentEvent(&loop.Event{Type: loop.EventAgentStart})
	m.handleAgentEvent(&loop.Event{Type: loop.EventTurnStart})
	m.handleAgentEvent(&loop.Event{Type: loop.EventTurnStart})
	msg := &provider.AssistantMessage{}
	m.handleAgentEvent(&loop.Event{Type: loop.EventMessageStart, Message: msg})
	if s := chatText(m); strings.Contains(s, "turn 2") {
		t.Fatalf("the rule came before anything of the turn:\n%s", s)
	}
	msg = &provider.AssistantMessage{Content: []provider.Content{provider.TextContent("Second turn text.")}}
	m.handleAgentEvent(&loop.Event{Type: loop.EventMessageUpdate, Message: msg})
	s := chatText(m)
	if i, j := strings.Index(s, "turn 2"), strings.Index(s, "Second turn text."); i < 0 || j < i {
		t.Fatalf("want the rule, then the turn's text:\n%s", s)
	}
}

// A first Ctrl+C says that a second one quits; the next key takes the hint away. The clock is
// stopped: the hint lasts the double-press window, which a loaded machine could let pass before the
// screen is looked at.
func TestFirstCtrlCSaysASecondQuits(t *testing.T) {
	stopped := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	u := startUI(t, newTestSession(t, newScript(), nil), Options{Clock: func() time.Time { return stopped }})
	u.typeText("draft")
	u.waitEditor("draft")
	u.key(tea.KeyCtrlC)
	u.waitScreen("the hint", contains("ctrl+c again to exit"))
	u.typeText("x")
	u.waitScreen("the hint gone", func(s string) bool { return !strings.Contains(s, "again to exit") && strings.Contains(s, "x") })
}

// The @file arguments of the command line reach the transcript with the first prompt: a text file
// as its <file> block, an image as a placeholder.
func TestFileArgumentsAreShownWithThePrompt(t *testing.T) {
	sess := newTestSession(t, newScript(textTurn("Read them.")), nil)
	u := startUI(t, sess, Options{
		InitialMessages: []string{"<file name=\"/work/notes.txt\">\nthe notes\n</file>\n<file name=\"/work/shot.png\"></file>\nsummarize"},
		InitialImages:   []provider.Content{provider.ImageContent("aGVsbG8=", "image/png")},
	})
	u.waitAll("the prompt with its files", contains("/work/notes.txt", "the notes", "/work/shot.png", "[Image: [image/png]", "summarize", "Read them."))
}
