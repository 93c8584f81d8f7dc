package tui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/mcp"
)

// mcpSignInTimeout bounds a /mcp login waiting for the browser (pi mcp login's default).
const mcpSignInTimeout = 5 * time.Minute

// mcpLogin signs in to an OAuth server: the authorization page's URL is shown, and the callback is
// awaited off the UI goroutine, so the session goes on meanwhile; Escape cancels it. The server
// reconnects with the new token.
func (m *model) mcpLogin(st mcp.Status) tea.Cmd {
	s := st.Server
	switch {
	case s.Config.AuthProvider != "":
		m.addError(fmt.Sprintf("MCP server %q uses the credentials of provider %q. Run /login %s.", s.Name, s.Config.AuthProvider, s.Config.AuthProvider))
		return nil
	case !s.Config.UsesOAuth():
		m.addError(fmt.Sprintf("MCP server %q does not use OAuth. Only HTTP servers without an Authorization header do.", s.Name))
		return nil
	case m.mcpSignIn != nil:
		m.addError("A sign-in is already waiting for the browser; press Escape to cancel it.")
		return nil
	}
	mgr, in, name := m.opts.MCP, m.in, s.Name
	ctx, cancel := context.WithTimeout(m.ctx, mcpSignInTimeout)
	m.mcpSignIn = cancel
	m.addStatus(fmt.Sprintf("Signing in to MCP server %q… (Escape cancels)", name))
	return m.op(func() tea.Msg {
		defer cancel()
		err := mgr.SignIn(ctx, name, func(url string) {
			// A block of its own: the next status line must not replace the URL.
			in.pushMsg(opDoneMsg{then: func(m *model, _ error) tea.Cmd {
				text, r := fmt.Sprintf("Sign in to MCP server %q in your browser:\n%s", name, url), m.r
				m.addBlock(func(w int) []string { return r.StatusNotice(text, w) })
				return nil
			}})
		})
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			m.mcpSignIn = nil
			switch {
			case errors.Is(err, mcp.ErrSignInCancelled):
				m.addStatus("Sign-in cancelled.")
			case err != nil:
				m.addError("Sign-in failed: " + err.Error())
			default:
				st, _ := mgr.Status(name)
				m.addStatus(fmt.Sprintf("Signed in to MCP server %q (%d tools).", name, len(st.Tools)))
			}
			return nil
		}}
	})
}

// mcpLogout forgets an OAuth server's stored credentials and disconnects it.
func (m *model) mcpLogout(st mcp.Status) tea.Cmd {
	s := st.Server
	if !s.Config.UsesOAuth() {
		m.addError(fmt.Sprintf("MCP server %q does not use OAuth. Only HTTP servers without an Authorization header do.", s.Name))
		return nil
	}
	mgr, ctx, name := m.opts.MCP, m.ctx, s.Name
	return m.op(func() tea.Msg {
		removed, err := mgr.SignOut(ctx, name)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			switch {
			case err != nil:
				m.addError(err.Error())
			case removed:
				m.addStatus(fmt.Sprintf("Signed out of MCP server %q.", name))
			default:
				m.addStatus(fmt.Sprintf("No stored credentials for MCP server %q.", name))
			}
			return nil
		}}
	})
}
