package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pi-go/pi-go/internal/export"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// exportTheme is the settings' theme as the HTML export takes it (the command line and RPC draw no
// terminal, so the palette is used as it is).
func (a *app) exportTheme() export.Theme {
	th := theme.Named(a.settings.Settings().Theme, os.Getenv("COLORFGBG"))
	return export.Theme{Name: th.Name(), Dark: th.IsDark(), Colors: th.Colors()}
}

// exportFile is `pi --export <session> [output]`: the session file as an HTML page, then exit.
func (a *app) exportFile(ctx context.Context) error {
	in := a.opts.Export
	if !filepath.IsAbs(in) {
		in = filepath.Join(a.cwd, in)
	}
	if _, err := os.Stat(in); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("File not found: %s", in) //nolint:staticcheck // pi's text
	}
	m, err := session.Open(in, session.OpenOptions{})
	if err != nil {
		return err
	}
	defer m.Close()
	for _, w := range m.Warnings() {
		a.warn("%s", w)
	}
	a.flushWarnings()
	if filepath.Clean(m.SessionFile()) != filepath.Clean(in) { // Open started a new session beside it
		return fmt.Errorf("%s is not a pi session file", in)
	}
	out := ""
	if len(a.opts.Messages) > 0 {
		out = a.opts.Messages[0]
	}
	path, err := export.HTMLFile(ctx, export.FromManager(m), out, a.cwd, export.HTMLOptions{Theme: a.exportTheme()})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.io.Out, "Exported to: %s\n", path)
	return nil
}
