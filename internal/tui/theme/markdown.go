package theme

// MarkdownVariant selects how a markdown text is dressed.
type MarkdownVariant int

const (
	// MarkdownText is ordinary text: assistant answers, user messages, summaries.
	MarkdownText MarkdownVariant = iota
	// MarkdownThinking is a thinking trace: the thinking colour, italic.
	MarkdownThinking
)

// Attr is a set of text attributes.
type Attr uint8

const (
	AttrBold Attr = 1 << iota
	AttrItalic
	AttrUnderline
	AttrStrike
)

// AttrSeq is the escape sequence that turns on the attributes in a ("" for none, and for a profile
// without attributes).
func (t *Theme) AttrSeq(a Attr) string { return t.attr[a&15] }
