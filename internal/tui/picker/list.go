package picker

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// List is a titled list with a search line (pi's showSelector): typing filters it (fuzzy), Up/Down
// move, Enter chooses (the message of the item's choose function), Escape cancels (Cancelled, or
// the message set with SetCancel).
type List struct {
	r      *render.Renderer
	title  string
	hint   string // dim line under the list
	items  []Item
	shown  []int // indexes into items after filtering
	query  filterField
	cursor int
	scroll int
	empty  string // shown when nothing matches
	choose func(Item) tea.Msg
	cancel tea.Msg
}

// Item is one entry of a List.
type Item struct {
	Label  string
	Detail string // dimmed after the label
	Search string // the text the query matches ("": label and detail)
	Value  any
	Mark   bool // the current choice (✓), where the cursor starts
}

// NewList returns a list of items; choose gives the message of a choice.
func NewList(r *render.Renderer, title string, items []Item, choose func(Item) tea.Msg) *List {
	p := &List{r: r, title: title, items: items, choose: choose, cancel: Cancelled{}, empty: "No matches", query: newFilterField()}
	p.filter()
	return p
}

// SetHint sets the dim line under the list.
func (p *List) SetHint(hint string) { p.hint = hint }

// SetEmpty sets what is shown when nothing matches.
func (p *List) SetEmpty(text string) { p.empty = text }

// SetCancel sets the message of Escape (Cancelled by default).
func (p *List) SetCancel(msg tea.Msg) { p.cancel = msg }

// SetQuery types query into the search line.
func (p *List) SetQuery(query string) {
	p.query.Set(query)
	p.filter()
}

// SetCursor puts the cursor on the i-th shown item.
func (p *List) SetCursor(i int) { p.cursor = i }

// filter recomputes the shown items from the query.
func (p *List) filter() {
	idx := make([]int, len(p.items))
	for i := range idx {
		idx[i] = i
	}
	p.shown = FuzzyFilter(idx, p.query.Value(), func(i int) string {
		if p.items[i].Search != "" {
			return p.items[i].Search
		}
		return p.items[i].Label + " " + p.items[i].Detail
	})
	p.cursor, p.scroll = 0, 0
	for i, ix := range p.shown {
		if p.items[ix].Mark && p.query.Value() == "" {
			p.cursor = i
		}
	}
}

// Update applies a key.
func (p *List) Update(msg tea.Msg) (Picker, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	switch editor.KeyName(k) {
	case "esc", "ctrl+c":
		return p, emit(p.cancel)
	case "enter":
		if len(p.shown) == 0 {
			return p, nil
		}
		return p, emit(p.choose(p.items[p.shown[p.cursor]]))
	case "up", "ctrl+p":
		if len(p.shown) > 0 {
			p.cursor = (p.cursor - 1 + len(p.shown)) % len(p.shown)
		}
	case "down", "ctrl+n":
		if len(p.shown) > 0 {
			p.cursor = (p.cursor + 1) % len(p.shown)
		}
	case "pgup":
		p.cursor = max(p.cursor-10, 0)
	case "pgdown":
		p.cursor = max(min(p.cursor+10, len(p.shown)-1), 0)
	default:
		if p.query.Key(k) {
			p.filter()
		}
	}
	return p, nil
}

// View draws the list between two rules: title, search line, the visible rows, a hint.
func (p *List) View(width, rows int) []string {
	th := p.r.Theme()
	rule := th.Fg(theme.Border, strings.Repeat("─", max(width, 1)))
	out := []string{rule, truncate(" "+th.Style(theme.Accent, true, false, p.title), width)}
	out = append(out, truncate(" "+th.Fg(theme.Muted, "Search: ")+p.query.View(th, th.PlainStyle()), width))
	rows = max(rows-5, 1)
	if p.cursor < p.scroll {
		p.scroll = p.cursor
	}
	if p.cursor >= p.scroll+rows {
		p.scroll = p.cursor - rows + 1
	}
	if len(p.shown) == 0 {
		out = append(out, truncate("   "+th.Fg(theme.Muted, p.empty), width))
	}
	end := min(len(p.shown), p.scroll+rows)
	for i := p.scroll; i < end; i++ {
		it := p.items[p.shown[i]]
		out = append(out, p.row(it, i == p.cursor, width))
	}
	footer := ""
	if len(p.shown) > rows {
		footer = "(" + itoa(p.cursor+1) + "/" + itoa(len(p.shown)) + ")  "
	}
	if p.hint != "" || footer != "" {
		out = append(out, truncate(" "+th.Fg(theme.Muted, footer+p.hint), width))
	}
	return append(out, rule)
}

func (p *List) row(it Item, selected bool, width int) string {
	th := p.r.Theme()
	prefix := "   "
	label := it.Label
	if selected {
		prefix = th.Fg(theme.Accent, " → ")
		label = th.Fg(theme.Accent, label)
	}
	if it.Mark {
		label += th.Fg(theme.Success, " ✓")
	}
	line := prefix + label
	if it.Detail != "" {
		line += " " + th.Fg(theme.Muted, it.Detail)
	}
	return truncate(line, width)
}
