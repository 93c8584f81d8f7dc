package tui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

func (u *ui) submit(text string) {
	u.typeText(text)
	u.key(tea.KeyEnter)
}

func TestBangRunsAShellCommandWithLiveOutput(t *testing.T) {
	sess := newTestSession(t, newScript(), nil)
	u := startUI(t, sess, Options{})
	u.submit("!echo hello-from-bash")
	all := u.waitAll("the command's output", contains("$ echo hello-from-bash", "hello-from-bash\n"))
	if strings.Count(all, "$ echo hello-from-bash") != 1 {
		t.Fatalf("the command block must be printed once:\n%s", all)
	}
	u.waitScreen("the command recorded", func(string) bool {
		for _, m := range sess.Messages() {
			if b, ok := m.(*provider.BashExecutionMessage); ok && strings.Contains(b.Output, "hello-from-bash") {
				return true
			}
		}
		return false
	})
}

func TestNameAndSessionCommands(t *testing.T) {
	// A session directory deep enough that the file's path is wider than the 120-column screen,
	// whatever the temp directory's name.
	dir := t.TempDir()
	sessionsDir := filepath.Join(dir, strings.Repeat("a-rather-long-directory-name/", 4), "sessions")
	sess := newTestSession(t, newScript(), session.Create(dir, sessionsDir))
	u := startUI(t, sess, Options{})
	u.submit("/name")
	u.waitAll("the usage", contains("Warning: Usage: /name <name>"))
	u.submit("/name My Session")
	u.waitScreen("the name in the footer", contains("Session name set: My Session", "• My Session"))
	u.submit("/session")
	u.waitAll("the session info", contains("Session Info", "Name: My Session", "File:", "Tokens"))
	// The file's path is wrapped, not cut: all of it can be copied.
	var joined strings.Builder
	for _, l := range u.vt.AllLines() {
		joined.WriteString(strings.TrimPrefix(strings.TrimRight(l, " "), " "))
	}
	if path := sess.Store().SessionFile(); len(path) < 120 || !strings.Contains(joined.String(), path) {
		t.Errorf("session file %q (%d chars) not shown whole", path, len(path))
	}
	u.submit("/hotkeys")
	u.waitAll("the shortcuts", contains("Keyboard Shortcuts", "Queue follow-up message"))
}

func twoModels(o *harness.Options) {
	other := *testModel
	other.ID, other.Name = "other-model", "Other"
	o.Models = provider.NewRegistry([]provider.Model{*testModel, other}, nil)
}

func TestModelSelectionAndCycling(t *testing.T) {
	sess := newTestSessionWith(t, newScript(), nil, twoModels)
	u := startUI(t, sess, Options{})
	u.submit("/model other-model")
	u.waitScreen("the switch", contains("Model: other-model"))
	u.key(tea.KeyCtrlP)
	u.waitScreen("the cycle", contains("Switched to Test"))
	u.submit("/model")
	u.waitScreen("the selector", contains("Select model", "other-model [test]", "→ test-model ✓ [test]"))
	u.typeText("oth")
	u.waitScreen("the filtered list", func(s string) bool {
		return strings.Contains(s, "other-model") && !strings.Contains(s, "test-model [test]")
	})
	u.key(tea.KeyEnter)
	u.waitScreen("the choice", func(s string) bool {
		return strings.Contains(s, "Model: other-model") && !strings.Contains(s, "Select model")
	})
	if got := sess.Model().ID; got != "other-model" {
		t.Fatalf("model = %s", got)
	}
}

func TestSlashCompletion(t *testing.T) {
	u := startUI(t, newTestSession(t, newScript(), nil), Options{})
	u.typeText("/ses")
	u.waitScreen("the suggestion", contains("→ session", "Show session info and stats"))
	u.key(tea.KeyTab)
	u.waitEditor("/session")
	u.key(tea.KeyEnter)
	u.waitAll("the command ran", contains("Session Info"))
}

func TestThinkingAndExpandToggles(t *testing.T) {
	u := startUI(t, newTestSession(t, newScript(), nil), Options{})
	u.key(tea.KeyCtrlT)
	u.waitScreen("thinking hidden", contains("Thinking blocks: hidden"))
	u.key(tea.KeyCtrlT)
	u.waitScreen("thinking visible", func(s string) bool {
		// pi replaces a status line by the next one.
		return strings.Contains(s, "Thinking blocks: visible") && !strings.Contains(s, "Thinking blocks: hidden")
	})
	u.key(tea.KeyShiftTab)
	u.waitScreen("no thinking", contains("Current model does not support thinking"))
}

func TestDequeueWithNothingQueued(t *testing.T) {
	u := startUI(t, newTestSession(t, newScript(), nil), Options{})
	u.tm.Send(tea.KeyMsg{Type: tea.KeyUp, Alt: true})
	u.waitScreen("the status", contains("No queued messages to restore"))
}

func TestTreeNavigationPutsThePromptBackInTheEditor(t *testing.T) {
	sess := newTestSession(t, newScript(textTurn("First answer."), textTurn("Second answer.")), nil)
	u := startUI(t, sess, Options{})
	u.submit("first question")
	u.waitScreen("the first answer", contains("First answer."))
	u.submit("second question")
	u.waitScreen("the second answer", contains("Second answer."))
	u.submit("/tree")
	// The system message declaring the prompt is an entry of its own, shown as pi 1.6 shows it.
	u.waitScreen("the tree", contains("Session Tree", "[system]", "user: first question", "assistant: Second answer.", "← active"))
	u.typeText("second question")
	u.waitScreen("the search", func(s string) bool {
		return strings.Contains(s, "user: second question") && !strings.Contains(s, "user: first question")
	})
	u.key(tea.KeyEnter)
	u.waitScreen("the summary question", contains("Summarize branch?", "No summary"))
	u.key(tea.KeyEnter)
	u.waitScreen("the navigation", contains("Navigated to selected point"))
	u.waitEditor("second question")
	msgs := sess.Messages()
	if len(msgs) != 3 || msgs[0].Role() != provider.RoleSystem || userPromptText(msgs[1]) != "first question" {
		t.Fatalf("transcript after navigation has %d messages", len(msgs))
	}
}

func TestDoubleEscapeOpensTheTree(t *testing.T) {
	sess := newTestSession(t, newScript(textTurn("Answer.")), nil)
	// A stopped clock: the two presses count as one double press however long the machine takes
	// between them.
	stopped := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	u := startUI(t, sess, Options{Clock: func() time.Time { return stopped }})
	u.submit("question")
	// Idle first: an Escape while the run is still ending would abort it instead. The UI has seen
	// agent_end when its status line is gone; the session is idle after agent_settled, which the
	// screen cannot show.
	u.waitSettled()
	u.waitScreen("the answer, idle", func(s string) bool {
		return strings.Contains(s, "Answer.") && !strings.Contains(s, "to interrupt")
	})
	u.key(tea.KeyEscape)
	u.key(tea.KeyEscape)
	u.waitScreen("the tree", contains("Session Tree"))
	u.key(tea.KeyEscape)
	u.waitScreen("the editor again", func(s string) bool { return !strings.Contains(s, "Session Tree") })
}

func TestForkPutsTheMessageInTheEditor(t *testing.T) {
	sess := newTestSession(t, newScript(textTurn("One."), textTurn("Two.")), nil)
	u := startUI(t, sess, Options{})
	u.submit("alpha")
	u.waitScreen("the first answer", contains("One."))
	u.submit("beta")
	u.waitScreen("the second answer", contains("Two."))
	u.submit("/fork")
	u.waitScreen("the fork selector", contains("Fork from message", "alpha", "→ beta"))
	u.key(tea.KeyUp)
	u.key(tea.KeyEnter)
	u.waitScreen("the fork", contains("Forked to new session"))
	u.waitEditor("alpha")
	// What came before the first message: the system message declaring the prompt and tools.
	if msgs := sess.Messages(); len(msgs) != 1 || msgs[0].Role() != provider.RoleSystem {
		t.Fatalf("forking at the first message leaves %d messages", len(msgs))
	}
}

// Forking later in the conversation prints the new session's conversation again under a rule, as
// pi re-renders its chat: the scrollback shows where the session now stands.
func TestForkPrintsTheForkedConversation(t *testing.T) {
	sess := newTestSession(t, newScript(textTurn("One."), textTurn("Two.")), nil)
	u := startUI(t, sess, Options{})
	u.submit("alpha")
	u.waitScreen("the first answer", contains("One."))
	u.submit("beta")
	u.waitScreen("the second answer", contains("Two."))
	u.submit("/fork")
	u.waitScreen("the fork selector", contains("Fork from message", "→ beta"))
	u.key(tea.KeyEnter)
	u.waitEditor("beta")
	all := u.waitAll("the fork", contains("Forked to new session"))
	i := strings.Index(all, "Two.")
	rest := all[i:]
	if !strings.Contains(rest, "alpha") || !strings.Contains(rest, "One.") || strings.Count(rest, "Two.") != 1 {
		t.Fatalf("the forked conversation (alpha, One.) is not printed after the old one:\n%s", all)
	}
}

func TestCompactCommand(t *testing.T) {
	sc := newScript(textTurn("Answer one."), textTurn("Answer two."), textTurn("## Goal\nSummarised history."))
	sess := newCompactableSession(t, sc, 4) // keeps "two" and "Answer two."
	u := startUI(t, sess, Options{})
	u.submit("/compact")
	u.waitAll("nothing to compact", contains("Nothing to compact (no messages yet)"))
	u.submit("one")
	u.waitScreen("answer one", contains("Answer one."))
	u.submit("two")
	u.waitScreen("answer two", contains("Answer two."))
	u.submit("/compact keep it short")
	u.waitAll("the compaction block", contains("[compaction]", "Compacted from"))
	if got := sc.request(2); !strings.Contains(lastUserText(got), "keep it short") {
		t.Errorf("the summary request does not carry the instructions:\n%s", lastUserText(got))
	}
}

// /compact in a conversation that compaction would keep whole says so and asks the model nothing
// (pi 0.73.1 sent it an empty conversation to summarise).
func TestCompactOfAShortConversationSaysSo(t *testing.T) {
	sc := newScript(textTurn("Answer one."))
	u := startUI(t, newTestSession(t, sc, nil), Options{})
	u.submit("one")
	u.waitScreen("answer one", contains("Answer one."))
	u.submit("/compact")
	u.waitAll("the refusal", contains("Compaction failed: Nothing to compact (session too small)"))
	if n := sc.requestCount(); n != 1 {
		t.Errorf("%d requests, want only the prompt's", n)
	}
}

// The compaction block is printed collapsed; Ctrl+O prints it again with the summary.
func TestCtrlOShowsTheCompactionSummary(t *testing.T) {
	sc := newScript(textTurn("Answer one."), textTurn("Answer two."), textTurn("## Goal\nSummarised history."))
	u := startUI(t, newCompactableSession(t, sc, 4), Options{})
	u.submit("one")
	u.waitScreen("answer one", contains("Answer one."))
	u.submit("two")
	u.waitScreen("answer two", contains("Answer two."))
	u.submit("/compact")
	u.waitAll("the compaction block", contains("Compacted from", "to expand)"))
	if all := strings.Join(u.vt.AllLines(), "\n"); strings.Contains(all, "Summarised history.") {
		t.Fatalf("the summary is shown before Ctrl+O:\n%s", all)
	}
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlO})
	u.waitAll("the expanded summary", contains("Summarised history."))
}

func TestCopyWithoutAnswer(t *testing.T) {
	u := startUI(t, newTestSession(t, newScript(), nil), Options{})
	u.submit("/copy")
	u.waitAll("the error", contains("Error: No agent messages to copy yet."))
}

func TestUnknownSlashTextIsAPrompt(t *testing.T) {
	sc := newScript(textTurn("Treated as text."))
	u := startUI(t, newTestSession(t, sc, nil), Options{})
	u.submit("/notacommand please")
	u.waitScreen("the answer", contains("Treated as text."))
	if got := userTexts(sc.request(0)); got[0] != "/notacommand please" {
		t.Fatalf("prompt = %q", got)
	}
}

func lastUserText(req *provider.Request) string {
	texts := userTexts(req)
	if len(texts) == 0 {
		return ""
	}
	return texts[len(texts)-1]
}

func TestNewSessionCommand(t *testing.T) {
	sess := newTestSession(t, newScript(textTurn("Old answer.")), nil)
	u := startUI(t, sess, Options{})
	u.submit("old question")
	u.waitScreen("the answer", contains("Old answer."))
	before := sess.Store().SessionFile()
	u.submit("/new")
	all := u.waitAll("the notice", contains("✓ New session started"))
	lines := strings.Split(all, "\n")
	for i, l := range lines {
		if strings.Contains(l, "✓ New session started") {
			if !strings.HasPrefix(l, " ✓") || i < 2 || !strings.HasPrefix(lines[i-2], "────") {
				t.Fatalf("the notice is not set off by a rule with the chat's margin:\n%s", all)
			}
		}
	}
	if n := len(sess.Messages()); n != 0 {
		t.Fatalf("the new session has %d messages", n)
	}
	if sess.Store().SessionFile() == before {
		t.Fatalf("still the old session file %s", before)
	}
}
