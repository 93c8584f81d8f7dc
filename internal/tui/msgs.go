package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
)

// Messages Update receives from commands and from the inbox.
type (
	// frameMsg asks for the next frame to be drawn.
	frameMsg struct{}
	// promptDoneMsg: a Prompt call returned (the run settled, or the message was queued).
	promptDoneMsg struct {
		err    error
		queued bool
	}
	// abortDoneMsg: Abort returned, the agent is idle.
	abortDoneMsg struct{}
	// bashChunkMsg is output of the `!` command id.
	bashChunkMsg struct {
		id   int
		text string
	}
	// bashDoneMsg: the `!` command id ended.
	bashDoneMsg struct {
		id     int
		result harness.BashResult
		err    error
	}
	// opDoneMsg: a session operation run off the UI goroutine ended; then runs on the UI goroutine
	// and may return a command.
	opDoneMsg struct {
		err  error
		then func(m *model, err error) tea.Cmd
	}
	// externalEditorMsg: $VISUAL/$EDITOR exited.
	externalEditorMsg struct {
		text string
		ok   bool
		err  error
	}
	// filesMsg delivers the project's file list for @ completion.
	filesMsg struct {
		files []string
		at    time.Time
	}
)
