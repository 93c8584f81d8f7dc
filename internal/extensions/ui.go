package extensions

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Theme is pi-go's active theme as extensions' components draw with it (ctx.ui.theme, the theme
// argument of component factories): for each of pi's token names, the escape sequence that opens its
// colour on this terminal, so extension output matches pi-go's own.
type Theme struct {
	Name       string `json:"name,omitempty"`
	Appearance string `json:"appearance,omitempty"` // "dark" or "light"
	// Fg and Bg open a token's foreground or background colour ("" for the terminal's default).
	Fg map[string]string `json:"fg,omitempty"`
	Bg map[string]string `json:"bg,omitempty"`
	// Colors are the tokens' colours as "#rrggbb" (theme.colors); tokens left to the terminal are absent.
	Colors map[string]string `json:"colors,omitempty"`
	// Plain: the terminal shows no colours and no attributes (NO_COLOR), so styles add nothing.
	Plain bool `json:"plain,omitempty"`
	// Available are the names of the themes ctx.ui.setTheme can switch to.
	Available []string `json:"available,omitempty"`
}

// terminal is what the host knows of the TUI: its size and theme, sent to every process after the
// start and again on each change (ui_resize), so components render at the terminal's width.
type terminal struct {
	mu            sync.Mutex
	width, height int
	theme         *Theme
	editorText    *string // the editor's text, when the TUI told it
}

func (t *terminal) message() (hostMessage, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.width == 0 {
		return hostMessage{}, false
	}
	return hostMessage{Type: msgUIResize, Width: t.width, Height: t.height, Theme: t.theme}, true
}

// SetTerminal tells the extensions the TUI's size and theme (theme nil: unchanged). Components
// (footer, header, widgets, custom()) render at this width.
func (h *Host) SetTerminal(width, height int, theme *Theme) {
	h.term.mu.Lock()
	changed := width != h.term.width || height != h.term.height || theme != nil && theme != h.term.theme
	h.term.width, h.term.height = width, height
	if theme != nil {
		h.term.theme = theme
	}
	h.term.mu.Unlock()
	if changed && h.Started() {
		h.pushTerminal(h.procs)
	}
}

func (h *Host) pushTerminal(procs []*process) {
	m, ok := h.term.message()
	h.term.mu.Lock()
	text := h.term.editorText
	h.term.mu.Unlock()
	for _, p := range procs {
		if ok {
			p.send(m)
		}
		if text != nil {
			p.send(hostMessage{Type: msgUIEditor, Text: text})
		}
	}
}

// MirrorEditorText tells the extensions the editor's text (ctx.ui.getEditorText() reads it
// synchronously, as in pi).
func (h *Host) MirrorEditorText(text string) {
	h.term.mu.Lock()
	h.term.editorText = &text
	h.term.mu.Unlock()
	if !h.Started() {
		return // told with the terminal once the processes are up
	}
	for _, p := range h.procs {
		p.send(hostMessage{Type: msgUIEditor, Text: &text})
	}
}

// UIInput hands a key, as the bytes a terminal sends for it, to the extension component id
// (a custom() dialog has the keyboard while it is shown).
func (h *Host) UIInput(component, data string) {
	if !h.Started() {
		return
	}
	for _, p := range h.procs {
		p.send(hostMessage{Type: msgUIInput, Component: component, Data: data})
	}
}

// Shortcuts lists the keys extensions registered, the first registration of a key (pi's notation,
// compared without case) winning across processes.
func (h *Host) Shortcuts() []ShortcutSpec {
	if !h.Started() {
		return nil
	}
	var out []ShortcutSpec
	seen := map[string]bool{}
	for _, p := range h.live(context.Background()) {
		for _, s := range p.registrations().Shortcuts {
			k := strings.ToLower(s.Key)
			if seen[k] {
				continue
			}
			seen[k] = true
			if s.ExtensionPath == "" {
				s.ExtensionPath = p.path
			}
			out = append(out, s)
		}
	}
	return out
}

// RunShortcut runs the handler of the shortcut key (as registered). found is false when no
// extension registered it. Like a command, it may wait for the user: no deadline but ctx's.
func (h *Host) RunShortcut(ctx context.Context, key string) (found bool, err error) {
	for _, p := range h.live(ctx) {
		for _, s := range p.registrations().Shortcuts {
			if !strings.EqualFold(s.Key, key) {
				continue
			}
			// The caller shows the failure (pi: "Shortcut handler error: …").
			if _, err := p.call(ctx, hostMessage{Type: msgUIShortcut, Name: s.Key}, 0, nil); err != nil {
				return true, err
			}
			return true, nil
		}
	}
	return false, nil
}

// MessageRenderers lists the customTypes extensions draw themselves (registerMessageRenderer).
func (h *Host) MessageRenderers() []string {
	if !h.Started() {
		return nil
	}
	var out []string
	for _, p := range h.live(context.Background()) {
		for _, t := range p.registrations().MessageRenderers {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// RenderMessage asks the extension that registered a renderer for message's customType to draw it
// at width. ok is false when none draws it (pi's own box is drawn then); a failing renderer is an
// error.
func (h *Host) RenderMessage(ctx context.Context, message json.RawMessage, customType string, width int, expanded bool) (lines []string, ok bool, err error) {
	for _, p := range h.live(ctx) {
		if !slices.Contains(p.registrations().MessageRenderers, customType) {
			continue
		}
		res, err := p.call(ctx, hostMessage{Type: msgRenderMsg, Message: message, Width: width, Expanded: expanded}, h.cfg.CallTimeout, nil)
		if err != nil {
			return nil, false, err
		}
		var r *struct {
			Lines []string `json:"lines"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			return nil, false, fmt.Errorf("render %s: %w", customType, err)
		}
		if r == nil {
			return nil, false, nil
		}
		return r.Lines, true, nil
	}
	return nil, false, nil
}
