package tui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/checkpoint"
	"github.com/pi-go/pi-go/internal/harness"
)

// /rewind lists the turn with the file it changed, previews the diff, restores the file after the
// user confirms overwriting an outside change, and moves the conversation to before the turn.
func TestRewindRestoresFilesAndConversation(t *testing.T) {
	u, path := rewrittenNotes(t)
	if err := os.WriteFile(path, []byte("rewritten by the agent\nand by the user\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	u.submit("/rewind")
	u.waitScreen("the checkpoints", contains("Rewind to before", "the agent's tools", "~notes.txt"))
	u.key(tea.KeyEnter)
	u.waitAll("the preview and the choices", contains("+first draft", "-rewritten by the agent", "Restore files and conversation"))
	u.key(tea.KeyEnter)
	u.waitScreen("the conflict", contains("Changed outside pi-go", "notes.txt", "Overwrite them"))
	u.key(tea.KeyEnter)
	u.waitScreen("the summary question of the tree navigation", contains("Summarize branch?"))
	u.key(tea.KeyEnter) // No summary
	u.waitAll("the navigation", contains("Restored 1 file(s)", "Navigated to selected point"))
	u.waitEditor("rewrite the notes")
	if got, _ := os.ReadFile(path); string(got) != "first draft\n" {
		t.Errorf("notes.txt = %q", got)
	}
}

// The tree (/tree, Escape Escape) marks the prompt whose turn took a checkpoint, and Ctrl+R there
// offers the restore as /rewind does.
func TestTreeMarksCheckpointsAndRestoresFiles(t *testing.T) {
	u, path := rewrittenNotes(t)

	u.submit("/tree")
	u.waitScreen("the marked prompt", contains("Session Tree", "⟲ ", "ctrl+r restore files"))
	// The cursor starts on the answer; the prompt is two rows up (the tool result between).
	u.key(tea.KeyUp)
	u.key(tea.KeyUp)
	u.key(tea.KeyCtrlR)
	u.waitAll("the preview and the choices", contains("+first draft", "-rewritten by the agent", "Restore files only"))
	u.key(tea.KeyDown)
	u.key(tea.KeyEnter)
	u.waitAll("the restore", contains("Restored 1 file(s)"))
	if got, _ := os.ReadFile(path); string(got) != "first draft\n" {
		t.Errorf("notes.txt = %q", got)
	}
}

// rewrittenNotes runs a session in a project whose notes.txt ("first draft") the scripted agent's
// write tool rewrites, with checkpoints on, and returns its UI and the file's path once the run has
// settled (the snapshot of what it left is taken by then).
func rewrittenNotes(t *testing.T) (*ui, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not found: checkpoints need it")
	}
	project := t.TempDir()
	path := filepath.Join(project, "notes.txt")
	if err := os.WriteFile(path, []byte("first draft\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tools, _ := harness.BuildTools([]string{"write"}, harness.ToolOptions{Cwd: project})
	sess := newTestSessionWith(t, newScript(
		toolTurn("", "write", `{"path":"notes.txt","content":"rewritten by the agent\n"}`),
		textTurn("Rewrote it."),
	), nil, func(o *harness.Options) {
		o.Cwd = project
		o.OpenCheckpoints = func() (*checkpoint.Store, error) {
			return checkpoint.Open(context.Background(), checkpoint.Options{AgentDir: o.AgentDir, ProjectDir: project})
		}
	}, tools...)
	settled := make(chan struct{}, 1)
	sess.Subscribe(func(e harness.Event) {
		if e.Type == harness.EventAgentSettled {
			settled <- struct{}{}
		}
	})
	u := startUI(t, sess, Options{})
	u.submit("rewrite the notes")
	u.waitScreen("the answer", contains("Rewrote it."))
	<-settled
	return u, path
}
