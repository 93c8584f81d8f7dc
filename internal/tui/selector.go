package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// selector is a component shown in place of the editor (pi's showSelector): it takes every key until
// it closes itself (m.sel = nil).
type selector interface {
	key(m *model, k tea.KeyMsg) tea.Cmd
	view(m *model, width, rows int) []string
	resize(width, height int)
}

// listPicker is a titled list with a search line: typing filters it (fuzzy), Up/Down move, Enter
// chooses, Escape cancels.
type listPicker struct {
	title  string
	hint   string // dim line under the list
	items  []pickItem
	shown  []int // indexes into items after filtering
	query  []rune
	cursor int
	scroll int
	// filterText is what the query matches (nil: label + detail).
	onPick   func(m *model, it pickItem) tea.Cmd
	onCancel func(m *model) tea.Cmd
	// onKey handles extra keys first (Tab to change scope, ...); true when handled.
	onKey func(m *model, p *listPicker, name string) (tea.Cmd, bool)
	empty string // shown when nothing matches
}

type pickItem struct {
	label  string
	detail string // dimmed after the label
	right  string // right-aligned, dimmed
	search string // the text the query matches
	value  any
	mark   bool // the current choice (✓)
}

func newListPicker(title string, items []pickItem, onPick func(*model, pickItem) tea.Cmd) *listPicker {
	p := &listPicker{title: title, items: items, onPick: onPick, empty: "No matches"}
	p.filter()
	return p
}

func (p *listPicker) setItems(items []pickItem) {
	p.items = items
	p.filter()
}

// filter recomputes the shown items from the query.
func (p *listPicker) filter() {
	idx := make([]int, len(p.items))
	for i := range idx {
		idx[i] = i
	}
	p.shown = fuzzyFilter(idx, string(p.query), func(i int) string {
		if p.items[i].search != "" {
			return p.items[i].search
		}
		return p.items[i].label + " " + p.items[i].detail
	})
	p.cursor, p.scroll = 0, 0
	for i, ix := range p.shown {
		if p.items[ix].mark && len(p.query) == 0 {
			p.cursor = i
		}
	}
}

// selectValue moves the cursor to the item whose value is v.
func (p *listPicker) selectValue(match func(any) bool) {
	for i, ix := range p.shown {
		if match(p.items[ix].value) {
			p.cursor = i
			return
		}
	}
}

func (p *listPicker) resize(int, int) {}

func (p *listPicker) key(m *model, k tea.KeyMsg) tea.Cmd {
	name := editor.KeyName(k)
	if p.onKey != nil {
		if cmd, ok := p.onKey(m, p, name); ok {
			return cmd
		}
	}
	switch name {
	case "esc", "ctrl+c":
		m.sel = nil
		if p.onCancel != nil {
			return p.onCancel(m)
		}
	case "enter":
		if len(p.shown) == 0 {
			return nil
		}
		m.sel = nil
		return p.onPick(m, p.items[p.shown[p.cursor]])
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
	case "backspace", "ctrl+h":
		if len(p.query) > 0 {
			p.query = p.query[:len(p.query)-1]
			p.filter()
		}
	case "ctrl+u":
		p.query = nil
		p.filter()
	default:
		if k.Type == tea.KeyRunes && !k.Alt || k.Type == tea.KeySpace {
			r := k.Runes
			if k.Type == tea.KeySpace {
				r = []rune{' '}
			}
			p.query = append(p.query, r...)
			p.filter()
		}
	}
	return nil
}

// view draws the picker between two rules: title, search line, the visible rows, a hint.
func (p *listPicker) view(m *model, width, rows int) []string {
	th := m.r.Theme()
	rule := th.Fg(theme.Border, strings.Repeat("─", max(width, 1)))
	out := []string{rule, truncate(" "+th.Style(theme.Accent, true, false, p.title), width)}
	out = append(out, truncate(" "+th.Fg(theme.Muted, "Search: ")+string(p.query)+"\x1b[7m \x1b[27m", width))
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
		out = append(out, p.row(m, it, i == p.cursor, width))
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

func (p *listPicker) row(m *model, it pickItem, selected bool, width int) string {
	th := m.r.Theme()
	prefix := "   "
	label := it.label
	if selected {
		prefix = th.Fg(theme.Accent, " → ")
		label = th.Fg(theme.Accent, label)
	}
	if it.mark {
		label += th.Fg(theme.Success, " ✓")
	}
	line := prefix + label
	if it.detail != "" {
		line += " " + th.Fg(theme.Muted, it.detail)
	}
	if it.right == "" {
		return truncate(line, width)
	}
	right := th.Fg(theme.Dim, it.right)
	rw := renderWidth(right)
	avail := width - rw - 1
	line = truncate(line, max(avail, 0))
	gap := width - renderWidth(line) - rw
	if gap < 1 {
		return truncate(line, width)
	}
	return line + strings.Repeat(" ", gap) + right
}
