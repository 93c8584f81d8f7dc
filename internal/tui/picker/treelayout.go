package picker

import (
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// treeFilter is the /tree view's filter (pi's filter modes).
type treeFilter int

const (
	filterDefault     treeFilter = iota // bookkeeping entries hidden
	filterNoTools                       // default minus tool results
	filterUserOnly                      // user messages only
	filterLabeledOnly                   // labelled entries only
	filterAll                           // everything
)

// treeFilterCount is the number of filters Ctrl+O cycles through.
const treeFilterCount = 5

// label is the filter's mark in the position line ("" for the default).
func (f treeFilter) label() string {
	switch f {
	case filterNoTools:
		return " [no-tools]"
	case filterUserOnly:
		return " [user]"
	case filterLabeledOnly:
		return " [labeled]"
	case filterAll:
		return " [all]"
	}
	return ""
}

// treeRow is one entry of the session tree in display order, with its place in the tree as shown
// (recomputed for the visible entries every time the filter, the search or the folds change).
type treeRow struct {
	entry     *session.Entry
	label     string
	labelTime string
	search    string

	indent    int
	connector bool
	last      bool
	gutters   []gutter
	virtual   bool // a root shown as a child of an invisible root (several roots)
}

type gutter struct {
	pos  int
	show bool
}

// flatten lists the tree depth first, the branch holding the active leaf first at every fork.
func (t *Tree) flatten(roots []*session.TreeNode) {
	contains := map[*session.TreeNode]bool{}
	var mark func(n *session.TreeNode) bool
	mark = func(n *session.TreeNode) bool {
		has := n.Entry.ID == t.leaf
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
	stack := make([]*session.TreeNode, 0, len(roots))
	ordered := order(roots)
	for i := len(ordered) - 1; i >= 0; i-- {
		stack = append(stack, ordered[i])
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		e := n.Entry
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
		t.rows = append(t.rows, treeRow{entry: e, label: n.Label, labelTime: n.LabelTimestamp})
		t.index[e.ID] = len(t.rows) - 1
		children := order(n.Children)
		for i := len(children) - 1; i >= 0; i-- {
			stack = append(stack, children[i])
		}
	}
	for i := range t.rows {
		t.rows[i].search = t.searchText(t.rows[i])
	}
}

// passes applies pi's rules and the filter mode to one row.
func (t *Tree) passes(r treeRow) bool {
	e := r.entry
	if e.Type == session.TypeUsage {
		return false // billing records, never shown (pi 1.6)
	}
	if e.Type == session.TypeMessage && e.Role == provider.RoleAssistant && e.ID != t.leaf {
		// Tool-call-only steps are hidden unless they ended in an error or an abort.
		if msg, err := e.Message(); err == nil {
			if a, ok := msg.(*provider.AssistantMessage); ok && strings.TrimSpace(provider.TextOf(a.Content, "")) == "" &&
				(a.StopReason == provider.StopReasonStop || a.StopReason == provider.StopReasonToolUse) {
				return false
			}
		}
	}
	bookkeeping := false
	switch e.Type {
	case session.TypeLabel, session.TypeContextEdit, session.TypeCustom, session.TypeModelChange, session.TypeThinkingLevelChange,
		session.TypeSessionInfo:
		bookkeeping = true
	}
	switch t.mode {
	case filterUserOnly:
		return e.Type == session.TypeMessage && e.Role == provider.RoleUser
	case filterNoTools:
		return !bookkeeping && !(e.Type == session.TypeMessage && e.Role == provider.RoleToolResult)
	case filterLabeledOnly:
		return r.label != ""
	case filterAll:
		return true
	}
	return !bookkeeping
}

// filter recomputes the visible rows: filter mode, search tokens, folded branches; then the tree
// lines for what is visible. The cursor stays on the same entry, or moves to its nearest visible
// ancestor.
func (t *Tree) filter() {
	if len(t.shown) > 0 && t.cursor < len(t.shown) {
		t.selected = t.rows[t.shown[t.cursor]].entry.ID
	}
	tokens := strings.Fields(strings.ToLower(t.query.Value()))
	t.shown = t.shown[:0]
	for i, r := range t.rows {
		if !t.passes(r) {
			continue
		}
		ok := true
		text := strings.ToLower(r.search)
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
	if len(t.folded) > 0 {
		// Everything under a folded entry goes, whatever the filter shows.
		hidden := map[string]bool{}
		for _, r := range t.rows { // depth-first order: parents before children
			if p := r.entry.ParentID; p != "" && (t.folded[p] || hidden[p]) {
				hidden[r.entry.ID] = true
			}
		}
		kept := t.shown[:0]
		for _, i := range t.shown {
			if !hidden[t.rows[i].entry.ID] {
				kept = append(kept, i)
			}
		}
		t.shown = kept
	}
	t.layout()
	t.cursor = t.nearestVisible(t.selected)
	t.activeRow = ""
	if p := t.nearestVisible(t.leaf); p < len(t.shown) && t.active[t.rows[t.shown[p]].entry.ID] {
		t.activeRow = t.rows[t.shown[p]].entry.ID
	}
}

// visibleParentOf is the nearest ancestor of id that is shown ("" when none).
func (t *Tree) visibleParentOf(id string, visible map[string]bool) string {
	seen := map[string]bool{}
	for {
		i, ok := t.index[id]
		if !ok || seen[id] {
			return ""
		}
		seen[id] = true
		p := t.rows[i].entry.ParentID
		if p == "" || p == id {
			return ""
		}
		if visible[p] {
			return p
		}
		id = p
	}
}

// layout gives the visible rows their indent, connectors and gutters as pi draws them: a chain of
// single children stays at one indent, the children of a fork are indented with connectors, and
// hidden entries are skipped (a child attaches to its nearest visible ancestor).
func (t *Tree) layout() {
	visible := make(map[string]bool, len(t.shown))
	for _, i := range t.shown {
		visible[t.rows[i].entry.ID] = true
	}
	t.vParent = make(map[string]string, len(t.shown))
	t.vChildren = map[string][]string{}
	for _, i := range t.shown {
		id := t.rows[i].entry.ID
		p := t.visibleParentOf(id, visible)
		t.vParent[id] = p
		t.vChildren[p] = append(t.vChildren[p], id)
	}
	roots := t.vChildren[""]
	t.multiple = len(roots) > 1
	type frame struct {
		id                                 string
		indent                             int
		justBranched, connector, last, vrt bool
		gutters                            []gutter
	}
	var stack []frame
	for i := len(roots) - 1; i >= 0; i-- {
		ind := 0
		if t.multiple {
			ind = 1
		}
		stack = append(stack, frame{id: roots[i], indent: ind, justBranched: t.multiple, connector: t.multiple,
			last: i == len(roots)-1, vrt: t.multiple})
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		r := &t.rows[t.index[f.id]]
		r.indent, r.connector, r.last, r.gutters, r.virtual = f.indent, f.connector, f.last, f.gutters, f.vrt
		children := t.vChildren[f.id]
		multi := len(children) > 1
		childIndent := f.indent
		if multi || f.justBranched && f.indent > 0 {
			childIndent = f.indent + 1
		}
		gutters := f.gutters
		if f.connector && !f.vrt {
			pos := max(t.displayIndent(f.indent)-1, 0)
			gutters = append(append([]gutter(nil), f.gutters...), gutter{pos: pos, show: !f.last})
		}
		for i := len(children) - 1; i >= 0; i-- {
			stack = append(stack, frame{id: children[i], indent: childIndent, justBranched: multi, connector: multi,
				last: i == len(children)-1, gutters: gutters})
		}
	}
}

// nearestVisible is the position of id among the shown rows, else of its nearest shown ancestor,
// else the cursor clamped.
func (t *Tree) nearestVisible(id string) int {
	pos := make(map[string]int, len(t.shown))
	for p, i := range t.shown {
		pos[t.rows[i].entry.ID] = p
	}
	seen := map[string]bool{}
	for id != "" && !seen[id] {
		seen[id] = true
		if p, ok := pos[id]; ok {
			return p
		}
		i, ok := t.index[id]
		if !ok {
			break
		}
		id = t.rows[i].entry.ParentID
	}
	return min(t.cursor, max(len(t.shown)-1, 0))
}

// foldable reports whether an entry can be folded: it has visible children and starts a segment (it
// is a root, or its parent forks).
func (t *Tree) foldable(id string) bool {
	if len(t.vChildren[id]) == 0 {
		return false
	}
	p, ok := t.vParent[id]
	if !ok || p == "" {
		return true
	}
	return len(t.vChildren[p]) > 1
}

// segmentStart is where Ctrl/Alt+←/→ jumps when there is nothing to fold or unfold: up, the start
// of the current branch segment (or of the one above); down, the first child of the next fork.
func (t *Tree) segmentStart(up bool) int {
	if len(t.shown) == 0 {
		return 0
	}
	pos := make(map[string]int, len(t.shown))
	for p, i := range t.shown {
		pos[t.rows[i].entry.ID] = p
	}
	id := t.rows[t.shown[t.cursor]].entry.ID
	seen := map[string]bool{}
	if !up {
		for !seen[id] {
			seen[id] = true
			children := t.vChildren[id]
			switch {
			case len(children) == 0:
				return pos[id]
			case len(children) > 1:
				return pos[children[0]]
			}
			id = children[0]
		}
		return t.cursor
	}
	for !seen[id] {
		seen[id] = true
		p := t.vParent[id]
		if p == "" {
			return pos[id]
		}
		if len(t.vChildren[p]) > 1 && pos[id] < t.cursor {
			return pos[id]
		}
		id = p
	}
	return t.cursor
}
