package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

func errorTurn(msg string) turn {
	return func(_ context.Context, b *provider.StreamBuilder) *provider.AssistantMessage {
		return b.Fail(provider.StopReasonError, msg)
	}
}

func TestRetryCountdownAndEscape(t *testing.T) {
	waiting := make(chan struct{}, 4)
	sc := newScript(errorTurn("429 Too Many Requests: rate limit exceeded"))
	sess := newTestSessionWith(t, sc, nil, func(o *harness.Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			waiting <- struct{}{}
			<-ctx.Done()
			return ctx.Err()
		}
	})
	u := startUI(t, sess, Options{})
	u.submit("hello")
	<-waiting
	u.waitScreen("the countdown", contains("Retrying (1/3) in", "escape to cancel"))
	u.key(tea.KeyEscape)
	u.waitAll("the cancelled retry", contains("Retry failed after 1 attempts: Retry cancelled"))
	u.waitScreen("no status line", func(s string) bool { return !strings.Contains(s, "Retrying") })
}

func TestInitialMessagesCarryTheImages(t *testing.T) {
	sc := newScript(textTurn("Seen."), textTurn("Second."))
	img := provider.ImageContent("aGVsbG8=", "image/png")
	u := startUI(t, newTestSession(t, sc, nil), Options{InitialMessages: []string{"describe", "and again"},
		InitialImages: []provider.Content{img}})
	u.waitScreen("both answers", contains("Seen.", "Second."))
	first := sc.request(0).Messages[0].(*provider.UserMessage)
	if len(first.Content) != 2 || first.Content[1].Type != provider.ContentImage {
		t.Fatalf("first message content: %+v", first.Content)
	}
	second := sc.request(1).Messages[2].(*provider.UserMessage)
	if provider.TextOf(second.Content, "") != "and again" || len(second.Content) != 1 {
		t.Fatalf("second message content: %+v", second.Content)
	}
}

func TestPasteAndNewlineKeys(t *testing.T) {
	sc := newScript(textTurn("Got it."))
	u := startUI(t, newTestSession(t, sc, nil), Options{})
	u.typeText("one")
	u.altEnter() // idle: a newline
	u.typeText("two")
	u.key(tea.KeyCtrlJ)
	u.typeText("three\\")
	u.key(tea.KeyEnter) // backslash-Enter: a newline too
	u.waitEditor("one\ntwo\nthree\n")
	big := strings.Repeat("pasted line\n", 30)
	u.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(big), Paste: true})
	u.waitEditor("one\ntwo\nthree\n[paste #1 +31 lines]")
	u.key(tea.KeyEnter)
	u.waitScreen("the answer", contains("Got it."))
	if got := userTexts(sc.request(0))[0]; got != "one\ntwo\nthree\n"+strings.TrimRight(big, "\n") {
		t.Fatalf("sent %q", got)
	}
}

func TestEscapeStopsABangCommand(t *testing.T) {
	u := startUI(t, newTestSession(t, newScript(), nil), Options{})
	u.submit("!echo started; sleep 30")
	u.waitScreen("the running command", contains("started", "Running..."))
	u.key(tea.KeyEscape)
	u.waitAll("the cancelled command", func(s string) bool {
		return strings.Contains(s, "started") && !strings.Contains(s, "Running...") && strings.Contains(s, "ancel")
	})
}

func TestExternalEditorReplacesTheText(t *testing.T) {
	script := filepath.Join(t.TempDir(), "fake-editor")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf 'written by the editor\\n' > \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", script)
	u := startUI(t, newTestSession(t, newScript(), nil), Options{})
	u.typeText("draft")
	u.key(tea.KeyCtrlG)
	u.waitEditor("written by the editor")
}

func TestExternalEditorNotConfigured(t *testing.T) {
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", "")
	u := startUI(t, newTestSession(t, newScript(), nil), Options{})
	u.key(tea.KeyCtrlG)
	u.waitAll("the warning", contains("Warning: No editor configured. Set $VISUAL or $EDITOR environment variable."))
}

// linesTool is a "bash" tool whose output has many lines (the block shows the last few).
type linesTool struct{}

func (linesTool) Definition() provider.ToolDefinition {
	return provider.ToolDefinition{Name: "bash", Description: "runs",
		Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}
}

func (linesTool) Execute(context.Context, loop.ToolCall, func(loop.ToolResult)) (loop.ToolResult, error) {
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "output line %02d\n", i)
	}
	return loop.ToolResult{Content: []provider.Content{provider.TextContent(b.String())}}, nil
}

// Ctrl+O expands the tool output of the whole transcript in place, every turn's and not only the
// current one, and collapses it again: the scrollback is drawn again, nothing is printed twice.
func TestCtrlOExpandsTheWholeTranscriptInPlace(t *testing.T) {
	sc := newScript(toolTurn("", "bash", `{"command":"seq 30"}`), textTurn("Done listing."),
		toolTurn("", "bash", `{"command":"seq 30 again"}`), textTurn("Listed again."))
	u := startUI(t, newTestSession(t, sc, nil, linesTool{}), Options{})
	u.submit("list")
	u.waitAll("the first turn", contains("$ seq 30", "output line 30", "Done listing."))
	u.waitSettled()
	u.submit("list again")
	all := u.waitAll("the second turn", contains("$ seq 30 again", "Listed again."))
	if strings.Contains(all, "output line 01") {
		t.Fatalf("the tool output is not collapsed:\n%s", all)
	}
	u.key(tea.KeyCtrlO)
	all = u.waitAll("both blocks expanded", func(s string) bool { return strings.Count(s, "output line 01") == 2 })
	if n := strings.Count(all, "$ seq 30"); n != 2 {
		t.Errorf("want each tool block once, expanded in place; got %d headers:\n%s", n, all)
	}
	if n := strings.Count(all, "Done listing."); n != 1 {
		t.Errorf("the first answer appears %d times after the redraw", n)
	}
	u.key(tea.KeyCtrlO)
	all = u.waitAll("both blocks collapsed", func(s string) bool {
		return !strings.Contains(s, "output line 01") && strings.Contains(s, "Tool output: collapsed")
	})
	if n := strings.Count(all, "$ seq 30"); n != 2 {
		t.Errorf("want each tool block once after collapsing; got %d headers:\n%s", n, all)
	}
}

func TestThinkingStatus(t *testing.T) {
	gate := make(chan struct{})
	sc := newScript(func(ctx context.Context, b *provider.StreamBuilder) *provider.AssistantMessage {
		b.Thinking("Let me consider the options", "reasoning_content")
		select {
		case <-gate:
		case <-ctx.Done():
		}
		b.Text("Decided.")
		return b.Finish()
	})
	u := startUI(t, newTestSession(t, sc, nil), Options{})
	u.submit("think")
	u.waitScreen("the thinking status", contains("Thinking...", "Let me consider the options"))
	close(gate)
	u.waitScreen("the answer", func(s string) bool { return strings.Contains(s, "Decided.") && !strings.Contains(s, "Thinking...") })
}

func TestManualCompactionStatus(t *testing.T) {
	gate := make(chan struct{})
	sc := newScript(textTurn("One."), textTurn("Two."), func(ctx context.Context, b *provider.StreamBuilder) *provider.AssistantMessage {
		select {
		case <-gate:
		case <-ctx.Done():
			return b.Fail(provider.StopReasonAborted, "Request was aborted")
		}
		b.Text("Summary.")
		return b.Finish()
	})
	u := startUI(t, newCompactableSession(t, sc, 2), Options{}) // keeps "b" and "Two."
	u.submit("a")
	u.waitScreen("one", contains("One."))
	u.submit("b")
	u.waitScreen("two", contains("Two."))
	u.submit("/compact")
	u.waitScreen("the compaction status", contains("Compacting context... (escape to cancel)"))
	u.key(tea.KeyEscape)
	u.waitAll("the cancellation", contains("Error: Compaction cancelled"))
	close(gate)
}

func TestAtCompletesProjectFiles(t *testing.T) {
	sess := newTestSession(t, newScript(), nil)
	for _, f := range []string{"internal/render/markdown.go", "main.go", "README.md"} {
		p := filepath.Join(sess.Cwd(), f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u := startUI(t, sess, Options{})
	u.typeText("look at @markd")
	u.waitScreen("the file suggestion", contains("→ markdown.go", "internal/render/markdown.go"))
	u.key(tea.KeyTab)
	u.waitEditor("look at @internal/render/markdown.go")
}

func TestAltUpPullsQueuedMessagesBackDuringARun(t *testing.T) {
	gate := make(chan struct{})
	sc := newScript(gatedTextTurn("Busy", gate, " and finished."))
	u := startUI(t, newTestSession(t, sc, nil), Options{})
	u.submit("start")
	u.waitScreen("the stream", contains("Busy"))
	u.submit("queued text")
	u.waitScreen("the queue", contains("Steering: queued text"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyUp, Alt: true})
	u.waitScreen("the restore", contains("Restored 1 queued message to editor"))
	u.waitEditor("queued text")
	close(gate)
	u.waitScreen("the run's end", func(s string) bool {
		return strings.Contains(s, "Busy and finished.") && !strings.Contains(s, "Working...")
	})
	if n := sc.requestCount(); n != 1 {
		t.Fatalf("the pulled-back message was still delivered (%d requests)", n)
	}
}

func TestResumePickerSwitchesSession(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "sessions")
	old := session.Create(dir, sessions)
	first := newTestSession(t, newScript(textTurn("Old answer.")), old)
	if err := first.Prompt(context.Background(), "an old question", nil, harness.BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	sess := newTestSession(t, newScript(), session.Create(dir, sessions))
	u := startUI(t, sess, Options{SessionsDir: sessions})
	u.submit("/resume")
	u.waitScreen("the picker", contains("Resume Session (Current Folder)", "an old question"))
	u.key(tea.KeyEnter)
	all := u.waitAll("the resumed conversation", contains("Resumed session", "Old answer."))
	if strings.Index(all, "an old question") > strings.Index(all, "Resumed session") {
		t.Errorf("the status must follow the history:\n%s", all)
	}
	if got := userPromptText(sess.Messages()[1]); got != "an old question" { // after the system message
		t.Fatalf("transcript after resume starts with %q", got)
	}
}

// Escape while a retried request streams: the aborted answer says how many retries were made, as
// pi does.
func TestAbortDuringARetrySaysHowFarItGot(t *testing.T) {
	gate := make(chan struct{})
	sc := newScript(errorTurn("503 Service Unavailable"), gatedTextTurn("Partial", gate, " never"))
	u := startUI(t, newTestSession(t, sc, nil), Options{})
	u.submit("hello")
	u.waitScreen("the retried stream", contains("Partial"))
	u.key(tea.KeyEscape)
	u.waitAll("the abort", contains("Aborted after 1 retry attempt"))
	if all := strings.Join(u.vt.AllLines(), "\n"); strings.Contains(all, "Operation aborted") {
		t.Fatalf("the generic abort text is shown:\n%s", all)
	}
}
