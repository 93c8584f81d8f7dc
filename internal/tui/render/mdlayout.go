package render

import (
	"bytes"
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
)

// mdExtra is what the prepared AST's added text nodes point at; it is appended to the source.
// Offsets: 0 a space, 1 markProse, 4 markCont, 7 a paragraph break inside a list item.
const (
	mdExtra       = " " + markProse + markCont + "\n\n"
	extraSpace    = 0
	extraProse    = 1
	extraCont     = 4
	extraParBreak = 7
)

// mdPipeline is a goldmark parser and glamour's ANSI renderer configured like glamour's own
// TermRenderer, without word wrapping. Not safe for concurrent use (the renderer has state).
type mdPipeline struct {
	md goldmark.Markdown
}

func newMDPipeline(style glamouransi.StyleConfig, profile termenv.Profile) *mdPipeline {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.DefinitionList),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)
	ar := glamouransi.NewRenderer(glamouransi.Options{WordWrap: 0, ColorProfile: profile, Styles: style})
	md.SetRenderer(gmrenderer.NewRenderer(gmrenderer.WithNodeRenderers(util.Prioritized(ar, 1000))))
	return &mdPipeline{md: md}
}

// render returns glamour's unwrapped output for src, with prose lines marked, and whether the
// markdown holds a table (which glamour lays out for a width).
func (p *mdPipeline) render(src string) (string, bool, error) {
	if strings.Contains(src, markProse) || strings.Contains(src, markCont) {
		src = strings.NewReplacer(markProse, "\uFFFD", markCont, "\uFFFD").Replace(src)
	}
	source := []byte(src)
	doc := p.md.Parser().Parse(text.NewReader(source))
	hasTable := prepareAST(doc, source)
	full := make([]byte, 0, len(source)+len(mdExtra))
	full = append(append(full, source...), mdExtra...)
	var buf bytes.Buffer
	if err := p.md.Renderer().Render(&buf, full, doc); err != nil {
		return "", hasTable, err
	}
	return buf.String(), hasTable, nil
}

// prepareAST marks prose lines and makes a line break in a code span a space; extra text nodes point
// into the mdExtra appended after source. It reports whether the document has a table.
func prepareAST(doc ast.Node, source []byte) bool {
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
		if first := b.FirstChild(); first.Kind() == astext.KindTaskCheckBox {
			// glamour recognises a task item by its checkbox coming first.
			b.InsertAfter(b, first, seg(extraProse, len(markProse)))
			continue
		}
		b.InsertBefore(b, b.FirstChild(), seg(extraProse, len(markProse)))
	}
	return hasTable
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
	if strings.Contains(s, markProse) {
		s = strings.ReplaceAll(s, markProse, "")
	}
	if strings.Contains(s, markCont) {
		s = strings.ReplaceAll(s, markCont, "")
	}
	return s
}
