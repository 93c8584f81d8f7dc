package tui

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/picker"
)

// openSessionPicker is /resume and pi -r (initial): the picker lists this folder's sessions first.
func (m *model) openSessionPicker(initial bool) tea.Cmd {
	sp := picker.NewSessions(m.r, m.sess.Store().SessionFile(), initial)
	m.sel = sp
	return m.runPicker(sp.Init())
}

// sessionPickerMsg handles the session picker's choices and carries out its requests: listing,
// deleting and renaming session files happen off the UI goroutine, and the answer goes back to it.
func (m *model) sessionPickerMsg(msg tea.Msg) tea.Cmd {
	from := m.sel
	switch msg := msg.(type) {
	case picker.SessionChosen:
		m.sel = nil
		return m.resumeSession(msg.Path, msg.Initial)
	case picker.NoSessionChosen:
		m.sel = nil
		m.noSessionSelected = true
		m.quit()
	case picker.LoadSessions:
		dir, root := m.sessionsDir(), m.opts.SessionsRoot
		if root == "" {
			root = filepath.Dir(dir)
		}
		return m.op(func() tea.Msg {
			var infos []session.Info
			var err error
			if msg.All {
				infos, err = session.ListAll(root)
			} else {
				infos, err = session.List(dir)
			}
			return pickerReplyMsg{to: from, msg: picker.SessionsLoaded{Request: msg, Infos: infos, Err: err}}
		})
	case picker.DeleteSession:
		return m.op(func() tea.Msg {
			status, err := deleteSessionFile(msg.Path)
			return pickerReplyMsg{to: from, msg: picker.SessionDeleted{Path: msg.Path, Status: status, Err: err}}
		})
	case picker.RenameSession:
		if msg.Active {
			// Through the session, so that the footer and the title follow.
			err := m.sess.SetSessionName(msg.Name)
			if err == nil {
				m.footerDirty = true
				m.setTitle()
			}
			return m.updateSelector(picker.SessionRenamed{Err: err})
		}
		return m.op(func() tea.Msg {
			err := renameSessionFile(msg.Path, msg.Name)
			return pickerReplyMsg{to: from, msg: picker.SessionRenamed{Err: err}}
		})
	}
	return nil
}

func (m *model) sessionsDir() string {
	if m.opts.SessionsDir != "" {
		return m.opts.SessionsDir
	}
	return m.sess.Store().SessionDir()
}

// resumeSession switches to another session file and prints its conversation.
func (m *model) resumeSession(path string, initial bool) tea.Cmd {
	sess := m.sess
	return m.op(func() tea.Msg {
		err := sess.SwitchSession(path)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			m.sessionChanged()
			if err != nil {
				m.addError("Failed to resume session: " + err.Error())
				if initial {
					m.quit()
				}
				return nil
			}
			if initial {
				cmd := m.printHistory()
				m.addStatus("Resumed session")
				m.setTitle()
				return tea.Batch(cmd, m.sendNextInitial())
			}
			return m.showResumed(m.sess.Messages())
		}}
	})
}

// showResumed prints the conversation of the session switched to (/resume, an extension's
// ctx.switchSession()) under a rule.
func (m *model) showResumed(msgs []provider.Message) tea.Cmd {
	m.sessionReplaced()
	m.addSeparator()
	cmd := m.printHistoryOf(msgs)
	m.addStatus("Resumed session")
	return cmd
}

// deleteSessionFile moves a session file into the trash with the trash command when there is one
// (as pi does), else deletes it for good; it says which.
func deleteSessionFile(path string) (string, error) {
	if trash, err := exec.LookPath("trash"); err == nil {
		args := []string{path}
		if strings.HasPrefix(path, "-") {
			args = []string{"--", path}
		}
		err := exec.Command(trash, args...).Run()
		if _, statErr := os.Stat(path); err == nil || errors.Is(statErr, os.ErrNotExist) {
			return "Session moved to trash", nil
		}
	}
	if err := os.Remove(path); err != nil {
		return "", err
	}
	return "Session deleted", nil
}

// renameSessionFile writes a session_info entry with the new name into a session file that is not
// in use.
func renameSessionFile(path, name string) error {
	mgr, err := session.Open(path, session.OpenOptions{})
	if err != nil {
		return err
	}
	_, err = mgr.AppendSessionInfo(name)
	if cerr := mgr.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	// A file without an assistant message is not written to until it has one: say so.
	if in, ok := session.Describe(path); !ok || in.Name != strings.TrimSpace(name) {
		return errors.New("the session file was not changed")
	}
	return nil
}
