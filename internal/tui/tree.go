package tui

import (
	"fmt"
	"math"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// treeRow is one entry of the flattened session tree.
type treeRow struct {
	entry     *session.Entry
	label     string
	indent    int
	connector bool
	last      bool
	gutters   []gutter
	virtual   bool // a root shown as a child of an invisible root (several roots)
	search    string
}

type gutter struct {
	pos  int
	show bool
}

// treeSelector is /tree: the session's entries as a tree (branches indented with connectors, the
// active path marked), searchable; Enter moves the conversation to the chosen entry.
type treeSelector struct {
	rows     []treeRow
	shown    []int
	query    []rune
	cursor   int
	leaf     string
	active   map[string]bool
	multiple bool
	toolCall map[string]provider.Content
}

// openTreeSelector shows the tree with initial (an entry id) selected, or the current leaf.
func (m *model) openTreeSelector(initial string) {
	store := m.sess.Store()
	roots := store.Tree()
	if len(roots) == 0 {
		m.addStatus("No entries in session")
		return
	}
	t := &treeSelector{leaf: store.LeafID(), active: map[string]bool{}, toolCall: map[string]provider.Content{}}
	for _, e := range store.Path("") {
		t.active[e.ID] = true
	}
	t.flatten(roots)
	t.filter()
	target := initial
	if target == "" {
		target = t.leaf
	}
	for i, ix := range t.shown {
		if t.rows[ix].entry.ID == target {
			t.cursor = i
		}
	}
	m.sel = t
}

// flatten lays the tree out as pi does: a chain of single children stays at one indent, the
// children of a branching entry are indented with connectors, the branch holding the active leaf
// first.
func (t *treeSelector) flatten(roots []*session.TreeNode) {
	contains := map[*session.TreeNode]bool{}
	var mark func(n *session.TreeNode) bool
	mark = func(n *session.TreeNode) bool {
		has := t.active[n.Entry.ID] && n.Entry.ID == t.leaf
		for _, c := range n.Children {
			if mark(c) {
				has = true
			}
		}
		contains[n] = has
		return has
	}
	for _, r := range roots {
		mark(r)
	}
	order := func(ns []*session.TreeNode) []*session.TreeNode {
		var first, rest []*session.TreeNode
		for _, n := range ns {
			if contains[n] {
				first = append(first, n)
			} else {
				rest = append(rest, n)
			}
		}
		return append(first, rest...)
	}
	t.multiple = len(roots) > 1
	type frame struct {
		node                                *session.TreeNode
		indent                              int
		justBranched, connector, last, virt bool
		gutters                             []gutter
	}
	var stack []frame
	ordered := order(roots)
	for i := len(ordered) - 1; i >= 0; i-- {
		ind := 0
		if t.multiple {
			ind = 1
		}
		stack = append(stack, frame{node: ordered[i], indent: ind, justBranched: t.multiple, connector: t.multiple,
			last: i == len(ordered)-1, virt: t.multiple})
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		e := f.node.Entry
		if e.Type == session.TypeMessage && e.Role == provider.RoleAssistant {
			if msg, err := e.Message(); err == nil {
				if a, ok := msg.(*provider.AssistantMessage); ok {
					for _, c := range a.Content {
						if c.Type == provider.ContentToolCall {
							t.toolCall[c.ID] = c
						}
					}
				}
			}
		}
		t.rows = append(t.rows, treeRow{entry: e, label: f.node.Label, indent: f.indent, connector: f.connector,
			last: f.last, gutters: f.gutters, virtual: f.virt})
		children := order(f.node.Children)
		multi := len(children) > 1
		childIndent := f.indent
		if multi || f.justBranched && f.indent > 0 {
			childIndent = f.indent + 1
		}
		gutters := f.gutters
		if f.connector && !f.virt {
			pos := max(t.displayIndent(f.indent)-1, 0)
			gutters = append(append([]gutter(nil), f.gutters...), gutter{pos: pos, show: !f.last})
		}
		for i := len(children) - 1; i >= 0; i-- {
			stack = append(stack, frame{node: children[i], indent: childIndent, justBranched: multi, connector: multi,
				last: i == len(children)-1, gutters: gutters})
		}
	}
	for i := range t.rows {
		t.rows[i].search = t.rows[i].label + " " + t.plainText(t.rows[i].entry)
	}
}

func (t *treeSelector) displayIndent(indent int) int {
	if t.multiple {
		return max(indent-1, 0)
	}
	return indent
}

// filter applies pi's default filter (bookkeeping entries and tool-call-only assistant messages
// hidden) and the search tokens.
func (t *treeSelector) filter() {
	tokens := strings.Fields(strings.ToLower(string(t.query)))
	t.shown = t.shown[:0]
	for i, r := range t.rows {
		e := r.entry
		switch e.Type {
		case session.TypeLabel, session.TypeCustom, session.TypeModelChange, session.TypeThinkingLevelChange,
			session.TypeSessionInfo:
			continue
		}
		if e.Type == session.TypeMessage && e.Role == provider.RoleAssistant && e.ID != t.leaf {
			if msg, err := e.Message(); err == nil {
				if a, ok := msg.(*provider.AssistantMessage); ok && provider.TextOf(a.Content, "") == "" &&
					(a.StopReason == provider.StopReasonStop || a.StopReason == provider.StopReasonToolUse) {
					continue
				}
			}
		}
		text := strings.ToLower(r.search)
		ok := true
		for _, tok := range tokens {
			if !strings.Contains(text, tok) {
				ok = false
				break
			}
		}
		if ok {
			t.shown = append(t.shown, i)
		}
	}
	t.cursor = min(t.cursor, max(len(t.shown)-1, 0))
}

func (t *treeSelector) resize(int, int) {}

func (t *treeSelector) key(m *model, k tea.KeyMsg) tea.Cmd {
	switch name := keyName(k); name {
	case "esc", "ctrl+c":
		if len(t.query) > 0 && name == "esc" {
			t.query = nil
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
		t.cursor = max(t.cursor-10, 0)
	case "right", "pgdown":
		t.cursor = max(min(t.cursor+10, len(t.shown)-1), 0)
	case "backspace":
		if len(t.query) > 0 {
			t.query = t.query[:len(t.query)-1]
			t.filter()
		}
	case "enter":
		if len(t.shown) == 0 {
			return nil
		}
		m.sel = nil
		return m.navigateTree(t.rows[t.shown[t.cursor]].entry.ID)
	default:
		if k.Type == tea.KeyRunes && !k.Alt {
			t.query = append(t.query, k.Runes...)
			t.filter()
		} else if k.Type == tea.KeySpace {
			t.query = append(t.query, ' ')
			t.filter()
		}
	}
	return nil
}

func (t *treeSelector) view(m *model, width, rows int) []string {
	th := m.r.Theme()
	rule := th.Fg(theme.Border, strings.Repeat("─", max(width, 1)))
	out := []string{rule, truncate(" "+th.Style(theme.Accent, true, false, "Session Tree"), width)}
	search := " " + th.Fg(theme.Muted, "Search: ") + string(t.query) + "\x1b[7m \x1b[27m"
	out = append(out, truncate(search, width))
	visible := max(rows-5, 1)
	if len(t.shown) == 0 {
		out = append(out, truncate(th.Fg(theme.Muted, "  No entries found"), width))
	}
	start := max(0, min(t.cursor-visible/2, len(t.shown)-visible))
	end := min(start+visible, len(t.shown))
	for i := start; i < end; i++ {
		out = append(out, truncate(t.rowLine(m, t.rows[t.shown[i]], i == t.cursor), width))
	}
	out = append(out, truncate(th.Fg(theme.Muted, fmt.Sprintf("  (%d/%d) · enter go · esc cancel · type to search",
		min(t.cursor+1, len(t.shown)), len(t.shown))), width))
	return append(out, rule)
}

func (t *treeSelector) rowLine(m *model, r treeRow, selected bool) string {
	th := m.r.Theme()
	cursor := "  "
	if selected {
		cursor = th.Fg(theme.Accent, "› ")
	}
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
			if r.last {
				prefix.WriteString("└─ ")
			} else {
				prefix.WriteString("├─ ")
			}
		default:
			prefix.WriteString("   ")
		}
	}
	line := cursor + th.Fg(theme.Dim, prefix.String())
	if t.active[r.entry.ID] {
		line += th.Fg(theme.Accent, "• ")
	}
	if r.label != "" {
		line += th.Fg(theme.Warning, "["+r.label+"] ")
	}
	text := t.styledText(m, r.entry)
	if selected {
		text = th.Bold(text)
	}
	line += text
	if r.entry.ID == t.leaf {
		line += th.Fg(theme.Accent, " ← active")
	}
	return line
}

// plainText is the entry's text for searching.
func (t *treeSelector) plainText(e *session.Entry) string {
	switch e.Type {
	case session.TypeMessage:
		msg, err := e.Message()
		if err != nil {
			return ""
		}
		switch msg := msg.(type) {
		case *provider.UserMessage:
			return "user " + provider.TextOf(msg.Content, "")
		case *provider.AssistantMessage:
			return "assistant " + provider.TextOf(msg.Content, "")
		case *provider.ToolResultMessage:
			return msg.ToolName
		case *provider.BashExecutionMessage:
			return "bash " + msg.Command
		}
	case session.TypeBranchSummary, session.TypeCompaction:
		return e.Summary
	}
	return e.Type
}

// styledText is how pi's tree shows an entry: "user: ...", "assistant: ...", a tool call, a summary.
func (t *treeSelector) styledText(m *model, e *session.Entry) string {
	th := m.r.Theme()
	norm := func(s string) string {
		s = oneLine(s)
		if r := []rune(s); len(r) > 200 {
			s = string(r[:200])
		}
		return s
	}
	switch e.Type {
	case session.TypeMessage:
		msg, err := e.Message()
		if err != nil {
			return th.Fg(theme.Error, "[unreadable message]")
		}
		switch msg := msg.(type) {
		case *provider.UserMessage:
			return th.Fg(theme.Accent, "user: ") + norm(provider.TextOf(msg.Content, ""))
		case *provider.AssistantMessage:
			head := th.Fg(theme.Success, "assistant: ")
			switch text := norm(provider.TextOf(msg.Content, "")); {
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
				return th.Fg(theme.Muted, "["+c.Name+"] "+norm(string(c.Arguments)))
			}
			return th.Fg(theme.Muted, "["+msg.ToolName+"]")
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
	}
	return th.Fg(theme.Dim, "["+e.Type+"]")
}
