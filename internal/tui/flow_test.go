package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

func TestPromptStreamsTheAnswer(t *testing.T) {
	sc := newScript(textTurn("Hello", " from the", " scripted model."))
	u := startUI(t, newTestSession(t, sc, nil), Options{Version: "1.2.3"})
	u.waitScreen("the editor", contains("pi-go", "test-model"))
	u.typeText("say hello")
	u.key(tea.KeyEnter)
	u.waitScreen("the answer", contains("say hello", "Hello from the scripted model."))
}

// userTexts lists the user messages of a request in order.
func userTexts(req *provider.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if u, ok := m.(*provider.UserMessage); ok {
			out = append(out, provider.TextOf(u.Content, ""))
		}
	}
	return out
}

// roles lists the roles of a request's messages.
func roles(req *provider.Request) string {
	var out []string
	for _, m := range req.Messages {
		out = append(out, m.Role())
	}
	return strings.Join(out, " ")
}

func TestEnterDuringToolBatchSteersAfterTheBatch(t *testing.T) {
	gate := newGateTool()
	sc := newScript(toolTurn("Let me wait.", "gate", `{}`), textTurn("Steered answer."))
	sess := newTestSession(t, sc, nil, gate)
	u := startUI(t, sess, Options{})
	u.typeText("start")
	u.key(tea.KeyEnter)
	<-gate.started
	u.typeText("change of plan")
	u.key(tea.KeyEnter)
	u.waitScreen("the queued steering message", contains("Steering: change of plan", "alt+up to edit all queued messages"))
	if got := sc.requestCount(); got != 1 {
		t.Fatalf("a steering message must not start a request while the tool runs; %d requests", got)
	}
	close(gate.release)
	u.waitScreen("the steered answer", contains("Steered answer."))
	req := sc.request(1)
	if got, want := roles(req), "user assistant toolResult user"; got != want {
		t.Fatalf("second request roles = %q, want %q", got, want)
	}
	if got := userTexts(req); got[1] != "change of plan" {
		t.Fatalf("steering text = %q", got)
	}
	all := u.waitAll("the steering message in the chat", contains("change of plan", "Steered answer."))
	if strings.Contains(all, "Steering: change of plan") {
		t.Errorf("the pending line is still shown after delivery:\n%s", all)
	}
	if strings.Index(all, "gate opened") > strings.Index(all, "change of plan") {
		t.Errorf("the steering message must come after the tool result:\n%s", all)
	}
}

func TestAltEnterQueuesAFollowUpDeliveredAfterTheRun(t *testing.T) {
	gate := make(chan struct{})
	sc := newScript(gatedTextTurn("Working on it", gate, " and done."), textTurn("Follow-up answer."))
	u := startUI(t, newTestSession(t, sc, nil), Options{})
	u.typeText("first")
	u.key(tea.KeyEnter)
	u.waitScreen("the first delta", contains("Working on it"))
	u.typeText("and then this")
	u.altEnter()
	u.waitScreen("the queued follow-up", contains("Follow-up: and then this"))
	close(gate)
	u.waitScreen("the follow-up answer", contains("Follow-up answer."))
	req := sc.request(1)
	if got, want := roles(req), "user assistant user"; got != want {
		t.Fatalf("second request roles = %q, want %q", got, want)
	}
	if got := userTexts(req); got[1] != "and then this" {
		t.Fatalf("follow-up text = %q", got)
	}
	if a := req.Messages[1].(*provider.AssistantMessage); provider.TextOf(a.Content, "") != "Working on it and done." {
		t.Fatalf("the follow-up was delivered before the first answer ended: %q", provider.TextOf(a.Content, ""))
	}
}

func TestEscapeAbortsAndRefillsTheEditor(t *testing.T) {
	never := make(chan struct{})
	sc := newScript(gatedTextTurn("Partial answer", never, "never shown"))
	sess := newTestSession(t, sc, nil)
	u := startUI(t, sess, Options{})
	u.typeText("long task")
	u.key(tea.KeyEnter)
	u.waitScreen("the partial answer", contains("Partial answer"))
	u.typeText("steer one")
	u.key(tea.KeyEnter)
	u.typeText("follow two")
	u.altEnter()
	u.waitScreen("both queued", contains("Steering: steer one", "Follow-up: follow two"))
	u.typeText("draft")
	u.key(tea.KeyEscape)
	screen := u.waitScreen("the abort", contains("Operation aborted", "steer one", "follow two", "draft"))
	if strings.Contains(screen, "Steering:") || strings.Contains(screen, "Follow-up:") {
		t.Errorf("queued lines still shown after Escape:\n%s", screen)
	}
	u.waitEditor("steer one\n\nfollow two\n\ndraft")
	if s, f := sess.QueuedTexts(); len(s)+len(f) != 0 {
		t.Errorf("session queues not empty: %q %q", s, f)
	}
}

func TestResumedSessionShowsItsHistory(t *testing.T) {
	dir := t.TempDir()
	store := session.Create(dir, filepath.Join(dir, "sessions"))
	first := newTestSession(t, newScript(textTurn("The capital of France is Paris.")), store)
	if err := first.Prompt(context.Background(), "What is the capital of France?", nil, harness.BehaviorNone); err != nil {
		t.Fatal(err)
	}
	path := store.SessionFile()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	reopened, err := session.Open(path, session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sess := newTestSession(t, newScript(), reopened)
	u := startUI(t, sess, Options{})
	all := u.waitAll("the resumed conversation", contains("What is the capital of France?", "The capital of France is Paris."))
	if strings.Index(all, "What is the capital") > strings.Index(all, "Paris.") {
		t.Errorf("history out of order:\n%s", all)
	}
	// Up on the empty editor recalls the resumed prompt (pi fills the history on resume).
	u.key(tea.KeyUp)
	u.waitEditor("What is the capital of France?")
}

// A long conversation is rendered in the background; a prompt sent meanwhile is printed after it.
func TestLongHistoryIsPrintedBeforeNewMessages(t *testing.T) {
	sess := sessionWith(t, 600, textTurn("Fresh answer."))
	u := startUI(t, sess, Options{})
	u.typeText("new prompt")
	u.key(tea.KeyEnter)
	all := u.waitAll("the history and the new answer", contains("Answer 599.", "Fresh answer."))
	if i, j := strings.Index(all, "Answer 599."), strings.Index(all, "new prompt"); i < 0 || j < i {
		t.Fatalf("the new prompt (%d) must follow the history (%d)", j, i)
	}
	if n := strings.Count(all, "Question 0:"); n != 1 {
		t.Fatalf("first question printed %d times", n)
	}
}

// An unfinished block taller than the live region shows its last lines under a marker saying how
// many are above; once complete it is printed whole.
func TestTallUnfinishedBlockShowsHiddenLinesMarker(t *testing.T) {
	var code strings.Builder
	code.WriteString("```\n")
	for i := 1; i <= 60; i++ {
		code.WriteString("code line " + itoa(i) + "\n")
	}
	gate := make(chan struct{})
	sc := newScript(gatedTextTurn(code.String(), gate, "```\n\nDone."))
	u := startUI(t, newTestSession(t, sc, nil), Options{})
	u.submit("show code")
	screen := u.waitScreen("the code tail", contains("code line 60", "more lines above"))
	if strings.Contains(screen, "code line 1\n") {
		t.Fatalf("the top of the unfinished block is shown:\n%s", screen)
	}
	close(gate)
	all := u.waitAll("the finished answer", contains("Done."))
	for _, want := range []string{"code line 1\n", "code line 30\n", "code line 60\n"} {
		if strings.Count(all+"\n", want) != 1 {
			t.Errorf("%q appears %d times", want, strings.Count(all+"\n", want))
		}
	}
	if strings.Contains(strings.Join(u.vt.ScreenLines(), "\n"), "more lines above") {
		t.Errorf("the marker stays after the block is complete")
	}
}
