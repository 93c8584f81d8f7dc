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

// AttrSeq is the SGR sequence that turns on the attributes in a ("" for none, and for a profile
// without attributes).
func (t *Theme) AttrSeq(a Attr) string {
	if !t.attrs || a == 0 {
		return ""
	}
	seq := "\x1b["
	for _, p := range [...]struct {
		a    Attr
		code string
	}{{AttrBold, "1"}, {AttrItalic, "3"}, {AttrUnderline, "4"}, {AttrStrike, "9"}} {
		if a&p.a != 0 {
			if len(seq) > 2 {
				seq += ";"
			}
			seq += p.code
		}
	}
	return seq + "m"
}
