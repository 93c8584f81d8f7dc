package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/tui/picker"
)

// Logins is what /login and /logout reach (Options.Logins): the OAuth logins of extensions'
// providers and the credentials stored in auth.json.
type Logins interface {
	// Providers are the providers /login offers.
	Providers() []LoginProvider
	// Stored are the credentials /logout may remove.
	Stored() ([]LoginProvider, error)
	// Login runs a provider's login with ui answering its callbacks and stores the credential;
	// it returns the file it was saved to. Cancelling ctx cancels the login.
	Login(ctx context.Context, id string, ui extensions.LoginUI) (savedTo string, err error)
	// Logout removes a stored credential; removed is false when there was none.
	Logout(ctx context.Context, id string) (removed bool, err error)
	// Loading reports whether extensions are still starting, so their logins are not known yet;
	// WaitLoaded waits until they have registered (or ctx ends).
	Loading() bool
	WaitLoaded(ctx context.Context)
}

// LoginProvider is one provider of /login or /logout.
type LoginProvider struct {
	ID, Name string
	Type     string // "oauth" or "api_key"
}

// builtinLoginNote is said when /login has nothing to offer: pi's own logins (Anthropic, OpenAI
// Codex, GitHub Copilot, …) are not implemented by pi-go.
const builtinLoginNote = "pi-go has no built-in logins (pi's Anthropic, OpenAI Codex, GitHub Copilot, Google and other subscription logins are not implemented): use an API key (environment variable, auth.json or models.json). /login offers the OAuth logins of extensions' providers."

// loginPickMsg is a provider chosen in the /login or /logout list.
type loginPickMsg struct {
	p      LoginProvider
	logout bool
}

func (m *model) cmdLogin(arg string) tea.Cmd {
	logins := m.opts.Logins
	if logins == nil {
		return m.listLogins(arg, nil)
	}
	if logins.Loading() {
		// The extensions start after the first frame: /login typed at once waits for their
		// logins rather than saying there are none.
		m.addStatus("Waiting for the extensions to load…")
		ctx := m.ctx
		return m.op(func() tea.Msg {
			logins.WaitLoaded(ctx)
			return opDoneMsg{then: func(m *model, _ error) tea.Cmd { return m.listLogins(arg, logins.Providers()) }}
		})
	}
	return m.listLogins(arg, logins.Providers())
}

func (m *model) listLogins(arg string, providers []LoginProvider) tea.Cmd {
	if len(providers) == 0 {
		m.addStatus("No provider to log in to. " + builtinLoginNote)
		return nil
	}
	if arg != "" {
		for _, p := range providers {
			if strings.EqualFold(p.ID, arg) || strings.EqualFold(p.Name, arg) {
				return m.startLogin(p.ID, p.Name)
			}
		}
		names := make([]string, len(providers))
		for i, p := range providers {
			names[i] = p.ID
		}
		m.addError(fmt.Sprintf("No login for provider %q. Providers with a login: %s. %s", arg, strings.Join(names, ", "), builtinLoginNote))
		return nil
	}
	items := make([]picker.Item, len(providers))
	for i, p := range providers {
		items[i] = picker.Item{Label: p.Name, Detail: p.ID, Value: loginPickMsg{p: p}}
	}
	m.sel = picker.NewList(m.r, "Select provider to configure:", items, func(it picker.Item) tea.Msg { return it.Value })
	return nil
}

func (m *model) cmdLogout(arg string) tea.Cmd {
	if m.opts.Logins == nil {
		return nil
	}
	stored, err := m.opts.Logins.Stored()
	if err != nil {
		m.addError("Could not read stored credentials: " + err.Error())
		return nil
	}
	if len(stored) == 0 {
		m.addStatus("No stored credentials to remove. /logout only removes credentials saved by /login; environment variables and models.json config are unchanged.")
		return nil
	}
	if arg != "" {
		for _, p := range stored {
			if strings.EqualFold(p.ID, arg) || strings.EqualFold(p.Name, arg) {
				return m.logout(p)
			}
		}
		m.addError(fmt.Sprintf("No stored credentials for provider %q.", arg))
		return nil
	}
	items := make([]picker.Item, len(stored))
	for i, p := range stored {
		items[i] = picker.Item{Label: p.Name, Detail: p.Type, Value: loginPickMsg{p: p, logout: true}}
	}
	m.sel = picker.NewList(m.r, "Select provider to logout:", items, func(it picker.Item) tea.Msg { return it.Value })
	return nil
}

// loginPicked runs the choice of a /login or /logout list.
func (m *model) loginPicked(p loginPickMsg) tea.Cmd {
	m.sel = nil
	if p.logout {
		return m.logout(p.p)
	}
	return m.startLogin(p.p.ID, p.p.Name)
}

func (m *model) logout(p LoginProvider) tea.Cmd {
	logins, ctx := m.opts.Logins, m.ctx
	return m.op(func() tea.Msg {
		removed, err := logins.Logout(ctx, p.ID)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			switch {
			case err != nil:
				m.addError("Logout failed: " + err.Error())
			case !removed:
				m.addStatus(fmt.Sprintf("No stored credentials for %s.", p.Name))
			case p.Type == "oauth":
				m.addStatus("Logged out of " + p.Name)
			default:
				m.addStatus(fmt.Sprintf("Removed stored API key for %s. Environment variables and models.json config are unchanged.", p.Name))
			}
			m.footerDirty = true
			return nil
		}}
	})
}

// startLogin runs a provider's login off the UI goroutine: its URL, device code and progress are
// lines of the transcript, its questions dialogs in the editor's place. Escape cancels it (the
// extension's AbortSignal aborts).
func (m *model) startLogin(id, name string) tea.Cmd {
	if m.login != nil {
		m.addError("A login is in progress; press Escape to cancel it.")
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.login = cancel
	m.addStatus(fmt.Sprintf("Logging in to %s… (Escape cancels)", name))
	logins, in := m.opts.Logins, m.in
	ui := &loginUI{in: in, name: name, cancel: cancel}
	return m.op(func() tea.Msg {
		defer cancel()
		savedTo, err := logins.Login(ctx, id, ui)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			m.login = nil
			if r := ui.asking.Load(); r != nil && m.extDialogs.open == *r {
				// The login ended (Escape, an error) while its question was open: close it.
				m.sel = nil
				m.extDialogAnswered(extAnswerMsg{reply: *r})
			}
			switch {
			case errors.Is(err, extensions.ErrLoginCancelled) || errors.Is(err, context.Canceled):
				m.addStatus("Login cancelled.")
			case err != nil:
				m.addError(fmt.Sprintf("Failed to login to %s: %v", name, err))
			default:
				m.addStatus(fmt.Sprintf("Logged in to %s. Credentials saved to %s", name, savedTo))
			}
			m.footerDirty = true
			return nil
		}}
	})
}

// loginUI answers a login's callbacks from the TUI; it is called from the extension host.
type loginUI struct {
	in     *inbox
	name   string
	cancel context.CancelFunc
	asking atomic.Pointer[chan extAnswer] // the reply of the latest question
}

func (u *loginUI) Notify(e extensions.AuthEvent) {
	var text string
	kind := "status"
	switch e.Type {
	case "auth_url":
		text = fmt.Sprintf("Open this URL in your browser to log in to %s:\n%s", u.name, e.URL)
		if e.Instructions != "" {
			text += "\n" + e.Instructions
		}
		kind = "block"
	case "device_code":
		text = fmt.Sprintf("Open %s and enter code: %s\nWaiting for authentication…", e.VerificationURI, e.UserCode)
		kind = "block"
	case "info":
		text = e.Message
		for _, l := range e.Links {
			if l.Label != "" {
				text += "\n" + l.Label + ": " + l.URL
			} else {
				text += "\n" + l.URL
			}
		}
		kind = "block"
	default:
		text = e.Message
	}
	u.in.pushMsg(opDoneMsg{then: func(m *model, _ error) tea.Cmd {
		if kind == "status" {
			m.addStatus(text)
			return nil
		}
		// A block of its own: the next status line must not replace the URL.
		r := m.r
		m.addBlock(func(w int) []string { return r.StatusNotice(text, w) })
		return nil
	}})
}

// Prompt asks in a dialog; backing out of it cancels the whole login, as in pi.
func (u *loginUI) Prompt(ctx context.Context, p extensions.AuthPrompt) (string, error) {
	d := extDialogMsg{ctx: ctx, title: p.Message, placeholder: p.Placeholder, secret: p.Type == "secret", reply: make(chan extAnswer, 1)}
	if d.title == "" {
		d.title = "Login to " + u.name
	}
	if p.Type == "select" {
		for _, o := range p.Options {
			d.options = append(d.options, o.Label)
		}
		if len(d.options) == 0 {
			return "", errors.New("a select prompt without options")
		}
	}
	u.asking.Store(&d.reply)
	u.in.pushMsg(d)
	select {
	case a := <-d.reply:
		if !a.ok {
			u.cancel()
			return "", extensions.ErrLoginCancelled
		}
		if p.Type == "select" {
			for _, o := range p.Options {
				if o.Label == a.value {
					return o.ID, nil
				}
			}
		}
		return a.value, nil
	case <-ctx.Done():
		return "", extensions.ErrLoginCancelled
	}
}
