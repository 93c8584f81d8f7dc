package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/session"
)

// oldSession writes a finished session with one question into sessions and returns its path.
func oldSession(t *testing.T, dir, sessions, question string) string {
	t.Helper()
	s := newTestSession(t, newScript(textTurn("Answer to "+question+".")), session.Create(dir, sessions))
	if err := s.Prompt(context.Background(), question, nil, harness.BehaviorNone); err != nil {
		t.Fatal(err)
	}
	path := s.Store().SessionFile()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSessionPickerRenameWritesSessionInfo(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "sessions")
	path := oldSession(t, dir, sessions, "an old question")
	u := startUI(t, newTestSession(t, newScript(), session.Create(dir, sessions)), Options{SessionsDir: sessions})
	u.submit("/resume")
	u.waitScreen("the picker", contains("Resume Session (Current Folder)", "an old question"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlR})
	u.waitScreen("the rename field", contains("Rename Session"))
	u.typeText("Renamed one")
	u.key(tea.KeyEnter)
	u.waitScreen("the new name in the list", func(s string) bool {
		return strings.Contains(s, "Renamed one") && !strings.Contains(s, "an old question")
	})
	if in, ok := session.Describe(path); !ok || in.Name != "Renamed one" {
		t.Fatalf("session name in the file = %q", in.Name)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"type":"session_info"`) {
		t.Fatalf("no session_info entry written:\n%s", data)
	}
}

func TestSessionPickerRenamesTheActiveSession(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "sessions")
	sess := newTestSession(t, newScript(textTurn("Here.")), session.Create(dir, sessions))
	u := startUI(t, sess, Options{SessionsDir: sessions})
	u.submit("the current question")
	u.waitScreen("the answer", contains("Here."))
	u.submit("/resume")
	u.waitScreen("the picker", contains("› the current question"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlR})
	u.typeText("Current name")
	u.key(tea.KeyEnter)
	u.waitScreen("the name in the footer", contains("• Current name"))
	if got := sess.Store().SessionName(); got != "Current name" {
		t.Fatalf("session name = %q", got)
	}
}

func TestSessionPickerDeleteConfirmsAndSparesTheActiveSession(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "sessions")
	old := oldSession(t, dir, sessions, "doomed question")
	sess := newTestSession(t, newScript(textTurn("Here.")), session.Create(dir, sessions))
	u := startUI(t, sess, Options{SessionsDir: sessions})
	u.submit("active question")
	u.waitScreen("the answer", contains("Here."))
	u.submit("/resume")
	u.waitScreen("the picker on the other session", contains("› doomed question"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlD})
	u.waitScreen("the question", contains("Delete session?"))
	u.key(tea.KeyUp) // ignored while asking
	u.key(tea.KeyEnter)
	u.waitScreen("the deletion", func(s string) bool {
		return (strings.Contains(s, "Session deleted") || strings.Contains(s, "Session moved to trash")) &&
			!strings.Contains(s, "doomed question")
	})
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("the deleted session file is still there: %v", err)
	}
	u.waitScreen("the active session selected", contains("› active question"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlD})
	u.waitScreen("the refusal", contains("Cannot delete the currently active session"))
	if _, err := os.Stat(sess.Store().SessionFile()); err != nil {
		t.Fatalf("the active session file: %v", err)
	}
}

func TestSessionPickerEscapeCancelsDeletion(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "sessions")
	old := oldSession(t, dir, sessions, "kept question")
	u := startUI(t, newTestSession(t, newScript(), session.Create(dir, sessions)), Options{SessionsDir: sessions})
	u.submit("/resume")
	u.waitScreen("the picker", contains("kept question"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlD})
	u.waitScreen("the question", contains("Delete session?"))
	u.key(tea.KeyEscape)
	u.waitScreen("the hints again", func(s string) bool {
		return !strings.Contains(s, "Delete session?") && strings.Contains(s, "kept question")
	})
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("the session file after a cancelled delete: %v", err)
	}
}

func TestSessionPickerSortToggleAndSearch(t *testing.T) {
	dir := t.TempDir()
	sessions := filepath.Join(dir, "sessions")
	oldSession(t, dir, sessions, "alpha topic")
	oldSession(t, dir, sessions, "beta topic")
	u := startUI(t, newTestSession(t, newScript(), session.Create(dir, sessions)), Options{SessionsDir: sessions})
	u.submit("/resume")
	u.waitScreen("the picker", contains("Sort: Threaded", "alpha topic", "beta topic"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.waitScreen("recent order", contains("Sort: Recent"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.waitScreen("fuzzy order", contains("Sort: Fuzzy"))
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	u.waitScreen("threaded again", contains("Sort: Threaded"))
	u.typeText(`"beta top"`)
	u.waitScreen("the phrase search", func(s string) bool {
		return strings.Contains(s, "beta topic") && !strings.Contains(s, "alpha topic")
	})
	u.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlN})
	u.waitScreen("the named filter", contains("Name: Named", "No named sessions"))
}
