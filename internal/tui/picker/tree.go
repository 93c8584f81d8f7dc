package picker

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Tree is /tree: the session's entries as a tree (forks indented with connectors, the active path
// marked), searchable, filtered (Ctrl+D default, Ctrl+T no tools, Ctrl+U user only, Ctrl+L labelled
// only, Ctrl+A all; Ctrl+O cycles), foldable (Ctrl/Alt+←/→); Shift+L edits an entry's label (asking
// its owner to save it: SetLabel, answered by LabelSaved), Shift+T shows when labels were set; Enter
// chooses the entry to move the conversation to (EntryChosen).
type Tree struct {
	r *render.Renderer

	rows   []treeRow      // every entry, depth first
	index  map[string]int // entry id -> rows index
	shown  []int          // rows visible, in order
	query  filterField
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

	// room is the rows the owner gives the tree (Size): the page keys move by what it shows.
	room int

	// checkpoints marks the entries with file checkpoints (SetCheckpoints).
	checkpoints map[string]string
}

// Messages of the tree: its choice, its request and the answer.
type (
	// EntryChosen: Enter on an entry.
	EntryChosen struct{ ID string }
	// SetLabel asks for an entry's label to be saved ("" removes it); the answer is LabelSaved.
	SetLabel struct{ ID, Label string }
	// LabelSaved answers SetLabel when the label was saved (nothing answers a failure).
	LabelSaved struct{ ID, Label string }
)

// NewTree shows the session tree under roots: leaf is the current leaf, path the entries from the
// root to it (the active branch), selected the entry under the cursor ("": the leaf).
func NewTree(r *render.Renderer, roots []*session.TreeNode, leaf string, path []*session.Entry, selected string) *Tree {
	t := &Tree{r: r, leaf: leaf, active: map[string]bool{}, toolCall: map[string]provider.Content{},
		index: map[string]int{}, folded: map[string]bool{}, query: newFilterField()}
	for _, e := range path {
		t.active[e.ID] = true
	}
	t.flatten(roots)
	t.selected = selected
	if t.selected == "" {
		t.selected = t.leaf
	}
	t.filter()
	return t
}

func (t *Tree) displayIndent(indent int) int {
	if t.multiple {
		return max(indent-1, 0)
	}
	return indent
}

// visibleRows is how many entries the tree shows: pi's half of the terminal, within the rows the
// live region leaves the selector.
func (t *Tree) visibleRows(rows int) int { return max(rows-6, 3) }

func (t *Tree) setMode(mode treeFilter) {
	t.mode = mode
	t.folded = map[string]bool{}
	t.filter()
}

// toggleMode switches to mode, or back to the default when it is on already (pi's filter keys).
func (t *Tree) toggleMode(mode treeFilter) {
	if t.mode == mode {
		mode = filterDefault
	}
	t.setMode(mode)
}

// Update applies a key, a Size or LabelSaved.
func (t *Tree) Update(msg tea.Msg) (Picker, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return t, t.key(msg)
	case Size:
		t.room = msg.Rows
	case LabelSaved:
		t.labelSaved(msg.ID, msg.Label, time.Now())
	}
	return t, nil
}

func (t *Tree) key(k tea.KeyMsg) tea.Cmd {
	name := editor.KeyName(k)
	if t.labelling != "" {
		return t.labelKey(k, name)
	}
	page := t.visibleRows(t.room)
	switch name {
	case "esc", "ctrl+c":
		if t.query.Value() != "" && name == "esc" {
			t.query.Set("")
			t.folded = map[string]bool{}
			t.filter()
			return nil
		}
		return emit(Cancelled{})
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
	case "ctrl+r":
		if id := t.cursorID(); t.checkpointMark(id) != "" {
			return emit(RewindChosen{ID: id})
		}
	case "enter":
		if len(t.shown) == 0 {
			return nil
		}
		return emit(EntryChosen{ID: t.rows[t.shown[t.cursor]].entry.ID})
	default:
		if !t.query.Key(k) {
			return nil
		}
		t.folded = map[string]bool{}
		t.filter()
	}
	return nil
}

func (t *Tree) cursorID() string {
	if t.cursor >= len(t.shown) {
		return ""
	}
	return t.rows[t.shown[t.cursor]].entry.ID
}

// labelKey edits a label: Enter asks for it to be saved (empty removes it), Escape goes back.
func (t *Tree) labelKey(k tea.KeyMsg, name string) tea.Cmd {
	switch name {
	case "esc", "ctrl+c":
		t.labelling, t.labelEdit = "", nil
		return nil
	case "enter":
		id, label := t.labelling, strings.TrimSpace(oneLine(t.labelEdit.Text()))
		t.labelling, t.labelEdit = "", nil
		return emit(SetLabel{ID: id, Label: label})
	}
	if k.Paste {
		t.labelEdit.InsertText(oneLine(string(k.Runes)))
		return nil
	}
	t.labelEdit.Update(k)
	return nil
}

// labelSaved shows an entry's new label, set at now.
func (t *Tree) labelSaved(id, label string, now time.Time) {
	i, ok := t.index[id]
	if !ok {
		return
	}
	r := &t.rows[i]
	r.label, r.labelTime = label, ""
	if label != "" {
		r.labelTime = now.UTC().Format("2006-01-02T15:04:05.000Z")
	}
	r.search = t.searchText(*r)
	t.filter()
}

// View draws the title, the key hints, the search line, the visible entries and the position.
func (t *Tree) View(width, rows int) []string {
	th := t.r.Theme()
	rule := th.Fg(theme.Border, strings.Repeat("─", max(width, 1)))
	out := []string{rule, truncate(" "+th.Style(theme.Accent, true, false, "Session Tree"), width)}
	if t.labelling != "" {
		out = append(out, truncate("  "+th.Fg(theme.Muted, "Label (empty to remove):"), width))
		for _, l := range t.labelEdit.View(max(width-2, 2), 3, true) {
			out = append(out, "  "+l)
		}
		out = append(out, truncate("  "+t.r.KeyHint("enter", "save")+"  "+t.r.KeyHint("esc", "cancel"), width))
		return append(out, rule)
	}
	out = append(out, truncate(th.Fg(theme.Muted, "  ↑/↓ move · "+t.rewindHint()+"←/→ page · ctrl/alt+←/→ fold/branch · shift+l label · "+
		"ctrl+d/t/u/l/a filters (ctrl+o cycle) · shift+t label time · type to search"), width))
	search := "  " + th.Fg(theme.Muted, "Search: ") + t.query.View(th, th.FgStyle(theme.Accent))
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
		out = append(out, t.rowLine(t.rows[t.shown[i]], i == t.cursor, width))
	}
	out = append(out, status(t.cursor+1, len(t.shown)))
	return append(out, rule)
}

func (t *Tree) rowLine(r treeRow, selected bool, width int) string {
	th := t.r.Theme()
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
	if mark := t.checkpointMark(id); mark != "" {
		line += th.Fg(theme.Success, mark+" ")
	}
	text := t.styledText(r.entry)
	if selected {
		text = th.Bold(text)
	}
	suffix := ""
	if id == t.activeRow {
		suffix = th.Fg(theme.Accent, " ← active")
	}
	// The text gives way to the active mark: it must stay visible on a long line.
	line = truncate(line+text, max(width-render.Width(suffix), 0)) + suffix
	if selected {
		line = render.FillBg(line, width, th.BgSeq(theme.SelectedBg))
	}
	return line
}
