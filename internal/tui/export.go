package tui

import (
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/export"
	"github.com/pi-go/pi-go/internal/tui/picker"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// exportTheme is the TUI's theme as the HTML export takes it.
func exportTheme(th *theme.Theme) export.Theme {
	return export.Theme{Name: th.Name(), Dark: th.IsDark(), Colors: th.Colors()}
}

// pathArg is the path argument of /export and /import as pi reads it: the first word, or a quoted
// string (single or double quotes) that may hold spaces; "" when there is none.
func pathArg(arg string) string {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return ""
	}
	if q := arg[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(arg[1:], q)
		if end < 0 {
			return ""
		}
		return arg[1 : 1+end]
	}
	if i := strings.IndexAny(arg, " \t"); i >= 0 {
		return arg[:i]
	}
	return arg
}

// cmdExport writes the session as HTML, or as a session file when the path ends in .jsonl.
func (m *model) cmdExport(arg string) tea.Cmd {
	path := pathArg(arg)
	sess, th, ctx := m.sess, exportTheme(m.r.Theme()), m.ctx
	return m.op(func() tea.Msg {
		var written string
		var err error
		if export.IsJSONL(path) {
			written, err = sess.ExportJSONL(path)
		} else {
			written, err = sess.ExportHTML(ctx, path, th)
		}
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			if err != nil {
				m.addError("Failed to export session: " + err.Error())
				return nil
			}
			m.addStatus("Session exported to: " + written)
			return nil
		}}
	})
}

// importConfirmMsg answers /import's question: replace the current session (yes) or not.
type importConfirmMsg struct {
	path string
	yes  bool
}

// cmdImport asks, as pi does, before the current session is replaced by the file's.
func (m *model) cmdImport(arg string) tea.Cmd {
	path := pathArg(arg)
	if path == "" {
		m.addError("Usage: /import <path.jsonl>")
		return nil
	}
	items := []picker.Item{{Label: "Yes", Value: true}, {Label: "No", Value: false}}
	p := picker.NewList(m.r, "Import session: replace the current session with "+path+"?", items, func(it picker.Item) tea.Msg {
		return importConfirmMsg{path: path, yes: it.Value.(bool)}
	})
	p.SetCancel(importConfirmMsg{path: path})
	p.SetHint("↑↓ navigate · enter select · esc cancel")
	m.sel = p
	return nil
}

// importConfirmed copies the session file into the session directory and resumes it.
func (m *model) importConfirmed(msg importConfirmMsg) tea.Cmd {
	if !msg.yes {
		m.addStatus("Import cancelled")
		return nil
	}
	path := msg.path
	sess := m.sess
	m.run = runState{}
	return m.op(func() tea.Msg {
		_, err := sess.ImportJSONL(path)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			m.sessionChanged()
			if err != nil {
				m.addError("Failed to import session: " + err.Error())
				return nil
			}
			m.addSeparator()
			cmd := m.printHistory()
			m.addStatus("Session imported from: " + path)
			return tea.Batch(cmd, m.setTitle())
		}}
	})
}

// cmdShare uploads the session's page as a secret GitHub gist and prints its links.
func (m *model) cmdShare(string) tea.Cmd {
	sess, th, ctx := m.sess, exportTheme(m.r.Theme()), m.ctx
	viewer := os.Getenv("PI_SHARE_VIEWER_URL")
	m.addStatus("Creating gist...")
	return m.op(func() tea.Msg {
		shared, err := sess.Share(ctx, th, viewer)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			if err != nil {
				m.addError(err.Error())
				return nil
			}
			// One status block: a second status line would replace the first.
			m.addStatus("Share URL: " + shared.ViewerURL + "\nGist: " + shared.GistURL)
			return nil
		}}
	})
}
