package render

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// mdStyle is a colour and attributes; the zero value is the terminal's default.
type mdStyle struct {
	fg    theme.Key
	hasFg bool
	attr  theme.Attr
}

func fgStyle(k theme.Key, a theme.Attr) mdStyle { return mdStyle{fg: k, hasFg: true, attr: a} }

// over is s worn inside outer: s's colour if it has one, the attributes of both.
func (s mdStyle) over(outer mdStyle) mdStyle {
	if !s.hasFg {
		s.fg, s.hasFg = outer.fg, outer.hasFg
	}
	s.attr |= outer.attr
	return s
}

func (s mdStyle) seq(th *theme.Theme) string {
	fg := ""
	if s.hasFg {
		fg = th.FgSeq(s.fg)
	}
	return fg + th.AttrSeq(s.attr)
}

// apply styles one line of text.
func (s mdStyle) apply(th *theme.Theme, text string) string {
	if seq := s.seq(th); seq != "" && text != "" {
		return seq + text + theme.Reset
	}
	return text
}

// inlineWriter renders inline markdown (the children of a paragraph, heading or table cell) to
// styled text: spans nest on a stack of styles; closing one resets and reopens the enclosing style.
// Line breaks stay "\n"; lines() makes each line stand alone.
type inlineWriter struct {
	th    *theme.Theme
	src   []byte
	b     strings.Builder
	stack []mdStyle
	// inCell: a code span in a table cell shows "\|" as "|" (the escape only kept the cell whole).
	inCell bool
	// dropSpace: the text after a hidden HTML comment loses its leading spaces.
	dropSpace bool
	// inLink: a URL in a link's text is not a link of its own.
	inLink bool
	// run collects consecutive plain text, so a URL the parser cut at "_" or "*" is found whole.
	run strings.Builder
}

func newInlineWriter(th *theme.Theme, src []byte, base mdStyle) *inlineWriter {
	w := &inlineWriter{th: th, src: src, stack: []mdStyle{base}}
	w.b.WriteString(base.seq(th))
	return w
}

func (w *inlineWriter) top() mdStyle { return w.stack[len(w.stack)-1] }

func (w *inlineWriter) push(s mdStyle) {
	w.flushRun()
	s = s.over(w.top())
	w.stack = append(w.stack, s)
	w.b.WriteString(s.seq(w.th))
}

func (w *inlineWriter) pop() {
	w.flushRun()
	w.stack = w.stack[:len(w.stack)-1]
	if w.b.Len() > 0 {
		w.b.WriteString(theme.Reset)
	}
	w.b.WriteString(w.top().seq(w.th))
}

// write adds text in the current style, outside the plain-text run.
func (w *inlineWriter) write(s string) {
	w.flushRun()
	w.b.WriteString(s)
}

// lines returns the rendered text as self-contained lines.
func (w *inlineWriter) lines() []string {
	w.flushRun()
	s := w.b.String()
	if strings.IndexByte(s, 0x1b) >= 0 {
		s += theme.Reset
	}
	return carrySGR(strings.Split(s, "\n"))
}

// children renders the inline children of n.
func (w *inlineWriter) children(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.node(c)
	}
}

func (w *inlineWriter) node(n ast.Node) {
	switch n.Kind() {
	case ast.KindText:
		t := n.(*ast.Text)
		v := t.Segment.Value(w.src)
		if t.IsRaw() {
			w.plain(string(v))
		} else {
			w.plain(unescapeText(v))
		}
		if t.HardLineBreak() || t.SoftLineBreak() {
			// pi keeps a single line break of the source: the model (or the user) meant it.
			w.write("\n")
		}
	case ast.KindString:
		w.plain(string(n.(*ast.String).Value))
	case ast.KindCodeSpan:
		w.codeSpan(n)
	case ast.KindEmphasis:
		a := theme.AttrItalic
		if n.(*ast.Emphasis).Level >= 2 {
			a = theme.AttrBold
		}
		w.push(mdStyle{attr: a})
		w.children(n)
		w.pop()
	case kindStrike:
		w.push(mdStyle{attr: theme.AttrStrike})
		w.children(n)
		w.pop()
	case ast.KindLink:
		l := n.(*ast.Link)
		w.push(fgStyle(theme.MdLink, theme.AttrUnderline))
		w.inLink = true
		w.children(n)
		w.flushRun()
		w.inLink = false
		w.pop()
		href := unescapeText(l.Destination)
		label := plainText(n, w.src)
		if label != href && label != strings.TrimPrefix(href, "mailto:") {
			w.push(fgStyle(theme.MdLinkURL, 0))
			w.write(" (" + href + ")")
			w.pop()
		}
	case ast.KindAutoLink:
		w.link(string(n.(*ast.AutoLink).Label(w.src)))
	case ast.KindImage:
		// pi shows an image's alt text.
		w.plain(plainText(n, w.src))
	case ast.KindRawHTML:
		raw := string(n.(*ast.RawHTML).Segments.Value(w.src))
		if strings.HasPrefix(raw, "<!--") {
			w.dropSpace = true
			return
		}
		w.plain(raw)
	case kindTaskBox:
		// Drawn with the list item's marker.
	default:
		w.children(n)
	}
}

// plain adds text that may hold bare URLs.
func (w *inlineWriter) plain(s string) {
	if w.dropSpace {
		w.dropSpace = false
		before := w.run.String()
		if before == "" {
			before = ansi.Strip(w.b.String())
		}
		if before == "" || strings.HasSuffix(before, " ") || strings.HasSuffix(before, "\t") {
			s = strings.TrimLeft(s, " \t")
		}
	}
	w.run.WriteString(s)
}

// flushRun writes the collected plain text, its URLs styled as links.
func (w *inlineWriter) flushRun() {
	if w.run.Len() == 0 {
		return
	}
	s := w.run.String()
	w.run.Reset()
	for s != "" && !w.inLink {
		start, end := findURL(s)
		if start < 0 {
			w.b.WriteString(s)
			return
		}
		w.b.WriteString(s[:start])
		w.link(s[start:end])
		s = s[end:]
	}
	w.b.WriteString(s)
}

// link shows a URL (an autolink, a bare URL) as pi does: in the link colour, underlined.
func (w *inlineWriter) link(url string) {
	w.push(fgStyle(theme.MdLink, theme.AttrUnderline))
	w.write(url)
	w.pop()
}

func (w *inlineWriter) codeSpan(n ast.Node) {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(w.src))
		}
	}
	code := strings.ReplaceAll(strings.ReplaceAll(b.String(), "\r", ""), "\n", " ")
	if w.inCell {
		code = strings.ReplaceAll(code, `\|`, "|")
	}
	w.push(fgStyle(theme.MdCode, 0))
	w.write(code)
	w.pop()
}

// plainText is the text of n's inline children without any markup.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c.Kind() {
		case ast.KindText:
			t := c.(*ast.Text)
			if t.IsRaw() {
				b.Write(t.Segment.Value(src))
			} else {
				b.WriteString(unescapeText(t.Segment.Value(src)))
			}
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case ast.KindString:
			b.Write(c.(*ast.String).Value)
		case ast.KindAutoLink:
			b.Write(c.(*ast.AutoLink).Label(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// findURL finds the first bare URL in s (http://, https://, ftp://, www.) or e-mail address, as
// GitHub's autolinks do: it ends at a space, "<" or ">", trailing punctuation and unbalanced closing
// parentheses are left out, and, as in pi, it stops at CJK punctuation. It returns -1, -1 when
// there is none.
func findURL(s string) (start, end int) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 'h' && c != 'f' && c != 'w' && c != '@' {
			continue
		}
		if c == '@' {
			if a, b := emailAt(s, i); a >= 0 {
				return a, b
			}
			continue
		}
		if i > 0 && isURLWordByte(s[i-1]) {
			continue // inside a word
		}
		rest := s[i:]
		var host int
		switch {
		case strings.HasPrefix(rest, "https://"):
			host = 8
		case strings.HasPrefix(rest, "http://"):
			host = 7
		case strings.HasPrefix(rest, "ftp://"):
			host = 6
		case strings.HasPrefix(rest, "www."):
			host = 4
		default:
			continue
		}
		e := urlEnd(rest)
		if e <= host || !strings.Contains(rest[host:e], ".") && host == 4 {
			continue
		}
		return i, i + e
	}
	return -1, -1
}

// urlEnd is where the URL at the start of s ends.
func urlEnd(s string) int {
	e := 0
	for e < len(s) {
		r, size := utf8.DecodeRuneInString(s[e:])
		if r == ' ' || r == '\t' || r == '\n' || r == '<' || r == '>' || isCJKPunct(r) {
			break
		}
		e += size
	}
	for e > 0 {
		switch s[e-1] {
		case '?', '!', '.', ',', ':', '*', '_', '~', '\'', '"', ';':
			e--
			continue
		case ')':
			if strings.Count(s[:e], ")") > strings.Count(s[:e], "(") {
				e--
				continue
			}
		}
		break
	}
	return e
}

// emailAt finds an e-mail address around the "@" at s[at].
func emailAt(s string, at int) (int, int) {
	a := at
	for a > 0 && (isURLWordByte(s[a-1]) || strings.IndexByte(".+-", s[a-1]) >= 0) {
		a--
	}
	b := at + 1
	for b < len(s) && (isURLWordByte(s[b]) || s[b] == '.' || s[b] == '-') {
		b++
	}
	for b > at+1 && (s[b-1] == '.' || s[b-1] == '-') {
		b--
	}
	if a == at || b == at+1 || !strings.Contains(s[at+1:b], ".") {
		return -1, -1
	}
	if b < len(s) && (s[b] == '-' || s[b] == '_') {
		return -1, -1
	}
	return a, b
}

func isURLWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// isCJKPunct reports CJK symbols and punctuation and full-width forms ("。", "，", "）").
func isCJKPunct(r rune) bool {
	return r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xff65
}
