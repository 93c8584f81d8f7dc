package render

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The markdown parser is goldmark's CommonMark core with the GitHub additions pi shows (tables,
// ~~strikethrough~~, task list items) implemented here: goldmark's extension package compiles its
// autolink regular expressions at package initialisation, which every pi process would pay for.
// Bare URLs are found when the text is rendered (linkify in mdinline.go).

var (
	kindTable     = ast.NewNodeKind("PiTable")
	kindTableRow  = ast.NewNodeKind("PiTableRow")
	kindTableCell = ast.NewNodeKind("PiTableCell")
	kindStrike    = ast.NewNodeKind("PiStrikethrough")
	kindTaskBox   = ast.NewNodeKind("PiTaskCheckBox")
)

// mdTable is a GFM table; its children are mdTableRows, the first one the header.
type mdTable struct {
	ast.BaseBlock
	// source is the table's markdown, shown as is when the terminal is too narrow for the table.
	source []text.Segment
}

func (n *mdTable) Kind() ast.NodeKind { return kindTable }
func (n *mdTable) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, nil, nil)
}

// mdTableRow is a row of a table; its children are mdTableCells.
type mdTableRow struct{ ast.BaseBlock }

func (n *mdTableRow) Kind() ast.NodeKind { return kindTableRow }
func (n *mdTableRow) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, nil, nil)
}

// mdTableCell is a cell; its line is parsed as inline markdown.
type mdTableCell struct{ ast.BaseBlock }

func (n *mdTableCell) Kind() ast.NodeKind { return kindTableCell }
func (n *mdTableCell) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, nil, nil)
}

// mdStrike is ~~struck~~ text.
type mdStrike struct{ ast.BaseInline }

func (n *mdStrike) Kind() ast.NodeKind { return kindStrike }
func (n *mdStrike) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, nil, nil)
}

// mdTaskBox is the "[ ]" or "[x]" that starts a task list item.
type mdTaskBox struct {
	ast.BaseInline
	checked bool
}

func (n *mdTaskBox) Kind() ast.NodeKind { return kindTaskBox }
func (n *mdTaskBox) Dump(src []byte, level int) {
	ast.DumpHelper(n, src, level, map[string]string{"checked": strconv.FormatBool(n.checked)}, nil)
}

// newMDParser is goldmark's CommonMark parser plus tables, strikethrough and task lists.
func newMDParser() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		// The task box must be tried before a link ("[x]" is also a link label).
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(taskBoxParser{}, 0), util.Prioritized(strikeParser{}, 500))...),
		parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
			util.Prioritized(tableTransformer{}, 200))...),
	)
}

// tableTransformer turns a paragraph whose second line (or a later one) is a delimiter row
// ("|---|:--:|") into the paragraph's leading lines and a table.
type tableTransformer struct{}

func (tableTransformer) Transform(para *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := para.Lines()
	src := reader.Source()
	for i := 1; i < lines.Len(); i++ {
		delimSeg := lines.At(i)
		delim := delimSeg.Value(src)
		cols := delimiterColumns(delim)
		if cols == 0 {
			continue
		}
		headSeg := lines.At(i - 1)
		head := headSeg.Value(src)
		if bytes.IndexByte(delim, '|') < 0 && bytes.IndexByte(head, '|') < 0 {
			continue // "text" over "---" is no table
		}
		header := tableCells(head, lines.At(i-1).Start)
		if len(header) != cols {
			return
		}
		table := &mdTable{}
		table.AppendChild(table, tableRow(header, cols))
		for j := i + 1; j < lines.Len(); j++ {
			seg := lines.At(j)
			table.AppendChild(table, tableRow(tableCells(seg.Value(src), seg.Start), cols))
		}
		for j := i - 1; j < lines.Len(); j++ {
			table.source = append(table.source, lines.At(j))
		}
		parent := para.Parent()
		parent.InsertAfter(parent, para, table)
		if i == 1 {
			table.SetBlankPreviousLines(para.HasBlankPreviousLines())
			parent.RemoveChild(parent, para)
			return
		}
		lines.SetSliced(0, i-1)
		return
	}
}

// delimiterColumns is the number of columns of a table delimiter row, 0 when l is not one.
func delimiterColumns(l []byte) int {
	l = bytes.TrimSpace(l)
	if len(l) == 0 {
		return 0
	}
	l = bytes.TrimPrefix(l, []byte("|"))
	if len(l) > 0 && l[len(l)-1] == '|' {
		l = l[:len(l)-1]
	}
	n := 0
	for _, col := range bytes.Split(l, []byte("|")) {
		col = bytes.TrimSpace(col)
		col = bytes.TrimPrefix(col, []byte(":"))
		col = bytes.TrimSuffix(col, []byte(":"))
		if len(col) == 0 || len(bytes.Trim(col, "-")) != 0 {
			return 0
		}
		n++
	}
	return n
}

// tableCells splits a table row (which starts at offset start of the source) into the segments of
// its cells: at pipes not escaped with a backslash, the outer pipes and the spaces around each cell
// dropped.
func tableCells(l []byte, start int) []text.Segment {
	from, to := 0, len(l)
	for from < to && isSpaceByte(l[from]) {
		from++
	}
	for to > from && isSpaceByte(l[to-1]) {
		to--
	}
	if from < to && l[from] == '|' {
		from++
	}
	if to > from && l[to-1] == '|' && (to-2 < from || l[to-2] != '\\') {
		to--
	}
	var cells []text.Segment
	cell := from
	for i := from; i <= to; i++ {
		if i < to && (l[i] != '|' || i > 0 && l[i-1] == '\\') {
			continue
		}
		a, b := cell, i
		for a < b && isSpaceByte(l[a]) {
			a++
		}
		for b > a && isSpaceByte(l[b-1]) {
			b--
		}
		cells = append(cells, text.NewSegment(start+a, start+b))
		cell = i + 1
	}
	return cells
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// tableRow makes a row of exactly cols cells: extra cells are dropped, missing ones are empty.
func tableRow(cells []text.Segment, cols int) *mdTableRow {
	row := &mdTableRow{}
	for i := 0; i < cols; i++ {
		c := &mdTableCell{}
		if i < len(cells) && cells[i].Len() > 0 {
			c.Lines().Append(cells[i])
		}
		row.AppendChild(row, c)
	}
	return row
}

// strikeParser finds "~~" delimiters; the parser pairs them into mdStrike nodes. Like pi, only
// double tildes strike: "~one~" stays as written.
type strikeParser struct{}

func (strikeParser) Trigger() []byte { return []byte{'~'} }

func (strikeParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, segment := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 2, strikeDelimiters{})
	if d == nil || d.OriginalLength != 2 || before == '~' {
		return nil
	}
	d.Segment = segment.WithStop(segment.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

func (strikeParser) CloseBlock(parent ast.Node, pc parser.Context) {}

type strikeDelimiters struct{}

func (strikeDelimiters) IsDelimiter(b byte) bool { return b == '~' }
func (strikeDelimiters) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char && opener.Length == closer.Length
}
func (strikeDelimiters) OnMatch(consumes int) ast.Node { return &mdStrike{} }

// taskBoxParser reads the "[ ]" or "[x]" that starts the first paragraph of a list item.
type taskBoxParser struct{}

func (taskBoxParser) Trigger() []byte { return []byte{'['} }

func (taskBoxParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	item := parent.Parent()
	if item == nil || item.Kind() != ast.KindListItem || item.FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 4 || line[0] != '[' || line[2] != ']' || !isSpaceByte(line[3]) {
		return nil
	}
	var checked bool
	switch line[1] {
	case ' ':
	case 'x', 'X':
		checked = true
	default:
		return nil
	}
	n := 3
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	block.Advance(n)
	return &mdTaskBox{checked: checked}
}

func (taskBoxParser) CloseBlock(parent ast.Node, pc parser.Context) {}

// unescapeText is the text of a Text node as shown: backslash escapes and character references
// resolved, as CommonMark renders them.
func unescapeText(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 && bytes.IndexByte(b, '&') < 0 {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\\' && i+1 < len(b) && util.IsPunct(b[i+1]) {
			out = append(out, b[i+1])
			i++
			continue
		}
		if c == '&' {
			if r, n := charRef(b[i:]); n > 0 {
				out = append(out, r...)
				i += n - 1
				continue
			}
		}
		out = append(out, c)
	}
	return string(out)
}

// charRef reads a character reference ("&amp;", "&#35;", "&#x22;") at the start of b and returns
// its characters and its length (0 when b does not start with one).
func charRef(b []byte) ([]byte, int) {
	end := bytes.IndexByte(b, ';')
	if end < 2 || end > 40 {
		return nil, 0
	}
	name := b[1:end]
	if name[0] == '#' {
		base, digits := 10, name[1:]
		if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
			base, digits = 16, digits[1:]
		}
		if len(digits) == 0 || len(digits) > 7 {
			return nil, 0
		}
		v, err := strconv.ParseUint(string(digits), base, 32)
		if err != nil {
			return nil, 0
		}
		r := rune(v)
		if r == 0 || !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		return utf8.AppendRune(nil, r), end + 1
	}
	if e, ok := util.LookUpHTML5EntityByName(string(name)); ok {
		return e.Characters, end + 1
	}
	return nil, 0
}
