package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/mcp"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/screen"
	"github.com/pi-go/pi-go/internal/tui/termcolor"
)

// terminalColorTimeout is how long the terminal has to report its colours (pi waits 100 ms).
const terminalColorTimeout = 100 * time.Millisecond

// Options configure the interactive session.
type Options struct {
	Version string
	// InitialMessages are the positional prompts, sent one after another.
	InitialMessages []string
	// InitialImages come from @file arguments and go with the first message.
	InitialImages []provider.Content
	// Demo says the demo model answers: the header shows a labelled banner and DemoHint.
	Demo     bool
	DemoHint string
	// ResumePicker opens the session picker first (pi -r); cancelling it prints
	// "No session selected" and Run returns nil.
	ResumePicker bool
	// SessionsDir is this project's session directory, SessionsRoot the directory of all projects'
	// (the /resume picker's two scopes).
	SessionsDir, SessionsRoot string
	// Warnings are shown under the header (startup problems that did not stop pi).
	Warnings []string
	// WarningSink delivers the session's warnings while the TUI runs (see WarningSink).
	WarningSink *WarningSink
	// ExtensionUI delivers extensions' dialogs and notifications (nil: no extensions).
	ExtensionUI *ExtensionUI
	// Settings supply theme, hideThinkingBlock (Ctrl+T saves it), quietStartup, doubleEscapeAction
	// and branchSummary.skipPrompt; nil: defaults.
	Settings *config.SettingsManager
	// Trust is where /trust saves project trust decisions (nil: /trust is not offered);
	// ProjectTrusted says whether this run loaded the project's resources.
	Trust          *config.TrustStore
	ProjectTrusted bool
	// MCP is the session's MCP servers for /mcp (nil: /mcp is not offered).
	MCP *mcp.Manager
	// Logins are the providers /login and /logout reach (nil: /login only says pi-go has none).
	Logins Logins
	// AgentDir is pi's agent directory (~/.pi/agent): its themes/ and keybindings.json.
	AgentDir string
	// In and Out are the terminal; nil means stdin and stdout.
	In  io.Reader
	Out io.Writer
	// Width and Height are the size used when Out is not a terminal (tests); 0: 80x24.
	Width, Height int
	// TUIMode is "fullscreen" or "regular" (--tui-mode); "" takes the settings' tuiMode, and
	// without one pi 1.6's default, fullscreen.
	TUIMode string
	// Clock tells the time of a key press for double-press detection (Escape Escape, Ctrl+C Ctrl+C);
	// nil is time.Now. Tests pass a stopped clock so a loaded machine cannot split a double press.
	Clock func() time.Time

	termColors terminalColors // what the terminal reported (OSC 10/11) before the program started
}

// Run runs the interactive session until the user quits, ctx ends or the terminal goes away
// (ErrTerminalClosed). It returns when the terminal is restored and every operation it started has
// stopped.
func Run(ctx context.Context, sess *harness.Session, opts Options) error {
	if opts.In == nil {
		opts.In = os.Stdin
	}
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	term := screen.OpenTerminal(opts.In, opts.Out)
	width, height := term.Size()
	if width <= 0 {
		width, height = defaultSize(opts)
	}
	settings := config.Settings{}
	if opts.Settings != nil {
		settings = opts.Settings.Settings()
	}
	term.SetAlternate(resolveTUIMode(opts.TUIMode, settings.TUIMode) == TUIModeFullscreen)
	if err := term.Enter(); err != nil {
		return fmt.Errorf("terminal: %w", err)
	}
	defer term.Leave()

	if f, ok := opts.In.(*os.File); ok && term.InputIsTerminal() && os.Getenv("TERM") != "dumb" {
		opts.termColors.bg, opts.termColors.fg = termcolor.Query(f, opts.Out, terminalColorTimeout)
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	in := opts.In
	if f, ok := opts.In.(*os.File); ok && term.InputIsTerminal() {
		in = &hangupReader{File: f, onHangup: func() { cancel(ErrTerminalClosed) }}
	}
	m := newModel(ctx, sess, opts, width, height, term)
	prog := tea.NewProgram(m,
		tea.WithInput(in),
		tea.WithOutput(opts.Out),
		tea.WithoutRenderer(),
		tea.WithContext(ctx),
		// Signals reach the session through ctx (the caller's signal handling). Bubble Tea's own
		// handler would race it: its quit message, sent after the event loop has ended on the
		// cancelled ctx, blocks forever and with it the program's shutdown.
		tea.WithoutSignalHandler(),
	)
	stopResize := term.WatchResize(func(w, h int) { prog.Send(tea.WindowSizeMsg{Width: w, Height: h}) })
	_, err := prog.Run()
	stopResize()
	m.shutdown()
	if errors.Is(context.Cause(ctx), ErrTerminalClosed) {
		return ErrTerminalClosed
	}
	// A cancelled context (SIGINT, SIGTERM, SIGHUP from outside) ends the session like /quit.
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil || errors.Is(err, tea.ErrInterrupted) {
		err = nil
	}
	if err != nil {
		return err
	}
	if m.noSessionSelected {
		fmt.Fprintln(opts.Out, "No session selected")
	}
	return nil
}

func defaultSize(opts Options) (int, int) {
	w, h := opts.Width, opts.Height
	if w <= 0 {
		w = 80
	}
	if h <= 0 {
		h = 24
	}
	return w, h
}

// shutdown stops what the session still runs and gives the terminal back: the live region is
// replaced by whatever of the conversation had not reached the scrollback yet.
func (m *model) shutdown() {
	m.cancelAll()
	if m.sess.IsBashRunning() {
		m.sess.AbortBash()
	}
	if m.sess.IsStreaming() {
		m.sess.Abort()
	}
	// Prompt and Abort calls run in commands; wait for them so no goroutine outlives Run.
	waitCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = m.sess.WaitForIdle(waitCtx)
	m.ops.Wait()
	m.unsubscribe()
	m.opts.WarningSink.attach(nil)
	m.opts.ExtensionUI.attach(nil)
	m.releaseScreen()
}

// The two modes of the TUI (tuiMode, --tui-mode).
const (
	TUIModeFullscreen = "fullscreen"
	TUIModeRegular    = "regular"
)

// resolveTUIMode is the mode to run in: the flag's, else the settings', else pi 1.6's default.
func resolveTUIMode(flag, setting string) string {
	for _, m := range []string{flag, setting} {
		if m == TUIModeFullscreen || m == TUIModeRegular {
			return m
		}
	}
	return TUIModeFullscreen
}
