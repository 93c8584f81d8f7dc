package theme

import (
	"github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
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
		s.Document.Color = str(c)
	}
	if v == MarkdownThinking {
		s.Document.Color = str(t.palette[ThinkingText])
		s.Document.Italic = boolp(true)
	}
	s.Heading = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{
		BlockSuffix: "\n", Color: str(t.palette[MdHeading]), Bold: boolp(true),
	}}
	s.H1 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "# "}}
	s.H2 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "## "}}
	s.H3 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "### "}}
	s.H4 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "#### "}}
	s.H5 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "##### "}}
	s.H6 = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Prefix: "###### "}}
	s.Code = ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Color: str(t.palette[MdCode])}}
	s.CodeBlock.Color = str(t.palette[MdCodeBlock])
	s.Link = ansi.StylePrimitive{Color: str(t.palette[MdLinkURL]), Underline: boolp(true)}
	s.LinkText = ansi.StylePrimitive{Color: str(t.palette[MdLink]), Bold: boolp(true)}
	s.BlockQuote = ansi.StyleBlock{
		StylePrimitive: ansi.StylePrimitive{Color: str(t.palette[MdQuote])},
		Indent:         uintp(1),
		IndentToken:    str("│ "),
	}
	s.HorizontalRule = ansi.StylePrimitive{Color: str(t.palette[MdHr]), Format: "\n────────\n"}
	return s
}

func str(s string) *string { return &s }
func boolp(b bool) *bool   { return &b }
func uintp(u uint) *uint   { return &u }
