package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// mdRenderer lays out a parsed markdown document as pi's Markdown component shows it: headings in
// the heading colour (level 1 underlined, "### " before levels 3 to 6), code blocks between "```"
// rules and indented two columns, quotes behind a "│ " bar in the quote colour, "- " and "1. "
// list markers, tables drawn with box characters, and one empty line between blocks. Prose is
// word-wrapped once to the width, continuation lines behind the hanging indent of their list item.
type mdRenderer struct {
	th   *theme.Theme
	src  []byte
	base mdStyle // the text's own style (thinking: grey and italic)
	// A chunk of a long code block cut by the block splitter misses the rule above (a later chunk)
	// or below (a chunk that is not the last) it: chunks are shown glued into one code block.
	noTopRule, noBottomRule bool
}

// blocks renders the block children of parent at width, separated as pi separates them.
func (r *mdRenderer) blocks(parent ast.Node, width int, base mdStyle) []string {
	var out []string
	var prev ast.Node
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		lines := r.block(c, width, base)
		if len(lines) == 0 {
			continue // an HTML comment: no lines, no gap
		}
		if prev != nil && gapBetween(prev, c) {
			out = append(out, "")
		}
		out = append(out, lines...)
		prev = c
	}
	return out
}

// gapBetween reports whether an empty line separates block next from block prev before it: always
// when the source has one, and otherwise after every block but a list item's text, a list (unless
// a code fence follows: the block splitter cuts there) and a paragraph followed by a list.
func gapBetween(prev, next ast.Node) bool {
	if next.HasBlankPreviousLines() {
		return true
	}
	switch prev.Kind() {
	case ast.KindTextBlock, ast.KindHTMLBlock:
		return false
	case ast.KindList:
		return next.Kind() == ast.KindFencedCodeBlock
	case ast.KindParagraph:
		return next.Kind() != ast.KindList
	}
	return true
}

func (r *mdRenderer) block(n ast.Node, width int, base mdStyle) []string {
	switch n.Kind() {
	case ast.KindParagraph, ast.KindTextBlock:
		w := newInlineWriter(r.th, r.src, base)
		w.children(n)
		return wrapAll(w.lines(), width)
	case ast.KindHeading:
		return r.heading(n.(*ast.Heading), width, base)
	case ast.KindThematicBreak:
		return []string{r.th.Fg(theme.MdHr, strings.Repeat("─", min(width, 80)))}
	case ast.KindFencedCodeBlock, ast.KindCodeBlock:
		return r.code(n, width)
	case ast.KindBlockquote:
		return r.quote(n, width)
	case ast.KindList:
		return r.list(n.(*ast.List), 0, width, base)
	case ast.KindHTMLBlock:
		return r.html(n.(*ast.HTMLBlock), width, base)
	case kindTable:
		return r.table(n.(*mdTable), width, base)
	}
	return r.blocks(n, width, base)
}

func (r *mdRenderer) heading(h *ast.Heading, width int, base mdStyle) []string {
	st := fgStyle(theme.MdHeading, theme.AttrBold)
	if h.Level == 1 {
		st.attr |= theme.AttrUnderline
	}
	w := newInlineWriter(r.th, r.src, st.over(base))
	if h.Level >= 3 {
		w.write(strings.Repeat("#", h.Level) + " ")
	}
	w.children(h)
	return wrapAll(w.lines(), width)
}

// code shows a code block between rules, its lines highlighted when the language is known and
// indented by two columns. A line too long for width is broken between words, its continuation
// rows indented as far as the line itself (wrapCode).
func (r *mdRenderer) code(n ast.Node, width int) []string {
	lang := ""
	if f, ok := n.(*ast.FencedCodeBlock); ok && f.Info != nil {
		lang = string(f.Language(r.src))
	}
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(r.src))
	}
	code := strings.TrimSuffix(b.String(), "\n")
	out := make([]string, 0, lines.Len()+2)
	if !r.noTopRule {
		out = append(out, r.th.Fg(theme.MdCodeBlockBorder, "```"+lang))
	}
	for _, l := range highlightCode(r.th, code, lang) {
		for _, piece := range wrapCode(l, width-len(codeIndent)) {
			out = append(out, codeIndent+piece)
		}
	}
	if !r.noBottomRule {
		out = append(out, r.th.Fg(theme.MdCodeBlockBorder, "```"))
	}
	return out
}

// wrapCode breaks a (highlighted) code line wider than width between words; the rows after the first
// keep the line's own indentation, so wrapped code still reads as nested where it was. A line
// indented too deep for that is continued without it.
func wrapCode(l string, width int) []string {
	if width < 1 || ansi.StringWidth(l) <= width {
		return []string{l}
	}
	plain := ansi.Strip(l)
	lead := len(plain) - len(strings.TrimLeft(plain, " \t"))
	if lead > width/2 {
		lead = 0
	}
	first := wordWrap(l, width)
	if len(first) == 1 {
		return first
	}
	rest := wordWrap(strings.Join(first[1:], " "), width-lead)
	pad := strings.Repeat(" ", lead)
	out := append(make([]string, 0, len(rest)+1), first[0])
	for _, p := range rest {
		out = append(out, pad+p)
	}
	return out
}

// codeIndent is how far code is indented inside its rules.
const codeIndent = "  "

// quote shows a quote's blocks behind a bar, in the quote colour and italic (the text's own style
// does not apply inside a quote). Below three columns there is no room for the bar.
func (r *mdRenderer) quote(n ast.Node, width int) []string {
	st := fgStyle(theme.MdQuote, theme.AttrItalic)
	if width < 3 {
		return r.blocks(n, width, st)
	}
	inner := r.blocks(n, width-2, st)
	for len(inner) > 0 && inner[len(inner)-1] == "" {
		inner = inner[:len(inner)-1]
	}
	bar := r.th.Fg(theme.MdQuoteBorder, "│ ")
	out := make([]string, len(inner))
	for i, l := range inner {
		out[i] = bar + l
	}
	return out
}

// list shows a list as pi does: "- " or "1. " (then "[ ] " or "[x] " for a task), the item's
// blocks behind a hanging indent as wide as that marker, a nested list indented four columns per
// level, and an empty line between the items of a loose list.
func (r *mdRenderer) list(l *ast.List, depth, width int, base mdStyle) []string {
	indent := strings.Repeat(" ", 4*depth)
	var out []string
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "- "
		if l.IsOrdered() {
			marker = itoa(num) + ". "
			num++
		}
		if box := taskBox(item); box != nil {
			if box.checked {
				marker += "[x] "
			} else {
				marker += "[ ] "
			}
		}
		first := indent + r.th.Fg(theme.MdListBullet, marker)
		hang := indent + strings.Repeat(" ", Width(marker))
		itemWidth := max(width-Width(first), 1)
		var lines []string
		var prev ast.Node
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			var cl []string
			nested := c.Kind() == ast.KindList
			if nested {
				cl = r.list(c.(*ast.List), depth+1, width, base)
			} else {
				cl = r.block(c, itemWidth, base)
			}
			if len(cl) == 0 {
				continue
			}
			if prev != nil && gapBetween(prev, c) {
				lines = append(lines, "")
			}
			for _, line := range cl {
				switch {
				case nested || line == "":
				case len(lines) == 0:
					line = first + line
				default:
					line = hang + line
				}
				lines = append(lines, line)
			}
			prev = c
		}
		if len(lines) == 0 {
			lines = []string{first}
		}
		out = append(out, lines...)
		if !l.IsTight && item.NextSibling() != nil {
			out = append(out, "")
		}
	}
	return out
}

// taskBox is the task box that starts a list item, or nil.
func taskBox(item ast.Node) *mdTaskBox {
	if tb := item.FirstChild(); tb != nil {
		if box, ok := tb.FirstChild().(*mdTaskBox); ok {
			return box
		}
	}
	return nil
}

// html shows an HTML block as its text, comments left out.
func (r *mdRenderer) html(n *ast.HTMLBlock, width int, base mdStyle) []string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(r.src))
	}
	if n.HasClosure() {
		b.Write(n.ClosureLine.Value(r.src))
	}
	s := strings.TrimSpace(stripHTMLComments(b.String()))
	if s == "" {
		return nil
	}
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, wordWrap(base.apply(r.th, l), width)...)
	}
	return out
}

// stripHTMLComments removes "<!-- ... -->"; an unclosed comment runs to the end.
func stripHTMLComments(s string) string {
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i+4:], "-->")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+4+j+3:]
	}
}

// wrapAll word-wraps every line to width.
func wrapAll(lines []string, width int) []string {
	out := lines[:0:0]
	for _, l := range lines {
		out = append(out, wordWrap(l, width)...)
	}
	return out
}
