package tui

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// treeSelector is /tree: the session's entries as a tree (forks indented with connectors, the active
// path marked), searchable, filtered (Ctrl+D default, Ctrl+T no tools, Ctrl+U user only, Ctrl+L
// labelled only, Ctrl+A all; Ctrl+O cycles), foldable (Ctrl/Alt+←/→); Shift+L edits an entry's
// label, Shift+T shows when labels were set; Enter moves the conversation to the chosen entry.
type treeSelector struct {
	rows   []treeRow      // every entry, depth first
	index  map[string]int // entry id -> rows index
	shown  []int          // rows visible, in order
	query  []rune
	cursor int
	// selected is the entry under the cursor, kept across filter changes.
	selected string
	leaf     string
	active   map[string]bool
	multiple bool
	toolCall map[string]provider.Content

	mode       treeFilter
	folded     map[string]bool
	labelTimes bool

	// the visible tree: nearest visible parent and visible children ("" is the invisible root)
	vParent   map[string]string
	vChildren map[string][]string

	// activeRow is the shown entry marked "← active": the leaf, or its nearest shown ancestor when the
	// leaf is hidden (a model change, a label).
	activeRow string

	// labelling is the entry whose label is being edited ("" when not), labelEdit its text.
	labelling string
	labelEdit *editor.Editor
}

// openTreeSelector shows the tree with initial (an entry id) selected, or the current leaf.
func (m *model) openTreeSelector(initial string) {
	store := m.sess.Store()
	roots := store.Tree()
	if len(roots) == 0 {
		m.addStatus("No entries in session")
		return
	}
	t := &treeSelector{leaf: store.LeafID(), active: map[string]bool{}, toolCall: map[string]provider.Content{},
		index: map[string]int{}, folded: map[string]bool{}}
	for _, e := range store.Path("") {
		t.active[e.ID] = true
	}
	t.flatten(roots)
	t.selected = initial
	if t.selected == "" {
		t.selected = t.leaf
	}
	t.filter()
	m.sel = t
}

func (t *treeSelector) displayIndent(indent int) int {
	if t.multiple {
		return max(indent-1, 0)
	}
	return indent
}

func (t *treeSelector) resize(int, int) {}

// visibleRows is how many entries the tree shows: pi's half of the terminal, within the rows the
// live region leaves the selector.
func (t *treeSelector) visibleRows(rows int) int { return max(rows-6, 3) }

func (t *treeSelector) setMode(mode treeFilter) {
	t.mode = mode
	t.folded = map[string]bool{}
	t.filter()
}

// toggleMode switches to mode, or back to the default when it is on already (pi's filter keys).
func (t *treeSelector) toggleMode(mode treeFilter) {
	if t.mode == mode {
		mode = filterDefault
	}
	t.setMode(mode)
}

func (t *treeSelector) key(m *model, k tea.KeyMsg) tea.Cmd {
	name := editor.KeyName(k)
	if t.labelling != "" {
		return t.labelKey(m, k, name)
	}
	page := t.visibleRows(m.selectorRows())
	switch name {
	case "esc", "ctrl+c":
		if len(t.query) > 0 && name == "esc" {
			t.query = nil
			t.folded = map[string]bool{}
			t.filter()
			return nil
		}
		m.sel = nil
	case "up":
		if len(t.shown) > 0 {
			t.cursor = (t.cursor - 1 + len(t.shown)) % len(t.shown)
		}
	case "down":
		if len(t.shown) > 0 {
			t.cursor = (t.cursor + 1) % len(t.shown)
		}
	case "left", "pgup":
		t.cursor = max(t.cursor-page, 0)
	case "right", "pgdown":
		t.cursor = max(min(t.cursor+page, len(t.shown)-1), 0)
	case "ctrl+left", "alt+left":
		if id := t.cursorID(); id != "" && t.foldable(id) && !t.folded[id] {
			t.folded[id] = true
			t.filter()
		} else {
			t.cursor = t.segmentStart(true)
		}
	case "ctrl+right", "alt+right":
		if id := t.cursorID(); id != "" && t.folded[id] {
			delete(t.folded, id)
			t.filter()
		} else {
			t.cursor = t.segmentStart(false)
		}
	case "ctrl+d":
		t.setMode(filterDefault)
	case "ctrl+t":
		t.toggleMode(filterNoTools)
	case "ctrl+u":
		t.toggleMode(filterUserOnly)
	case "ctrl+l":
		t.toggleMode(filterLabeledOnly)
	case "ctrl+a":
		t.toggleMode(filterAll)
	case "ctrl+o":
		t.setMode((t.mode + 1) % treeFilterCount)
	case "L":
		if id := t.cursorID(); id != "" {
			t.labelling = id
			t.labelEdit = editor.New()
			t.labelEdit.SetText(t.rows[t.index[id]].label)
		}
	case "T":
		t.labelTimes = !t.labelTimes
	case "backspace", "ctrl+h":
		if len(t.query) > 0 {
			t.query = t.query[:len(t.query)-1]
			t.folded = map[string]bool{}
			t.filter()
		}
	case "enter":
		if len(t.shown) == 0 {
			return nil
		}
		m.sel = nil
		return m.navigateTree(t.rows[t.shown[t.cursor]].entry.ID)
	default:
		switch {
		case k.Paste:
			t.query = append(t.query, []rune(oneLine(string(k.Runes)))...)
		case k.Type == tea.KeyRunes && !k.Alt:
			t.query = append(t.query, k.Runes...)
		case k.Type == tea.KeySpace:
			t.query = append(t.query, ' ')
		default:
			return nil
		}
		t.folded = map[string]bool{}
		t.filter()
	}
	return nil
}

func (t *treeSelector) cursorID() string {
	if t.cursor >= len(t.shown) {
		return ""
	}
	return t.rows[t.shown[t.cursor]].entry.ID
}

// labelKey edits a label: Enter saves it (empty removes it) as a label entry, Escape goes back.
func (t *treeSelector) labelKey(m *model, k tea.KeyMsg, name string) tea.Cmd {
	switch name {
	case "esc", "ctrl+c":
		t.labelling, t.labelEdit = "", nil
		return nil
	case "enter":
		id, label := t.labelling, strings.TrimSpace(oneLine(t.labelEdit.Text()))
		t.labelling, t.labelEdit = "", nil
		if _, err := m.sess.Store().AppendLabelChange(id, label); err != nil {
			m.addError("Could not save the label: " + err.Error())
			return nil
		}
		r := &t.rows[t.index[id]]
		r.label, r.labelTime = label, ""
		if label != "" {
			r.labelTime = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
		}
		r.search = t.searchText(*r)
		t.filter()
		return nil
	}
	if k.Paste {
		t.labelEdit.InsertText(oneLine(string(k.Runes)))
		return nil
	}
	t.labelEdit.Update(k)
	return nil
}

func (t *treeSelector) view(m *model, width, rows int) []string {
	th := m.r.Theme()
	rule := th.Fg(theme.Border, strings.Repeat("─", max(width, 1)))
	out := []string{rule, truncate(" "+th.Style(theme.Accent, true, false, "Session Tree"), width)}
	if t.labelling != "" {
		out = append(out, truncate("  "+th.Fg(theme.Muted, "Label (empty to remove):"), width))
		for _, l := range t.labelEdit.View(max(width-2, 2), 3, true) {
			out = append(out, "  "+l)
		}
		out = append(out, truncate("  "+m.r.KeyHint("enter", "save")+"  "+m.r.KeyHint("esc", "cancel"), width))
		return append(out, rule)
	}
	out = append(out, truncate(th.Fg(theme.Muted, "  ↑/↓ move · ←/→ page · ctrl/alt+←/→ fold/branch · shift+l label · "+
		"ctrl+d/t/u/l/a filters (ctrl+o cycle) · shift+t label time · type to search"), width))
	search := "  " + th.Fg(theme.Muted, "Search: ") + th.Fg(theme.Accent, string(t.query)) + "\x1b[7m \x1b[27m"
	out = append(out, truncate(search, width))
	visible := t.visibleRows(rows)
	status := func(n, total int) string {
		s := fmt.Sprintf("  (%d/%d)%s", n, total, t.mode.label())
		if t.labelTimes {
			s += " [+label time]"
		}
		return truncate(th.Fg(theme.Muted, s), width)
	}
	if len(t.shown) == 0 {
		out = append(out, truncate(th.Fg(theme.Muted, "  No entries found"), width), status(0, 0))
		return append(out, rule)
	}
	start := max(0, min(t.cursor-visible/2, len(t.shown)-visible))
	end := min(start+visible, len(t.shown))
	for i := start; i < end; i++ {
		out = append(out, t.rowLine(m, t.rows[t.shown[i]], i == t.cursor, width))
	}
	out = append(out, status(t.cursor+1, len(t.shown)))
	return append(out, rule)
}

func (t *treeSelector) rowLine(m *model, r treeRow, selected bool, width int) string {
	th := m.r.Theme()
	cursor := "  "
	if selected {
		cursor = th.Fg(theme.Accent, "› ")
	}
	id := r.entry.ID
	indent := t.displayIndent(r.indent)
	connPos := -1
	if r.connector && !r.virtual {
		connPos = indent - 1
	}
	var prefix strings.Builder
	for level := 0; level < indent; level++ {
		g := -1
		for gi, gg := range r.gutters {
			if gg.pos == level {
				g = gi
			}
		}
		switch {
		case g >= 0:
			if r.gutters[g].show {
				prefix.WriteString("│  ")
			} else {
				prefix.WriteString("   ")
			}
		case level == connPos:
			corner, mid := "├", "─"
			if r.last {
				corner = "└"
			}
			if t.folded[id] {
				mid = "⊞"
			} else if t.foldable(id) {
				mid = "⊟"
			}
			prefix.WriteString(corner + mid + " ")
		default:
			prefix.WriteString("   ")
		}
	}
	line := cursor + th.Fg(theme.Dim, prefix.String())
	if t.folded[id] && connPos < 0 {
		line += th.Fg(theme.Accent, "⊞ ")
	}
	if t.active[id] {
		line += th.Fg(theme.Accent, "• ")
	}
	if r.label != "" {
		line += th.Fg(theme.Warning, "["+r.label+"] ")
		if t.labelTimes && r.labelTime != "" {
			line += th.Fg(theme.Muted, formatLabelTime(r.labelTime, time.Now())+" ")
		}
	}
	text := t.styledText(m, r.entry)
	if selected {
		text = th.Bold(text)
	}
	suffix := ""
	if id == t.activeRow {
		suffix = th.Fg(theme.Accent, " ← active")
	}
	// The text gives way to the active mark: it must stay visible on a long line.
	line = truncate(line+text, max(width-renderWidth(suffix), 0)) + suffix
	if selected {
		line = render.FillBg(line, width, th.BgSeq(theme.SelectedBg))
	}
	return line
}

// formatLabelTime is pi's label time: "15:04" today, "1/2 15:04" this year, "25/1/2 15:04" before.
func formatLabelTime(ts string, now time.Time) string {
	tm, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	tm = tm.In(now.Location())
	clock := tm.Format("15:04")
	switch {
	case tm.Year() == now.Year() && tm.YearDay() == now.YearDay():
		return clock
	case tm.Year() == now.Year():
		return fmt.Sprintf("%d/%d %s", int(tm.Month()), tm.Day(), clock)
	}
	return fmt.Sprintf("%02d/%d/%d %s", tm.Year()%100, int(tm.Month()), tm.Day(), clock)
}

// searchText is what the search matches, as pi: the label, the role or kind, and the text.
func (t *treeSelector) searchText(r treeRow) string {
	e := r.entry
	parts := []string{}
	if r.label != "" {
		parts = append(parts, r.label)
	}
	switch e.Type {
	case session.TypeMessage:
		parts = append(parts, e.Role)
		if msg, err := e.Message(); err == nil {
			switch msg := msg.(type) {
			case *provider.UserMessage:
				parts = append(parts, firstText(msg.Content))
			case *provider.AssistantMessage:
				parts = append(parts, firstText(msg.Content))
			case *provider.ToolResultMessage:
				parts = append(parts, firstText(msg.Content))
			case *provider.BashExecutionMessage:
				parts = append(parts, msg.Command)
			}
		}
	case session.TypeCustomMessage:
		parts = append(parts, e.CustomType, firstText(e.Content))
	case session.TypeCompaction:
		parts = append(parts, "compaction")
	case session.TypeBranchSummary:
		parts = append(parts, "branch summary", e.Summary)
	case session.TypeSessionInfo:
		parts = append(parts, "title", e.Name)
	case session.TypeModelChange:
		parts = append(parts, "model", e.ModelID)
	case session.TypeThinkingLevelChange:
		parts = append(parts, "thinking", e.ThinkingLevel)
	case session.TypeCustom:
		parts = append(parts, "custom", e.CustomType)
	case session.TypeLabel:
		parts = append(parts, "label", e.Label)
	}
	return strings.Join(parts, " ")
}

// firstText is the text of content blocks, cut at 200 characters as pi's tree does.
func firstText(content []provider.Content) string {
	s := provider.TextOf(content, "")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200])
	}
	return s
}

// styledText is how pi's tree shows an entry: "user: ...", "assistant: ...", a tool call, a summary.
func (t *treeSelector) styledText(m *model, e *session.Entry) string {
	th := m.r.Theme()
	norm := func(s string) string { return oneLine(s) }
	switch e.Type {
	case session.TypeMessage:
		msg, err := e.Message()
		if err != nil {
			return th.Fg(theme.Error, "[unreadable message]")
		}
		switch msg := msg.(type) {
		case *provider.UserMessage:
			return th.Fg(theme.Accent, "user: ") + norm(firstText(msg.Content))
		case *provider.AssistantMessage:
			head := th.Fg(theme.Success, "assistant: ")
			switch text := norm(firstText(msg.Content)); {
			case text != "":
				return head + text
			case msg.StopReason == provider.StopReasonAborted:
				return head + th.Fg(theme.Muted, "(aborted)")
			case msg.ErrorMessage != "":
				em := []rune(norm(msg.ErrorMessage))
				return head + th.Fg(theme.Error, string(em[:min(len(em), 80)]))
			default:
				return head + th.Fg(theme.Muted, "(no content)")
			}
		case *provider.ToolResultMessage:
			if c, ok := t.toolCall[msg.ToolCallID]; ok {
				return th.Fg(theme.Muted, formatToolCall(c.Name, c.Arguments))
			}
			name := msg.ToolName
			if name == "" {
				name = "tool"
			}
			return th.Fg(theme.Muted, "["+name+"]")
		case *provider.BashExecutionMessage:
			return th.Fg(theme.Dim, "[bash]: "+norm(msg.Command))
		default:
			return th.Fg(theme.Dim, "[message]")
		}
	case session.TypeCustomMessage:
		return th.Fg(theme.CustomMessageLabel, "["+e.CustomType+"]: ") + norm(provider.TextOf(e.Content, ""))
	case session.TypeCompaction:
		return th.Fg(theme.BorderAccent, fmt.Sprintf("[compaction: %dk tokens]", int(math.Round(float64(e.TokensBefore)/1000))))
	case session.TypeBranchSummary:
		return th.Fg(theme.Warning, "[branch summary]: ") + norm(e.Summary)
	case session.TypeModelChange:
		return th.Fg(theme.Dim, "[model: "+e.ModelID+"]")
	case session.TypeThinkingLevelChange:
		return th.Fg(theme.Dim, "[thinking: "+e.ThinkingLevel+"]")
	case session.TypeCustom:
		return th.Fg(theme.Dim, "[custom: "+e.CustomType+"]")
	case session.TypeLabel:
		label := e.Label
		if label == "" {
			label = "(cleared)"
		}
		return th.Fg(theme.Dim, "[label: "+label+"]")
	case session.TypeSessionInfo:
		if e.Name == "" {
			return th.Fg(theme.Dim, "[title: ") + th.Italic(th.Fg(theme.Dim, "empty")) + th.Fg(theme.Dim, "]")
		}
		return th.Fg(theme.Dim, "[title: "+e.Name+"]")
	}
	return th.Fg(theme.Dim, "["+e.Type+"]")
}

// formatToolCall is pi's one-line summary of a tool call in the tree: "[read: path:1-20]",
// "[bash: command]", "[grep: /pattern/ in path]", a custom tool's JSON arguments cut short.
func formatToolCall(name string, raw json.RawMessage) string {
	var args map[string]any
	_ = json.Unmarshal(raw, &args)
	str := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := args[k]; ok && v != nil {
				if s, ok := v.(string); ok {
					if s != "" {
						return s
					}
					continue
				}
				return fmt.Sprint(v)
			}
		}
		return ""
	}
	dir := func() string {
		if p := str("path"); p != "" {
			return shortenHome(p)
		}
		return "."
	}
	switch name {
	case "read":
		p := shortenHome(str("path", "file_path"))
		off, hasOff := args["offset"].(float64)
		lim, hasLim := args["limit"].(float64)
		if hasOff || hasLim {
			start := 1
			if hasOff {
				start = int(off)
			}
			p += fmt.Sprintf(":%d", start)
			if hasLim {
				p += fmt.Sprintf("-%d", start+int(lim)-1)
			}
		}
		return "[read: " + p + "]"
	case "write", "edit":
		return "[" + name + ": " + shortenHome(str("path", "file_path")) + "]"
	case "bash":
		cmd := strings.TrimSpace(strings.NewReplacer("\n", " ", "\t", " ").Replace(str("command")))
		r := []rune(cmd)
		if len(r) > 50 {
			return "[bash: " + string(r[:50]) + "...]"
		}
		return "[bash: " + cmd + "]"
	case "grep":
		return "[grep: /" + str("pattern") + "/ in " + dir() + "]"
	case "find":
		return "[find: " + str("pattern") + " in " + dir() + "]"
	case "ls":
		return "[ls: " + dir() + "]"
	}
	s := strings.TrimSpace(string(raw))
	if s == "" {
		s = "{}"
	}
	r := []rune(oneLine(s))
	if len(r) > 40 {
		return "[" + name + ": " + string(r[:40]) + "...]"
	}
	return "[" + name + ": " + string(r) + "]"
}
