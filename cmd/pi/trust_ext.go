package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui"
)

// askTrustExtensions is pi 1.6's project_trust: before the project's trust is decided, the user's
// (global) and the command line's extensions load and are asked; the first yes or no decides. Only
// called when it matters (the project has resources that need a decision and no --approve or
// --no-approve was given), and it starts something only when such extensions exist. Their host
// stays a.ext: newExtensionHost later completes it with the project's extensions, so Node starts
// once.
func (a *app) askTrustExtensions(ctx context.Context, store *session.Manager) (extensions.TrustVerdict, bool) {
	// The project's settings (extensions, packages) do not count in this pass (pi's bootstrap pass).
	a.settings.SetProjectTrusted(false)
	found, sc := a.findExtensions(store.Cwd(), false)
	e := a.buildExtensionHost(store, found, sc)
	if e == nil {
		return extensions.TrustVerdict{}, false
	}
	a.ext = e
	// pi asks the user only in its interactive mode, before the TUI starts; RPC clients are not
	// listening yet, so there, as in print and JSON modes, the handler's dialogs have no answer.
	hasUI := e.mode == "tui"
	e.host.SetHandler(a.trustRequests(ctx, e.mode))
	defer e.host.SetHandler(nil) // the session's handler comes with the session
	e.host.Preload(ctx)
	return e.host.ProjectTrust(ctx, a.cwd, e.mode, hasUI)
}

// trustRequests answers what a project_trust handler asks: its limited context has select, confirm
// and input (in the TUI, asked on the terminal as the built-in trust prompt is) and notify (on
// stderr outside the TUI, as pi prints them; pi's startup screen drops them).
func (a *app) trustRequests(ctx context.Context, mode string) extensions.RequestHandler {
	var mu sync.Mutex // one question on the terminal at a time
	return func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		if method != "ui" {
			return nil, fmt.Errorf("%s is not available while project trust is decided", method)
		}
		var p uiParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("ui request: %w", err)
		}
		if p.Method == "notify" && mode != "tui" {
			fmt.Fprintln(a.io.Err, p.Message)
		}
		if mode != "tui" {
			return nil, nil
		}
		mu.Lock()
		defer mu.Unlock()
		th := a.settings.Settings().Theme
		switch p.Method {
		case "select":
			i, err := tui.StartupSelect(ctx, a.io.In, a.io.Out, th, p.Title, p.Options)
			if err != nil || i < 0 {
				return json.RawMessage(`{"cancelled":true}`), err
			}
			return json.Marshal(map[string]string{"value": p.Options[i]})
		case "confirm":
			// As pi's startup confirm: a Yes/No selector under "title\nmessage".
			i, err := tui.StartupSelect(ctx, a.io.In, a.io.Out, th, p.Title+"\n"+p.Message, []string{"Yes", "No"})
			return json.Marshal(map[string]bool{"confirmed": err == nil && i == 0})
		case "input":
			text, ok, err := tui.StartupInput(ctx, a.io.In, a.io.Out, th, p.Title, p.Placeholder)
			if err != nil || !ok {
				return json.RawMessage(`{"cancelled":true}`), err
			}
			return json.Marshal(map[string]string{"value": text})
		}
		return nil, nil
	}
}

// rememberTrust saves an extension's decision for cwd when it asked to (pi's trustStore.set).
func (a *app) rememberTrust(store *config.TrustStore, trusted bool) {
	if err := store.SetMany([]config.TrustUpdate{{Path: a.cwd, Trusted: &trusted}}); err != nil {
		a.warn("Could not save the trust decision: %v", err)
	}
}
