package tui

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/screen"
)

// externalEditor is Ctrl+G: the prompt is edited in $VISUAL (or $EDITOR); on a clean exit its text
// replaces the editor's.
func (m *model) externalEditor() tea.Cmd {
	editorCmd := os.Getenv("VISUAL")
	if editorCmd == "" {
		editorCmd = os.Getenv("EDITOR")
	}
	if strings.TrimSpace(editorCmd) == "" {
		m.addWarning("No editor configured. Set $VISUAL or $EDITOR environment variable.")
		return nil
	}
	tmp := filepath.Join(os.TempDir(), fmt.Sprintf("pi-editor-%d.pi.md", time.Now().UnixMilli()))
	if err := os.WriteFile(tmp, []byte(m.ed.ExpandedText()), 0o600); err != nil {
		m.addError(err.Error())
		return nil
	}
	// "code --wait" style values carry arguments.
	parts := strings.Fields(editorCmd)
	c := exec.Command(parts[0], append(parts[1:], tmp)...)
	m.scr.Pause()
	return tea.Exec(&foreground{cmd: c, term: m.term}, func(err error) tea.Msg {
		defer os.Remove(tmp)
		if err != nil {
			return externalEditorMsg{err: err}
		}
		data, rerr := os.ReadFile(tmp)
		if rerr != nil {
			return externalEditorMsg{err: rerr}
		}
		return externalEditorMsg{text: strings.TrimSuffix(string(data), "\n"), ok: true}
	})
}

func (m *model) externalEditorDone(msg externalEditorMsg) {
	m.resumed()
	if msg.ok {
		m.ed.SetText(msg.text)
		return
	}
	// A non-zero exit keeps the text as it was, as in pi; only a failure to start is reported.
	if msg.err != nil {
		if _, exited := msg.err.(*exec.ExitError); !exited {
			m.addError(msg.err.Error())
		}
	}
}

// suspend is Ctrl+Z: the terminal goes back to the shell until the process is resumed (fg).
func (m *model) suspend() tea.Cmd {
	m.scr.Pause()
	m.term.Leave()
	return tea.Suspend
}

// foreground runs a program in the terminal while the UI waits: the terminal is given back to its
// normal mode for the program and taken again afterwards.
type foreground struct {
	cmd  *exec.Cmd
	term *screen.Terminal
}

func (f *foreground) Run() error {
	f.term.Leave()
	defer func() { _ = f.term.Enter() }()
	return f.cmd.Run()
}

func (f *foreground) SetStdin(r io.Reader) {
	if f.cmd.Stdin == nil {
		f.cmd.Stdin = r
	}
}

func (f *foreground) SetStdout(w io.Writer) {
	if f.cmd.Stdout == nil {
		f.cmd.Stdout = w
	}
}

func (f *foreground) SetStderr(w io.Writer) {
	if f.cmd.Stderr == nil {
		f.cmd.Stderr = w
	}
}
