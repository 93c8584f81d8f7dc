package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/tui"
)

// tuiExtensionUI shows extensions' dialogs as the TUI's pickers and their notifications as lines of
// the transcript. Status, widgets and titles have no place in the TUI yet and are not shown.
type tuiExtensionUI struct {
	a  *app
	ui *tui.ExtensionUI
}

type uiParams struct {
	Method      string   `json:"method"`
	Title       string   `json:"title"`
	Message     string   `json:"message"`
	Options     []string `json:"options"`
	Placeholder string   `json:"placeholder"`
	NotifyType  string   `json:"notifyType"`
	Timeout     int64    `json:"timeout"`
}

func (u *tuiExtensionUI) request(ctx context.Context, params json.RawMessage, dialog bool) (json.RawMessage, error) {
	var p uiParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("ui: %w", err)
	}
	if p.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(p.Timeout)*time.Millisecond)
		defer cancel()
	}
	value := func(v string, ok bool) (json.RawMessage, error) {
		if !ok {
			return json.RawMessage(`{"cancelled":true}`), nil
		}
		return json.Marshal(map[string]string{"value": v})
	}
	switch p.Method {
	case "select":
		return value(u.ui.Select(ctx, p.Title, p.Options))
	case "confirm":
		return json.Marshal(map[string]bool{"confirmed": u.ui.Confirm(ctx, p.Title, p.Message)})
	case "input", "editor":
		return value(u.ui.Input(ctx, p.Title, p.Placeholder))
	case "notify":
		u.ui.Notify(p.Message, p.NotifyType)
	}
	return nil, nil
}

func (u *tuiExtensionUI) reportError(e extensions.ExtensionError) {
	u.a.sessionWarning(fmt.Errorf("extension %s (%s): %s", e.ExtensionPath, e.Event, e.Error))
}

// tuiUI is the TUI's end of the extension UI, when there is a host in the TUI.
func (e *extensionHost) tuiUI() *tui.ExtensionUI {
	if e == nil {
		return nil
	}
	if u, ok := e.ui.(*tuiExtensionUI); ok {
		return u.ui
	}
	return nil
}
