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
// the transcript; statuses, widgets, titles and the lines of their components (footer, header,
// custom()) go to the TUI's extension view.
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
	Prefill     string   `json:"prefill"`
	NotifyType  string   `json:"notifyType"`
	Timeout     int64    `json:"timeout"`

	StatusKey       string   `json:"statusKey"`
	StatusText      string   `json:"statusText"`
	WidgetKey       string   `json:"widgetKey"`
	WidgetLines     []string `json:"widgetLines"`
	WidgetPlacement string   `json:"widgetPlacement"`
	Text            string   `json:"text"`
	Visible         bool     `json:"visible"`
	Label           string   `json:"label"`

	// component: the lines of an extension component (sidecar_ui.mjs)
	Slot      string   `json:"slot"`
	Kind      string   `json:"kind"`
	Key       string   `json:"key"`
	Placement string   `json:"placement"`
	Lines     []string `json:"lines"`
	Remove    bool     `json:"remove"`
	// setTheme
	Name string `json:"name"`
	// editorAction (editorChange, editorSubmit: Text)
	Action string `json:"action"`
	// autocomplete
	Active bool `json:"active"`
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
	case "input":
		return value(u.ui.Input(ctx, p.Title, p.Placeholder))
	case "editor":
		return value(u.ui.Editor(ctx, p.Title, p.Prefill))
	case "notify":
		u.ui.Notify(p.Message, p.NotifyType)
	case "setStatus":
		u.ui.SetStatus(p.StatusKey, p.StatusText)
	case "setWidget":
		u.ui.SetWidget(p.WidgetKey, p.WidgetLines, p.WidgetPlacement)
	case "setTitle":
		u.ui.SetTitle(p.Title)
	case "set_editor_text":
		u.ui.SetEditorText(p.Text)
	case "setWorkingMessage":
		u.ui.SetWorkingMessage(p.Message)
	case "setWorkingVisible":
		u.ui.SetWorkingVisible(p.Visible)
	case "setWorkingIndicator":
		var ind struct {
			Indicator *struct {
				Frames     []string `json:"frames"`
				IntervalMs int      `json:"intervalMs"`
			} `json:"indicator"`
		}
		if err := json.Unmarshal(params, &ind); err != nil {
			return nil, fmt.Errorf("setWorkingIndicator: %w", err)
		}
		if ind.Indicator == nil {
			u.ui.SetWorkingIndicator(nil, 0)
		} else {
			u.ui.SetWorkingIndicator(append([]string{}, ind.Indicator.Frames...), time.Duration(ind.Indicator.IntervalMs)*time.Millisecond)
		}
	case "setHiddenThinkingLabel":
		u.ui.SetHiddenThinkingLabel(p.Label)
	case "component":
		u.ui.SetComponent(p.Slot, p.Kind, p.Key, p.Placement, p.Lines, p.Remove)
	case "setTheme":
		u.ui.SetTheme(p.Name)
	case "autocomplete":
		u.ui.SetAutocomplete(p.Active)
	case "terminalInput":
		u.ui.SetTerminalInput(p.Active)
	case "editorChange":
		u.ui.EditorChange(p.Text)
	case "editorSubmit":
		u.ui.EditorSubmit(p.Text)
	case "editorAction":
		u.ui.EditorAction(p.Action, p.Text)
	}
	return nil, nil
}

// bindTUI connects the TUI's extension view to the host: the terminal's size and theme, keys for
// custom() components, and shortcuts.
func (e *extensionHost) bindTUI() {
	u := e.tuiUI()
	if u == nil {
		return
	}
	u.Bind(tui.ExtensionHooks{
		Terminal: e.host.SetTerminal,
		Input:    e.host.UIInput,
		Shortcut: func(ctx context.Context, key string) error {
			e.ready(ctx)
			_, err := e.host.RunShortcut(ctx, key)
			return err
		},
		RenderMessage:     e.host.RenderMessage,
		RenderTool:        e.host.RenderTool,
		RenderEntry:       e.host.RenderEntry,
		TransformMarkdown: e.host.TransformMarkdown,
		EditorText:        e.host.MirrorEditorText,
		Autocomplete:      e.host.CompleteEditor,
		TerminalInput:     e.host.TerminalInput,
	})
}

// tuiShortcuts hands the registered shortcuts to the TUI once the extensions have registered.
func (e *extensionHost) tuiShortcuts() {
	if u := e.tuiUI(); u != nil {
		if s := e.host.Shortcuts(); len(s) > 0 {
			u.SetShortcuts(s)
		}
		if r := e.host.MessageRenderers(); len(r) > 0 {
			u.SetMessageRenderers(r)
		}
		if names, all := e.host.ToolRenderers(); len(names) > 0 || all {
			u.SetToolRenderers(names, all)
		}
		if r := e.host.EntryRenderers(); len(r) > 0 {
			u.SetEntryRenderers(r)
		}
		if t := e.host.MarkdownTransformers(); len(t) > 0 {
			u.SetMarkdownTransformers(t)
		}
	}
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

// showCustomEntry hands an appended custom entry to the TUI, which draws it when an extension
// registered a renderer for its type (registerEntryRenderer).
func (e *extensionHost) showCustomEntry(id, customType string, data any) {
	u := e.tuiUI()
	if u == nil {
		return
	}
	entry, err := json.Marshal(map[string]any{"type": "custom", "id": id, "customType": customType, "data": data,
		"timestamp": time.Now().UTC().Format("2006-01-02T15:04:05.000Z")})
	if err == nil {
		u.AddCustomEntry(entry, customType)
	}
}
