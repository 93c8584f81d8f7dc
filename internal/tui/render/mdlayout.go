package render

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	glamouransi "github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	astext "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	gmrenderer "github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Why markdown is laid out here and not by glamour: glamour v1.0.0 wraps a paragraph twice at the
// same width, first with muesli/reflow's word wrapper (which does not count a hyphen and measures
// width with go-runewidth, so a line can come out a cell or more too long) and then the whole
// document with x/ansi's (which splits that line again, leaving a lone word on a line of its own).
// It also turns line breaks in a paragraph into spaces but keeps them in list items.
//
// So glamour renders without wrapping (word wrap 0: no wrapping, no padding), from an AST this file
// prepares: every line of prose starts with an invisible marker. A line break in the text, soft or
// hard, stays a line break, as pi shows it (a model's or the user's single newline is meant).
// The layout then wraps each marked line once, with one width function, giving its continuation
// lines a hanging indent (under a list item's text, behind a quote's bar). Unmarked lines (code,
// tables, rules) are never word-wrapped, only cut when too wide.

const (
	// markProse starts the first line of a paragraph, heading or list item's text; what precedes it
	// on the line is the line's prefix (indentation, bullet, quote bars).
	markProse = "\uFDD0"
	// markCont starts a further line of the same text (after a hard line break, or the next
	// paragraph of a list item): it is laid out behind the hanging indent of the last markProse line.
	markCont = "\uFDD1"
	// markShift, repeated n times before a prose marker, moves its line n columns right: glamour
	// indents a nested list by a fixed step, which leaves it left of the text of an item whose
	// marker is wider ("2. ", "10. ", "[ ] ").
	markShift = "\uFDD2"
	// maxShift bounds the shift of one line.
	maxShift = 16
)

// mdExtra is what the prepared AST's added text nodes point at; it is appended to the source.
// Offsets: 0 a space, 1 markProse, 4 markCont, 7 a paragraph break inside a list item, 9 maxShift
// shift marks.
var mdExtra = " " + markProse + markCont + "\n\n" + strings.Repeat(markShift, maxShift)

const (
	extraSpace    = 0
	extraProse    = 1
	extraCont     = 4
	extraParBreak = 7
	extraShift    = 9
)

// listGeometry is what the layout must know of the style sheet's lists.
type listGeometry struct {
	levelIndent int // glamour's indent of a nested list
	bullet      int // width of an unordered item's marker
	enumSuffix  int // width of what follows an ordered item's number
	ticked      int // width of a done task's marker
	unticked    int // width of an open task's marker
}

// mdPipeline is a goldmark parser and glamour's ANSI renderer configured like glamour's own
// TermRenderer, without word wrapping. Not safe for concurrent use (the renderer has state).
type mdPipeline struct {
	md   goldmark.Markdown
	geom listGeometry
}

func newMDPipeline(style glamouransi.StyleConfig, profile termenv.Profile) *mdPipeline {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.DefinitionList),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)
	ar := glamouransi.NewRenderer(glamouransi.Options{WordWrap: 0, ColorProfile: profile, Styles: style})
	md.SetRenderer(gmrenderer.NewRenderer(gmrenderer.WithNodeRenderers(util.Prioritized(ar, 1000))))
	geom := listGeometry{
		levelIndent: int(style.List.LevelIndent),
		bullet:      ansi.StringWidth(style.Item.BlockPrefix),
		enumSuffix:  ansi.StringWidth(style.Enumeration.BlockPrefix),
		ticked:      ansi.StringWidth(style.Task.Ticked),
		unticked:    ansi.StringWidth(style.Task.Unticked),
	}
	return &mdPipeline{md: md, geom: geom}
}

// render returns glamour's unwrapped output for src, with prose lines marked, and whether the
// markdown holds a table (which glamour lays out for a width).
func (p *mdPipeline) render(src string) (string, bool, error) {
	if strings.Contains(src, markProse) || strings.Contains(src, markCont) || strings.Contains(src, markShift) {
		src = strings.NewReplacer(markProse, "\uFFFD", markCont, "\uFFFD", markShift, "\uFFFD").Replace(src)
	}
	source := []byte(src)
	doc := p.md.Parser().Parse(text.NewReader(source))
	hasTable := prepareAST(doc, source, p.geom)
	full := make([]byte, 0, len(source)+len(mdExtra))
	full = append(append(full, source...), mdExtra...)
	var buf bytes.Buffer
	if err := p.md.Renderer().Render(&buf, full, doc); err != nil {
		return "", hasTable, err
	}
	return buf.String(), hasTable, nil
}

// prepareAST marks prose lines (shifting those of nested lists, separating the paragraphs of a list
// item) and makes a line break in a code span a space; extra text nodes point into the mdExtra
// appended after source. It reports whether the document has a table.
func prepareAST(doc ast.Node, source []byte, geom listGeometry) bool {
	base := len(source)
	seg := func(off, n int) *ast.Text {
		return ast.NewTextSegment(text.NewSegment(base+off, base+off+n))
	}
	hasTable := false
	var texts []*ast.Text
	var proseBlocks []ast.Node
	var codeLines []*ast.Text // lines of code spans that end in a line break
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case astext.KindTable:
			hasTable = true
			return ast.WalkSkipChildren, nil // cells are laid out by the table
		case ast.KindParagraph, ast.KindTextBlock, ast.KindHeading, astext.KindDefinitionTerm:
			proseBlocks = append(proseBlocks, n)
		case ast.KindText:
			t := n.(*ast.Text)
			if seg := t.Segment; t.IsRaw() && n.Parent().Kind() == ast.KindCodeSpan &&
				seg.Stop > seg.Start && source[seg.Stop-1] == '\n' {
				codeLines = append(codeLines, t)
			} else {
				texts = append(texts, t)
			}
		}
		return ast.WalkContinue, nil
	})
	// Changing the tree while walking it would make the walk visit the added nodes.
	for _, t := range texts {
		if t.HardLineBreak() || t.SoftLineBreak() {
			t.Parent().InsertAfter(t.Parent(), t, seg(extraCont, len(markCont)))
		}
	}
	for _, t := range codeLines {
		// A line break inside a code span is a space (CommonMark); glamour would print it.
		stop := t.Segment.Stop - 1
		if stop > t.Segment.Start && source[stop-1] == '\r' {
			stop--
		}
		t.Segment = t.Segment.WithStop(stop)
		t.Parent().InsertAfter(t.Parent(), t, seg(extraSpace, 1))
	}
	for _, b := range proseBlocks {
		if b.FirstChild() == nil {
			continue
		}
		prev := b.PreviousSibling()
		if b.Parent() != nil && b.Parent().Kind() == ast.KindListItem && prev != nil &&
			(prev.Kind() == ast.KindParagraph || prev.Kind() == ast.KindTextBlock) {
			// glamour runs the paragraphs of a list item together; keep them apart, under the item.
			b.InsertBefore(b, b.FirstChild(), seg(extraCont, len(markCont)))
			b.InsertBefore(b, b.FirstChild(), seg(extraParBreak, 2))
			continue
		}
		mark := seg(extraProse, len(markProse))
		if first := b.FirstChild(); first.Kind() == astext.KindTaskCheckBox {
			// glamour recognises a task item by its checkbox coming first.
			b.InsertAfter(b, first, mark)
		} else {
			b.InsertBefore(b, b.FirstChild(), mark)
		}
		if n := min(listShift(b, geom), maxShift); n > 0 {
			b.InsertBefore(b, mark, seg(extraShift, n*len(markShift)))
		}
	}
	return hasTable
}

// listShift is how far right the lines of block b must move so that every list nested in an item
// starts under the item's text, not at glamour's fixed indent.
func listShift(b ast.Node, geom listGeometry) int {
	shift := 0
	for n := b.Parent(); n != nil; n = n.Parent() {
		if n.Kind() != ast.KindList || n.Parent() == nil || n.Parent().Kind() != ast.KindListItem {
			continue
		}
		shift += max(itemMarkerWidth(n.Parent(), geom)-geom.levelIndent, 0)
	}
	return shift
}

// itemMarkerWidth is the width of the marker glamour draws before a list item's text.
func itemMarkerWidth(item ast.Node, geom listGeometry) int {
	if tb := item.FirstChild(); tb != nil && tb.FirstChild() != nil && tb.FirstChild().Kind() == astext.KindTaskCheckBox {
		if tb.FirstChild().(*astext.TaskCheckBox).IsChecked {
			return geom.ticked
		}
		return geom.unticked
	}
	list, ok := item.Parent().(*ast.List)
	if !ok || !list.IsOrdered() {
		return geom.bullet
	}
	n := 1
	for s := item.PreviousSibling(); s != nil && s.Kind() == ast.KindListItem; s = s.PreviousSibling() {
		n++
	}
	if list.Start != 1 {
		n += list.Start - 1
	}
	return len(strconv.Itoa(n)) + geom.enumSuffix
}

// layoutMarked lays out glamour's unwrapped, marked output at width: prose lines word-wrapped with a
// hanging indent, markers removed, other lines kept (fit cuts them later if too wide).
func layoutMarked(lines []string, width int) []string {
	out := make([]string, 0, len(lines)+len(lines)/4)
	hang := "" // hanging indent of the last prose line
	for _, l := range lines {
		i := strings.Index(l, markProse)
		cont := false
		if j := strings.Index(l, markCont); j >= 0 && (i < 0 || j < i) {
			i, cont = j, true
		}
		if i < 0 {
			out = append(out, l)
			continue
		}
		prefix, content := l[:i], l[i+len(markProse):] // both markers are 3 bytes
		if n := strings.Count(prefix, markShift); n > 0 {
			prefix = strings.Repeat(" ", n) + strings.ReplaceAll(prefix, markShift, "")
		}
		state := sgrStateAfter("", prefix)
		if cont {
			prefix = hang
		} else {
			hang = hangingIndent(prefix)
		}
		content = removeMarkers(content)
		avail := max(width-Width(prefix), 1)
		wrapped := wordWrap(state+content, avail)
		for k, w := range wrapped {
			if k == 0 {
				out = append(out, prefix+w)
			} else {
				out = append(out, hang+w)
			}
		}
	}
	return out
}

// hangingIndent is the prefix of a prose line's continuation lines: the prefix with every visible
// character but a quote bar turned into spaces, its styles closed.
func hangingIndent(prefix string) string {
	if prefix == "" {
		return ""
	}
	var b strings.Builder
	esc := false
	for i := 0; i < len(prefix); {
		if prefix[i] == 0x1b {
			j := skipEscape(prefix, i)
			b.WriteString(prefix[i:j])
			i, esc = j, true
			continue
		}
		r, size := utf8.DecodeRuneInString(prefix[i:])
		if r == '│' {
			b.WriteRune(r)
		} else {
			b.WriteString(strings.Repeat(" ", max(ansi.StringWidth(prefix[i:i+size]), 0)))
		}
		i += size
	}
	if esc {
		b.WriteString(theme.Reset)
	}
	return b.String()
}

func removeMarkers(s string) string {
	if strings.Contains(s, markShift) {
		s = strings.ReplaceAll(s, markShift, "")
	}
	if strings.Contains(s, markProse) {
		s = strings.ReplaceAll(s, markProse, "")
	}
	if strings.Contains(s, markCont) {
		s = strings.ReplaceAll(s, markCont, "")
	}
	return s
}
