package theme

import (
	"strconv"

	"github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
	"github.com/muesli/termenv"
)

// MarkdownVariant selects how a markdown text is dressed.
type MarkdownVariant int

const (
	// MarkdownText is ordinary text: assistant answers, user messages, summaries.
	MarkdownText MarkdownVariant = iota
	// MarkdownThinking is a thinking trace: the thinking colour, italic.
	MarkdownThinking
)

// MarkdownStyle is the glamour style sheet of the theme for variant: glamour's dark or light sheet
// (chroma colours for code blocks included) without the document margin and blank lines around the
// document, so the caller decides the layout, and with pi's colours for headings, inline code, links
// and quotes.
func (t *Theme) MarkdownStyle(v MarkdownVariant) ansi.StyleConfig {
	var s ansi.StyleConfig
	if t.dark {
		s = styles.DarkStyleConfig
	} else {
		s = styles.LightStyleConfig
	}
	zero := uint(0)
	s.Document = ansi.StyleBlock{Margin: &zero}
	if c := t.palette[Text]; c != "" {
		s.Document.Color = t.color(c)
	}
	if v == MarkdownThinking {
		s.Document.Color = t.color(t.palette[ThinkingText])
		s.Document.Italic = boolp(true)
	}
	s.Heading = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{
		BlockSuffix: "\n", Color: t.color(t.palette[MdHeading]), Bold: boolp(true),
	}}
	s.H1 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "# "}}
	s.H2 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "## "}}
	s.H3 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "### "}}
	s.H4 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "#### "}}
	s.H5 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "##### "}}
	s.H6 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "###### "}}
	s.Code = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Color: t.color(t.palette[MdCode])}}
	s.CodeBlock.Color = t.color(t.palette[MdCodeBlock])
	s.Link = ansi.StylePrimitive{Color: t.color(t.palette[MdLinkURL]), Underline: boolp(true)}
	s.LinkText = ansi.StylePrimitive{Color: t.color(t.palette[MdLink]), Bold: boolp(true)}
	s.BlockQuote = ansi.StyleBlock{
		StylePrimitive: ansi.StylePrimitive{Color: t.color(t.palette[MdQuote])},
		Indent:         uintp(1),
		IndentToken:    str("│ "),
	}
	s.HorizontalRule = ansi.StylePrimitive{Color: t.color(t.palette[MdHr]), Format: "\n────────\n"}
	return s
}

func str(s string) *string { return &s }

// color is a palette colour as glamour should get it: for 256 colours the index this theme uses
// (glamour's own conversion picks other indexes, so markdown and the rest would differ).
func (t *Theme) color(c string) *string {
	if r, g, b, ok := parseHex(c); ok && t.profile == termenv.ANSI256 {
		return str(strconv.Itoa(to256(r, g, b)))
	}
	return str(c)
}
func boolp(b bool) *bool { return &b }
func uintp(u uint) *uint { return &u }
