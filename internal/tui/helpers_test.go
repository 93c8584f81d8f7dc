package tui

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/screen"
	"github.com/pi-go/pi-go/internal/tui/screen/screentest"
)

// turn plays one scripted assistant response; it may block on channels (ctx ends on abort).
type turn func(ctx context.Context, b *provider.StreamBuilder) *provider.AssistantMessage

// script is a StreamFunc playing turns in order and recording every request.
type script struct {
	mu       sync.Mutex
	turns    []turn
	requests []*provider.Request
	started  chan int // receives the request index as each request starts
}

func newScript(turns ...turn) *script {
	return &script{turns: turns, started: make(chan int, 64)}
}

func (s *script) stream(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := len(s.requests) - 1
	var t turn
	if len(s.turns) > 0 {
		t, s.turns = s.turns[0], s.turns[1:]
	}
	s.mu.Unlock()
	s.started <- n
	b := provider.NewStreamBuilder(req.Model, emit)
	if t == nil {
		return b.Fail(provider.StopReasonError, "script exhausted")
	}
	return t(ctx, b)
}

func (s *script) requestCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *script) request(i int) *provider.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[i]
}

func textTurn(pieces ...string) turn {
	return func(_ context.Context, b *provider.StreamBuilder) *provider.AssistantMessage {
		for _, p := range pieces {
			b.Text(p)
		}
		return b.Finish()
	}
}

// gatedTextTurn streams first, waits for gate (or an abort), then streams rest.
func gatedTextTurn(first string, gate <-chan struct{}, rest string) turn {
	return func(ctx context.Context, b *provider.StreamBuilder) *provider.AssistantMessage {
		b.Text(first)
		select {
		case <-gate:
		case <-ctx.Done():
			return b.Fail(provider.StopReasonAborted, "Request was aborted")
		}
		b.Text(rest)
		return b.Finish()
	}
}

func toolTurn(text, name, args string) turn {
	return func(_ context.Context, b *provider.StreamBuilder) *provider.AssistantMessage {
		if text != "" {
			b.Text(text)
		}
		i := 0
		b.ToolCall(&i, "call_1", name, args)
		b.SetStopReason("tool_calls", provider.StopReasonToolUse, "")
		return b.Finish()
	}
}

// gateTool is a tool that reports it started and returns when released.
type gateTool struct {
	started chan struct{}
	release chan struct{}
}

func newGateTool() *gateTool {
	return &gateTool{started: make(chan struct{}, 8), release: make(chan struct{})}
}

func (g *gateTool) Definition() provider.ToolDefinition {
	return provider.ToolDefinition{Name: "gate", Description: "waits",
		Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (g *gateTool) Execute(ctx context.Context, _ loop.ToolCall, _ func(loop.ToolResult)) (loop.ToolResult, error) {
	g.started <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
		return loop.ToolResult{}, ctx.Err()
	}
	return loop.ToolResult{Content: []provider.Content{provider.TextContent("gate opened")}}, nil
}

var testModel = &provider.Model{ID: "test-model", Name: "Test", API: provider.APIOpenAICompletions, Provider: "test",
	BaseURL: "http://127.0.0.1:1/v1", Input: []string{"text"}, ContextWindow: 100000, MaxTokens: 1000}

// newTestSession builds a harness session on store (nil: a new session in a temp dir).
func newTestSession(t testing.TB, sc *script, store *session.Manager, tools ...loop.Tool) *harness.Session {
	t.Helper()
	return newTestSessionWith(t, sc, store, nil, tools...)
}

// newCompactableSession is newTestSession keeping only the newest keep tokens verbatim, so that a
// compaction of a conversation of a few short messages has something to summarise.
func newCompactableSession(t testing.TB, sc *script, keep int) *harness.Session {
	t.Helper()
	return newTestSessionWith(t, sc, nil, func(o *harness.Options) {
		o.Settings = config.InMemorySettings(config.Settings{Compaction: config.CompactionSettings{KeepRecentTokens: keep}})
	})
}

// newTestSessionWith is newTestSession with the options adjusted by mutate.
func newTestSessionWith(t testing.TB, sc *script, store *session.Manager, mutate func(*harness.Options), tools ...loop.Tool) *harness.Session {
	t.Helper()
	dir := t.TempDir()
	if store == nil {
		store = session.Create(dir, filepath.Join(dir, "sessions"))
	}
	opts := harness.Options{
		Cwd:           dir,
		AgentDir:      filepath.Join(dir, "agent"),
		Settings:      config.InMemorySettings(config.Settings{}),
		Store:         store,
		Stream:        sc.stream,
		Model:         testModel,
		ThinkingLevel: provider.ThinkingOff,
		HasAuth:       func(string) bool { return true },
		Tools:         tools,
		Sleep:         func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	}
	if mutate != nil {
		mutate(&opts)
	}
	s, err := harness.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// ui is a model driven through teatest, drawing into a virtual terminal.
type ui struct {
	t  *testing.T
	m  *model
	tm *teatest.TestModel
	vt *screentest.VTerm
	// settled receives one value per agent_settled event: the session is idle again.
	settled chan struct{}
}

func startUI(t *testing.T, sess *harness.Session, opts Options) *ui {
	t.Helper()
	vt := screentest.New(120, 40)
	opts.Out = vt
	if opts.TUIMode == "" {
		opts.TUIMode = TUIModeRegular // most tests look at the scrollback
	}
	opts.Width, opts.Height = 120, 40
	m := newModel(context.Background(), sess, opts, 120, 40, screen.OpenTerminal(nil, vt))
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	u := &ui{t: t, m: m, tm: tm, vt: vt, settled: make(chan struct{}, 64)}
	unsub := sess.Subscribe(func(ev harness.Event) {
		if ev.Type == harness.EventAgentSettled {
			select {
			case u.settled <- struct{}{}:
			default:
			}
		}
	})
	t.Cleanup(unsub)
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
		m.shutdown()
	})
	return u
}

// waitSettled waits for the session's next agent_settled event: the run is over and the session
// idle, so a key pressed now is handled as at rest. The screen cannot tell this: the status line goes
// at agent_end, while the session still ends its operation.
func (u *ui) waitSettled() {
	u.t.Helper()
	select {
	case <-u.settled:
	case <-time.After(10 * time.Second):
		u.t.Fatal("timed out waiting for agent_settled")
	}
}

func (u *ui) typeText(s string) { u.tm.Type(s) }
func (u *ui) key(k tea.KeyType) { u.tm.Send(tea.KeyMsg{Type: k}) }
func (u *ui) altEnter()         { u.tm.Send(tea.KeyMsg{Type: tea.KeyEnter, Alt: true}) }

// waitScreen waits until the visible screen satisfies cond, re-checking after every write to the
// terminal (no sleeping); it fails after a deadline.
func (u *ui) waitScreen(what string, cond func(screen string) bool) string {
	u.t.Helper()
	return u.vt.WaitFor(u.t, what, func() string { return strings.Join(u.vt.ScreenLines(), "\n") }, cond)
}

// waitAll waits on the scrollback and the screen together.
func (u *ui) waitAll(what string, cond func(all string) bool) string {
	u.t.Helper()
	return u.vt.WaitFor(u.t, what, func() string { return strings.Join(u.vt.AllLines(), "\n") }, cond)
}

func contains(parts ...string) func(string) bool {
	return func(s string) bool {
		for _, p := range parts {
			if !strings.Contains(s, p) {
				return false
			}
		}
		return true
	}
}

// editorOf extracts the editor's text from a screen: the rows between the last two rules.
func editorOf(screen string) string {
	lines := strings.Split(screen, "\n")
	var rules []int
	for i, l := range lines {
		if strings.HasPrefix(l, "────") {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return ""
	}
	a, b := rules[len(rules)-2], rules[len(rules)-1]
	var rows []string
	for _, l := range lines[a+1 : b] {
		rows = append(rows, strings.TrimPrefix(l, " "))
	}
	return strings.Join(rows, "\n")
}

// waitEditor waits until the editor shows text.
func (u *ui) waitEditor(text string) {
	u.t.Helper()
	u.waitScreen("the editor to show "+text, func(s string) bool { return strings.TrimRight(editorOf(s), " ") == text })
}
