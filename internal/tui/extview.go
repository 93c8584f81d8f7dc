package tui

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// What extensions put on the screen besides dialogs, as pi's interactive mode shows it: statuses in
// the footer, widgets above and below the editor, a footer or header of their own, custom()
// components in the editor's place, the terminal title and the working message. Components render
// in the extension host (pi-tui's render(width)); the TUI draws the lines it is told.

// ExtensionHooks is what the TUI asks of the extension host; cmd/pi binds them. Every field may be nil.
type ExtensionHooks struct {
	// Terminal tells the host the terminal's size and theme (components render at this width).
	Terminal func(width, height int, th *extensions.Theme)
	// Input hands a key (the bytes a terminal sends for it) to the custom() component id.
	Input func(component, data string)
	// Shortcut runs the handler of an extension's shortcut (key as registered); it may wait for
	// the user.
	Shortcut func(ctx context.Context, key string) error
	// RenderMessage draws a custom message (pi's JSON) with its extension's renderer at width; ok
	// false when none draws it.
	RenderMessage func(ctx context.Context, message json.RawMessage, customType string, width int, expanded bool) (lines []string, ok bool, err error)
	// Autocomplete asks the autocomplete providers extensions added for suggestions at the cursor
	// (row and column in runes); ok false when they have none.
	Autocomplete func(ctx context.Context, lines []string, row, col int) (s extensions.Suggestions, ok bool, err error)
	// TerminalInput offers a key's bytes to the extensions' input listeners (ctx.ui.onTerminalInput):
	// consume drops the key, out replaces its bytes.
	TerminalInput func(ctx context.Context, data string) (consume bool, out string, err error)
	// EditorText tells the host the editor's text (ctx.ui.getEditorText()), at each frame it changed.
	EditorText func(text string)
	// RenderTool draws a tool call's block with the renderers an extension chose (exttool.go); ok
	// false when none draws it.
	RenderTool func(ctx context.Context, req extensions.ToolRenderRequest) (r extensions.Rendering, ok bool, err error)
	// RenderEntry draws a custom session entry (pi's JSON) with its extension's registerEntryRenderer.
	RenderEntry func(ctx context.Context, entry json.RawMessage, customType string, width int) (r extensions.Rendering, ok bool, err error)
	// TransformMarkdown runs the extensions' markdown transformers of c.MessageType over markdown
	// (mdx.go); a failing one leaves the markdown so far, and the error is returned beside it.
	TransformMarkdown func(ctx context.Context, markdown string, c extensions.MarkdownContext) (string, error)
}

// maxWidgetLines is how many lines of a widget given as lines are shown (pi's MAX_WIDGET_LINES).
const maxWidgetLines = 10

// extView is the extensions' part of the screen. It belongs to the UI goroutine.
type extView struct {
	statuses  map[string]string
	widgets   []extWidget // in the order they were set, as pi's Map keeps them
	header    []string
	hasHeader bool
	footer    []string
	hasFooter bool
	customs   []extCustom // custom() components, the newest (the one with the keyboard) last
	editor    []string    // an extension's editor (setEditorComponent), in the place of pi-go's
	// autocomplete: an extension added an autocomplete provider (extcomplete.go)
	autocomplete bool
	// inputListeners: an extension listens to the terminal's input; inputQueue are the keys waiting
	// for its answers, the head asked when inputAsked (extinput.go)
	inputListeners bool
	inputQueue     []pendingInput
	inputAsked     bool
	hasEditor      bool

	workingMessage string
	workingHidden  bool
	indicator      *workingIndicator // ctx.ui.setWorkingIndicator's frames (nil: pi-go's spinner)
	// thinkingLabel is the line of a hidden thinking block drawn from now on ("" for pi's).
	thinkingLabel string

	shortcuts []extShortcut
	renderers []string // customTypes extensions draw (extmessage.go)
	// toolRenderers are the tools extensions draw; allToolRenderers: any tool may be (exttool.go)
	toolRenderers    []string
	allToolRenderers bool
	entryRenderers   []string // customTypes of the session entries extensions draw (extentry.go)
	// editorText is the editor's text the host was told last (exteditor.go)
	editorText     string
	editorTextSent bool

	// headerItem is the header block of the transcript, drawn again when an extension replaces it.
	headerItem *chatItem
	// what the host was told last
	sentW, sentH int
	sentTheme    *theme.Theme
}

type extWidget struct {
	key      string
	below    bool
	lines    []string
	fromText bool // given as lines (setWidget(key, string[])), not rendered by a component
}

type extCustom struct {
	slot  string
	lines []string
}

// extShortcut is an extension's key: name as the keymap names keys, key as registered.
type extShortcut struct{ name, key string }

// extUIMsg is an extension's change to the screen, applied on the UI goroutine.
type extUIMsg interface{ apply(m *model) tea.Cmd }

type extStatusMsg struct{ key, text string }

type extWidgetMsg struct {
	key, placement string
	lines          []string // nil: remove
}

type extTitleMsg struct{ title string }

type extThinkingLabelMsg struct{ label string }

type extEditorTextMsg struct{ text string }

type extWorkingMsg struct {
	message string
	setMsg  bool
	visible bool
	setVis  bool
}

// extComponentMsg is a component's lines (kind "widget", "footer", "header" or "custom").
type extComponentMsg struct {
	slot, kind, key, placement string
	lines                      []string
	remove                     bool
}

type extShortcutsMsg struct{ specs []extensions.ShortcutSpec }

type extShortcutDoneMsg struct {
	key string
	err error
}

// SetStatus shows text in the footer under key; "" clears it (pi's ctx.ui.setStatus).
func (u *ExtensionUI) SetStatus(key, text string) { u.relay.send(extStatusMsg{key, text}) }

// SetWidget shows lines above the editor (placement "belowEditor": below it); nil lines clear it.
func (u *ExtensionUI) SetWidget(key string, lines []string, placement string) {
	u.relay.send(extWidgetMsg{key: key, placement: placement, lines: lines})
}

// SetTitle sets the terminal's title.
func (u *ExtensionUI) SetTitle(title string) { u.relay.send(extTitleMsg{title}) }

// SetEditorText replaces the editor's text.
func (u *ExtensionUI) SetEditorText(text string) { u.relay.send(extEditorTextMsg{text}) }

// SetWorkingMessage replaces the label of the working line ("" restores pi's).
func (u *ExtensionUI) SetWorkingMessage(message string) {
	u.relay.send(extWorkingMsg{message: message, setMsg: true})
}

// SetWorkingVisible shows or hides the working line.
func (u *ExtensionUI) SetWorkingVisible(visible bool) {
	u.relay.send(extWorkingMsg{visible: visible, setVis: true})
}

// SetHiddenThinkingLabel sets the line shown for a hidden thinking block ("" restores pi's). It
// applies to the blocks drawn after it.
func (u *ExtensionUI) SetHiddenThinkingLabel(label string) { u.relay.send(extThinkingLabelMsg{label}) }

func (msg extThinkingLabelMsg) apply(m *model) tea.Cmd {
	m.ext.thinkingLabel = msg.label
	return nil
}

// SetComponent shows the lines a component rendered (remove: the component is gone).
func (u *ExtensionUI) SetComponent(slot, kind, key, placement string, lines []string, remove bool) {
	u.relay.send(extComponentMsg{slot: slot, kind: kind, key: key, placement: placement, lines: lines, remove: remove})
}

// SetShortcuts binds the keys extensions registered, warning of conflicts with pi-go's own keys as
// pi does.
func (u *ExtensionUI) SetShortcuts(specs []extensions.ShortcutSpec) {
	u.relay.send(extShortcutsMsg{specs})
}

// Bind sets the hooks to the host. Call it before the TUI runs.
func (u *ExtensionUI) Bind(h ExtensionHooks) {
	if u != nil {
		u.hooks = h
	}
}

func (msg extStatusMsg) apply(m *model) tea.Cmd {
	if msg.text == "" {
		delete(m.ext.statuses, msg.key)
	} else {
		if m.ext.statuses == nil {
			m.ext.statuses = map[string]string{}
		}
		m.ext.statuses[msg.key] = msg.text
	}
	return nil
}

func (msg extWidgetMsg) apply(m *model) tea.Cmd {
	m.ext.setWidget(extWidget{key: msg.key, below: msg.placement == "belowEditor", lines: msg.lines, fromText: true}, msg.lines == nil)
	return nil
}

func (v *extView) setWidget(w extWidget, remove bool) {
	v.widgets = slices.DeleteFunc(v.widgets, func(o extWidget) bool { return o.key == w.key })
	if !remove {
		v.widgets = append(v.widgets, w)
	}
}

func (msg extTitleMsg) apply(m *model) tea.Cmd {
	m.scr.WriteSequence("\x1b]0;" + sanitizeTitle(msg.title) + "\x07")
	return nil
}

func (msg extEditorTextMsg) apply(m *model) tea.Cmd {
	m.ed.SetText(msg.text)
	return nil
}

func (msg extWorkingMsg) apply(m *model) tea.Cmd {
	if msg.setMsg {
		m.ext.workingMessage = msg.message
	}
	if msg.setVis {
		m.ext.workingHidden = !msg.visible
	}
	return nil
}

func (msg extComponentMsg) apply(m *model) tea.Cmd {
	v := &m.ext
	switch msg.kind {
	case "widget":
		v.setWidget(extWidget{key: msg.key, below: msg.placement == "belowEditor", lines: msg.lines}, msg.remove)
	case "footer":
		v.footer, v.hasFooter = msg.lines, !msg.remove
	case "header":
		v.header, v.hasHeader = msg.lines, !msg.remove
		m.redrawHeader()
	case "editor":
		v.editor, v.hasEditor = msg.lines, !msg.remove
	case "custom":
		i := slices.IndexFunc(v.customs, func(c extCustom) bool { return c.slot == msg.slot })
		switch {
		case msg.remove && i >= 0:
			v.customs = slices.Delete(v.customs, i, i+1)
		case msg.remove:
		case i >= 0:
			v.customs[i].lines = msg.lines
		default:
			v.customs = append(v.customs, extCustom{slot: msg.slot, lines: msg.lines})
		}
	}
	return nil
}

// redrawHeader draws the transcript's header again (an extension replaced or restored it).
func (m *model) redrawHeader() {
	it := m.ext.headerItem
	if it == nil {
		return
	}
	it.cache = nil
	if slices.Contains(m.done, it) {
		m.relayout() // printed already: the scrollback is drawn again, as pi redraws its screen
	}
}

// extHeader is the header an extension set, if any.
func (m *model) extHeader(w int) ([]string, bool) {
	if !m.ext.hasHeader {
		return nil, false
	}
	return m.extLines(m.ext.header, w), true
}

// reservedForExtensions are the actions whose keys an extension cannot take (pi's list).
var reservedForExtensions = []string{
	"app.interrupt", "app.clear", "app.exit", "app.suspend", "app.thinking.cycle",
	"app.model.cycleForward", "app.model.cycleBackward", "app.model.select", "app.tools.expand",
	"app.thinking.toggle", "app.editor.external", "app.message.copy", "app.message.followUp",
	"tui.input.submit", "tui.select.confirm", "tui.select.cancel", "tui.input.copy",
	"tui.editor.deleteToLineEnd",
}

func (msg extShortcutsMsg) apply(m *model) tea.Cmd {
	m.ext.shortcuts = m.extShortcuts(msg.specs)
	return nil
}

// extShortcuts binds specs, warning as pi does: a key of a reserved action is skipped, a key of
// another action is taken from it, a key two extensions registered goes to the later one.
func (m *model) extShortcuts(specs []extensions.ShortcutSpec) []extShortcut {
	builtin := map[string]string{} // key name → action
	reserved := map[string]bool{}
	for _, d := range keymapDefinitions() {
		for _, k := range m.keys.Keys(d) {
			n, err := keyName(k)
			if err != nil {
				continue
			}
			if slices.Contains(reservedForExtensions, d) {
				reserved[n] = true
			}
			if _, ok := builtin[n]; !ok || reserved[n] {
				builtin[n] = d
			}
		}
	}
	var out []extShortcut
	owner := map[string]string{}
	for _, s := range specs {
		n, err := keyName(s.Key)
		if err != nil {
			m.addWarning("Extension shortcut '" + s.Key + "' from " + s.ExtensionPath + ": " + err.Error())
			continue
		}
		if reserved[n] {
			m.addWarning("Extension shortcut '" + s.Key + "' from " + s.ExtensionPath + " conflicts with built-in shortcut. Skipping.")
			continue
		}
		if action, ok := builtin[n]; ok {
			m.addWarning("Extension shortcut conflict: '" + s.Key + "' is built-in shortcut for " + action + " and " +
				s.ExtensionPath + ". Using " + s.ExtensionPath + ".")
		}
		if prev, ok := owner[n]; ok {
			m.addWarning("Extension shortcut conflict: '" + s.Key + "' registered by both " + prev + " and " +
				s.ExtensionPath + ". Using " + s.ExtensionPath + ".")
			out = slices.DeleteFunc(out, func(o extShortcut) bool { return o.name == n })
		}
		owner[n] = s.ExtensionPath
		out = append(out, extShortcut{name: n, key: s.Key})
	}
	return out
}

// extShortcut runs the extension shortcut k is, if it is one.
func (m *model) extShortcut(k tea.KeyMsg) (tea.Cmd, bool) {
	if len(m.ext.shortcuts) == 0 {
		return nil, false
	}
	name := keyMsgName(k)
	i := slices.IndexFunc(m.ext.shortcuts, func(s extShortcut) bool { return s.name == name })
	if i < 0 {
		return nil, false
	}
	run := m.opts.ExtensionUI.hooks.Shortcut
	if run == nil {
		return nil, false
	}
	key, ctx := m.ext.shortcuts[i].key, m.ctx
	return func() tea.Msg { return extShortcutDoneMsg{key: key, err: run(ctx, key)} }, true
}

func (msg extShortcutDoneMsg) apply(m *model) tea.Cmd {
	if msg.err != nil && m.ctx.Err() == nil {
		m.addError("Shortcut handler error: " + msg.err.Error())
	}
	return nil
}

// extCustomKey hands k to the custom() component on top.
func (m *model) extCustomKey(k tea.KeyMsg) {
	c := m.ext.customs[len(m.ext.customs)-1]
	if in := m.opts.ExtensionUI.hooks.Input; in != nil {
		for _, data := range terminalInputs(k) {
			in(c.slot, data)
		}
	}
}

// syncExtTerminal tells the host the terminal's size and theme when they changed.
func (m *model) syncExtTerminal() {
	set := m.opts.ExtensionUI.terminalHook()
	if set == nil {
		return
	}
	m.syncExtEditorText()
	th := m.r.Theme()
	if m.ext.sentW == m.width && m.ext.sentH == m.height && m.ext.sentTheme == th {
		return
	}
	var spec *extensions.Theme
	if m.ext.sentTheme != th {
		spec = extTheme(th)
		if m.themes.catalog != nil {
			spec.Available = m.themes.catalog.Names()
		}
	}
	resized := m.ext.sentW != m.width
	m.ext.sentW, m.ext.sentH, m.ext.sentTheme = m.width, m.height, th
	set(m.width, m.height, spec)
	if resized || spec != nil {
		m.extToolsRedraw()
	}
}

// extTheme is th as extensions draw with it.
func extTheme(th *theme.Theme) *extensions.Theme {
	out := &extensions.Theme{Name: th.Name(), Appearance: "dark", Fg: map[string]string{}, Bg: map[string]string{},
		Colors: th.Colors(), Plain: th.Profile() == termenv.Ascii}
	if !th.IsDark() {
		out.Appearance = "light"
	}
	for k := range theme.Key(0).Count() {
		out.Fg[k.Name()] = th.FgSeq(k)
		out.Bg[k.Name()] = th.BgSeq(k)
	}
	return out
}

// extLines fits lines an extension gave to the width: colours dropped on a terminal without them,
// each line cut at the width and its styles closed, as pi resets styles after every line.
func (m *model) extLines(lines []string, w int) []string {
	plain := m.r.Theme().Profile() == termenv.Ascii
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if plain {
			l = ansi.Strip(l)
		}
		l = ansi.Truncate(l, w, "")
		if strings.Contains(l, "\x1b") {
			l += theme.Reset
		}
		out = append(out, l)
	}
	return out
}

// extWidgetLines are the widgets above (below false) or below the editor. Widgets given as lines
// are drawn as pi draws them (a column of padding, wrapped, at most ten lines); above the editor a
// blank line separates them from what is over them.
func (m *model) extWidgetLines(below bool, w int) []string {
	var out []string
	for _, wd := range m.ext.widgets {
		if wd.below != below {
			continue
		}
		if !wd.fromText {
			out = append(out, m.extLines(wd.lines, w)...)
			continue
		}
		for i, l := range wd.lines {
			if i == maxWidgetLines {
				out = append(out, " "+m.r.Theme().Fg(theme.Muted, "... (widget truncated)"))
				break
			}
			for _, row := range strings.Split(ansi.Wrap(l, max(w-2, 1), ""), "\n") {
				out = append(out, m.extLines([]string{" " + row}, w)...)
			}
		}
	}
	if len(out) > 0 && !below {
		out = append([]string{""}, out...)
	}
	return out
}

// extCustomLines is the custom() component on top, if one is shown.
func (m *model) extCustomLines(w int) ([]string, bool) {
	if len(m.ext.customs) == 0 {
		return nil, false
	}
	return m.extLines(m.ext.customs[len(m.ext.customs)-1].lines, w), true
}

var statusSpace = regexp.MustCompile(` +`)

// extFooterLines is the footer: an extension's own, or pi-go's with the extensions' statuses on a
// line of their own, sorted by key, each made one line.
func (m *model) extFooterLines() []string {
	if m.ext.hasFooter {
		return m.extLines(m.ext.footer, m.width)
	}
	lines := m.footerLines()
	if len(m.ext.statuses) == 0 {
		return lines
	}
	keys := make([]string, 0, len(m.ext.statuses))
	for k := range m.ext.statuses {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	texts := make([]string, len(keys))
	for i, k := range keys {
		t := strings.NewReplacer("\r", " ", "\n", " ", "\t", " ").Replace(m.ext.statuses[k])
		texts[i] = strings.TrimSpace(statusSpace.ReplaceAllString(t, " "))
	}
	line := strings.Join(texts, " ")
	if m.r.Theme().Profile() == termenv.Ascii {
		line = ansi.Strip(line)
	}
	if ansi.StringWidth(line) > m.width {
		line = ansi.Truncate(line, max(m.width-3, 0), "") + theme.Reset + m.r.Theme().Fg(theme.Dim, "...")
	} else if strings.Contains(line, "\x1b") {
		line += theme.Reset
	}
	return append(slices.Clip(lines), line)
}

// extStatus applies an extension's working message and visibility to the working line (ok false:
// hidden).
func (m *model) extStatus(st render.Status) (render.Status, bool) {
	switch st.Activity {
	case render.Working, render.Thinking, render.RunningTool:
		if m.ext.workingHidden {
			return st, false
		}
		if st.Activity == render.Working && m.ext.workingMessage != "" {
			st.Message = m.ext.workingMessage
			if m.r.Theme().Profile() == termenv.Ascii {
				st.Message = ansi.Strip(st.Message)
			}
		}
	}
	return st, true
}
