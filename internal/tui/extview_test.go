package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
)

// fakeExtHost is the extension host's side of ExtensionHooks, recording what the TUI asks.
type fakeExtHost struct {
	terminal  chan int // widths
	input     chan [2]string
	shortcuts chan string
}

func newFakeExtHost(ui *ExtensionUI) *fakeExtHost {
	h := &fakeExtHost{terminal: make(chan int, 16), input: make(chan [2]string, 16), shortcuts: make(chan string, 16)}
	ui.Bind(ExtensionHooks{
		Terminal: func(w, _ int, th *extensions.Theme) {
			if th == nil || len(th.Fg) == 0 || !th.Plain {
				w = -1 // the first call carries the theme, colourless under NO_COLOR
			}
			h.terminal <- w
		},
		Input: func(component, data string) { h.input <- [2]string{component, data} },
		Shortcut: func(_ context.Context, key string) error {
			h.shortcuts <- key
			if strings.EqualFold(key, "alt+x") {
				return errors.New("boom")
			}
			return nil
		},
	})
	return h
}

func receive[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// lineIndex is the row of the first screen line containing s (-1: none).
func lineIndex(screen, s string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

func TestExtensionStatusesWidgetsAndFooter(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	ext := NewExtensionUI()
	host := newFakeExtHost(ext)
	u := startUI(t, newTestSession(t, newScript(), nil), Options{ExtensionUI: ext})
	if w := receive(t, "the terminal's size", host.terminal); w != 120 {
		t.Fatalf("terminal width told to the host: %d", w)
	}

	// Statuses: one line under the footer, sorted by key, each made one line.
	ext.SetStatus("b-ext", "second")
	ext.SetStatus("a-ext", "first\n  line")
	screen := u.waitScreen("the statuses", contains("first line second"))
	if lineIndex(screen, "first line second") <= lineIndex(screen, "test-model") {
		t.Fatalf("statuses not under the footer:\n%s", screen)
	}
	ext.SetStatus("b-ext", "")
	u.waitScreen("a cleared status", func(s string) bool { return strings.Contains(s, "first line") && !strings.Contains(s, "second") })

	// Widgets above and below the editor; lines beyond ten are cut with pi's note.
	ext.SetWidget("w-above", []string{"Above widget"}, "")
	long := make([]string, 12)
	for i := range long {
		long[i] = "row"
	}
	ext.SetWidget("w-below", append([]string{"Below widget"}, long...), "belowEditor")
	screen = u.waitScreen("the widgets", contains("Above widget", "Below widget", "... (widget truncated)"))
	rules := []int{}
	for i, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "────") {
			rules = append(rules, i)
		}
	}
	above, below := lineIndex(screen, "Above widget"), lineIndex(screen, "Below widget")
	if len(rules) < 2 || above > rules[len(rules)-2] || below < rules[len(rules)-1] || below > lineIndex(screen, "test-model") {
		t.Fatalf("widgets misplaced (above %d, below %d, rules %v):\n%s", above, below, rules, screen)
	}
	if n := strings.Count(screen, " row"); n != 9 {
		t.Fatalf("%d widget rows shown, want 9 (ten lines in all):\n%s", n, screen)
	}
	ext.SetWidget("w-below", nil, "")
	u.waitScreen("the widget removed", func(s string) bool { return !strings.Contains(s, "Below widget") })

	// An extension's footer replaces pi-go's, statuses and all; removing it restores them.
	ext.SetComponent("footer", "footer", "", "", []string{"\x1b[31mMY FOOTER\x1b[39m"}, false)
	u.waitScreen("the custom footer", func(s string) bool {
		return strings.Contains(s, "MY FOOTER") && !strings.Contains(s, "test-model") && !strings.Contains(s, "first line")
	})
	ext.SetComponent("footer", "footer", "", "", nil, true)
	u.waitScreen("pi-go's footer again", contains("test-model", "first line"))

	// A component widget's lines are drawn as rendered.
	ext.SetComponent("widget:w", "widget", "w", "aboveEditor", []string{"COMPONENT WIDGET"}, false)
	u.waitScreen("the component widget", contains("COMPONENT WIDGET", "Above widget"))
}

func TestExtensionCustomComponentTakesTheKeyboard(t *testing.T) {
	ext := NewExtensionUI()
	host := newFakeExtHost(ext)
	u := startUI(t, newTestSession(t, newScript(), nil), Options{ExtensionUI: ext})
	receive(t, "the terminal's size", host.terminal)

	u.typeText("draft")
	u.waitEditor("draft")
	ext.SetComponent("custom:1", "custom", "", "", []string{"╭ snake ╮", "│ score 0 │"}, false)
	u.waitScreen("the component in the editor's place", func(s string) bool {
		return strings.Contains(s, "score 0") && !strings.Contains(s, "draft")
	})
	for _, k := range []struct {
		msg  tea.KeyMsg
		want string
	}{
		{tea.KeyMsg{Type: tea.KeyUp}, "\x1b[A"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")}, "q"},
		{tea.KeyMsg{Type: tea.KeyEsc}, "\x1b"},
		{tea.KeyMsg{Type: tea.KeyEnter}, "\r"},
		{tea.KeyMsg{Type: tea.KeyCtrlC}, "\x03"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("ctrl+shift+p")}, "\x1b[112;6u"},
	} {
		u.tm.Send(k.msg)
		if got := receive(t, "a key for the component", host.input); got != [2]string{"custom:1", k.want} {
			t.Fatalf("%v reached the component as %q", k.msg, got)
		}
	}
	ext.SetComponent("custom:1", "custom", "", "", []string{"│ score 10 │"}, false)
	u.waitScreen("the component redrawn", contains("score 10"))
	ext.SetComponent("custom:1", "custom", "", "", nil, true)
	u.waitEditor("draft") // the editor is back as it was
}

func TestExtensionShortcuts(t *testing.T) {
	ext := NewExtensionUI()
	host := newFakeExtHost(ext)
	u := startUI(t, newTestSession(t, newScript(), nil), Options{ExtensionUI: ext})
	receive(t, "the terminal's size", host.terminal)

	ext.SetShortcuts([]extensions.ShortcutSpec{
		{Key: "ctrl+alt+p", ExtensionPath: "/x/plan.ts"},
		{Key: "ctrl+c", ExtensionPath: "/x/bad.ts"},
		{Key: "ctrl+w", ExtensionPath: "/x/words.ts"},
		{Key: "alt+x", ExtensionPath: "/x/a.ts"},
		{Key: "Alt+X", ExtensionPath: "/x/b.ts"},
	})
	u.waitAll("pi's conflict warnings", contains(
		"Extension shortcut 'ctrl+c' from /x/bad.ts conflicts with built-in shortcut. Skipping.",
		"Extension shortcut conflict: 'ctrl+w' is built-in shortcut for tui.editor.deleteWordBackward and /x/words.ts.",
		"Extension shortcut conflict: 'Alt+X' registered by both /x/a.ts and /x/b.ts. Using /x/b.ts.",
	))

	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlP, Alt: true})
	if k := receive(t, "the shortcut", host.shortcuts); k != "ctrl+alt+p" {
		t.Fatalf("shortcut ran as %q", k)
	}
	// An extension's key wins over a built-in one that is not reserved: ctrl+w deletes no word.
	u.typeText("two words")
	u.waitEditor("two words")
	u.key(tea.KeyCtrlW)
	if k := receive(t, "the shortcut on ctrl+w", host.shortcuts); k != "ctrl+w" {
		t.Fatalf("shortcut ran as %q", k)
	}
	u.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x"), Alt: true})
	if k := receive(t, "the later extension's shortcut", host.shortcuts); k != "Alt+X" {
		t.Fatalf("shortcut ran as %q", k)
	}
	u.waitAll("the handler's error", contains("Shortcut handler error: boom"))
	// A reserved key keeps its action: ctrl+c clears the editor.
	u.key(tea.KeyCtrlC)
	u.waitEditor("")
	select {
	case k := <-host.shortcuts:
		t.Fatalf("shortcut %q ran for a reserved key", k)
	default:
	}
}

func TestExtensionWorkingMessageAndThinkingLabel(t *testing.T) {
	gate, gate2 := make(chan struct{}), make(chan struct{})
	sc := newScript(func(ctx context.Context, b *provider.StreamBuilder) *provider.AssistantMessage {
		select {
		case <-gate:
		case <-ctx.Done():
		}
		b.Thinking("secret reasoning", "reasoning_content")
		b.Text("Decided.")
		return b.Finish()
	}, gatedTextTurn("", gate2, "Second."))
	ext := NewExtensionUI()
	host := newFakeExtHost(ext)
	u := startUI(t, newTestSession(t, sc, nil), Options{ExtensionUI: ext})
	receive(t, "the terminal's size", host.terminal)

	ext.SetWorkingMessage("\x1b[31mBrewing...\x1b[39m")
	ext.SetHiddenThinkingLabel("Pondering...")
	u.key(tea.KeyCtrlT) // hide thinking blocks
	u.waitAll("thinking hidden", contains("Thinking blocks: hidden"))
	u.submit("think")
	u.waitScreen("the working message", contains("Brewing..."))
	close(gate)
	all := u.waitAll("the answer with the label", contains("Pondering...", "Decided."))
	if strings.Contains(all, "secret reasoning") {
		t.Fatalf("hidden thinking shown:\n%s", all)
	}
	u.waitSettled()

	// Hidden, the working line is not drawn at all.
	ext.SetWorkingMessage("")
	ext.SetWorkingVisible(false)
	ext.SetStatus("marker", "set") // the status shows once the changes before it are applied
	u.waitScreen("the status", contains("set"))
	u.submit("again")
	// The prompt is drawn with the run's start, when the working line would be.
	screen := u.waitScreen("the prompt", contains(" again"))
	if strings.Contains(screen, "Working...") || strings.Contains(screen, "escape to interrupt") {
		t.Fatalf("the working line is drawn while hidden:\n%s", screen)
	}
	close(gate2)
	u.waitAll("the second answer", contains("Second."))
}

func TestExtensionMessageRenderer(t *testing.T) {
	ext := NewExtensionUI()
	host := newFakeExtHost(ext)
	release := make(chan struct{})
	ext.hooks.RenderMessage = func(ctx context.Context, message json.RawMessage, typ string, width int, _ bool) ([]string, bool, error) {
		var m map[string]any
		if err := json.Unmarshal(message, &m); err != nil || m["role"] != "custom" || typ != "card" {
			return nil, false, fmt.Errorf("bad message %s (%s)", message, typ)
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return []string{"", fmt.Sprintf("CARD %v at %d", m["content"], width)}, true, nil
	}
	sess := newTestSessionWith(t, newScript(textTurn("ok")), nil, func(o *harness.Options) {
		o.Hooks = cardHooks{}
	})
	u := startUI(t, sess, Options{ExtensionUI: ext})
	receive(t, "the terminal's size", host.terminal)
	ext.SetMessageRenderers([]string{"card"})
	ext.SetStatus("k", "renderers set") // applied after the renderers
	u.waitScreen("the status", contains("renderers set"))

	u.submit("hi")
	u.waitScreen("pi-go's own drawing while the extension draws", contains("[card]", "hello card"))
	close(release)
	all := u.waitAll("the extension's drawing", contains("CARD hello card at 120", "ok"))
	if strings.Contains(all, "[card]") {
		t.Fatalf("the fallback stayed:\n%s", all)
	}
}

// cardHooks adds a custom message "card" before every run.
type cardHooks struct{}

func (cardHooks) ToolCall(context.Context, string, string, json.RawMessage) harness.ToolCallVerdict {
	return harness.ToolCallVerdict{}
}
func (cardHooks) ToolResult(context.Context, harness.ToolResultInfo) *harness.ToolResultChange {
	return nil
}
func (cardHooks) Context(context.Context, []provider.Message) []provider.Message { return nil }

func (cardHooks) BeforeAgentStart(context.Context, string, []provider.Content, string) ([]provider.Message, string) {
	return []provider.Message{&provider.CustomMessage{CustomType: "card", Display: true, ContentIsString: true,
		Content: []provider.Content{{Type: "text", Text: "hello card"}}}}, ""
}

// Two extensions asking at once both get their answers, in the order they asked; a question whose
// asker stopped waiting is skipped.
func TestExtensionDialogsWaitForEachOther(t *testing.T) {
	ext := NewExtensionUI()
	host := newFakeExtHost(ext)
	u := startUI(t, newTestSession(t, newScript(), nil), Options{ExtensionUI: ext})
	receive(t, "the terminal's size", host.terminal)

	type answer struct {
		v  string
		ok bool
	}
	first, second := make(chan answer, 1), make(chan answer, 1)
	go func() {
		v, ok := ext.Select(context.Background(), "First question", []string{"alpha", "beta"})
		first <- answer{v, ok}
	}()
	u.waitScreen("the first dialog", contains("First question", "alpha"))
	gone, stop := context.WithCancel(context.Background())
	abandoned := make(chan struct{})
	go func() {
		ext.Input(gone, "Abandoned question", "")
		close(abandoned)
	}()
	go func() {
		v, ok := ext.Input(context.Background(), "Second question", "")
		second <- answer{v, ok}
	}()
	// Both later questions are queued behind the first, which stays on screen.
	stop()
	<-abandoned
	u.waitScreen("the first dialog still open", contains("First question"))

	u.tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	u.tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	if a := receive(t, "the first answer", first); a != (answer{"beta", true}) {
		t.Fatalf("first dialog answered %+v", a)
	}
	screen := u.waitScreen("the second dialog", contains("Second question"))
	if strings.Contains(screen, "Abandoned question") {
		t.Fatalf("a dialog whose asker stopped waiting was shown:\n%s", screen)
	}
	u.typeText("gamma")
	u.tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	if a := receive(t, "the second answer", second); a != (answer{"gamma", true}) {
		t.Fatalf("second dialog answered %+v", a)
	}
}
