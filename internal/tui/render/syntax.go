package render

import (
	"strings"

	"github.com/pi-go/pi-go/internal/syntax"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Code is classified by internal/syntax into pi's highlight classes; this file gives each class its
// theme colour and turns the spans into coloured lines.

// classKeys are the theme colours of the classes (pi's mapping of highlight.js classes).
var classKeys = [syntax.NumClasses]theme.Key{
	syntax.ClassPlain: theme.Text, syntax.ClassComment: theme.SyntaxComment, syntax.ClassKeyword: theme.SyntaxKeyword,
	syntax.ClassType: theme.SyntaxType, syntax.ClassFunction: theme.SyntaxFunction, syntax.ClassVariable: theme.SyntaxVariable,
	syntax.ClassString: theme.SyntaxString, syntax.ClassNumber: theme.SyntaxNumber, syntax.ClassOperator: theme.SyntaxOperator,
	syntax.ClassPunct: theme.SyntaxPunctuation, syntax.ClassMeta: theme.Muted, syntax.ClassAdded: theme.ToolDiffAdded,
	syntax.ClassRemoved: theme.ToolDiffRemoved,
}

// highlightCode colours code in language lang (a fence's info word or a language name) and returns
// its lines, each closing the styles it opens. Code in a language it does not know is shown in the
// plain code-block colour, as pi shows it.
func highlightCode(th *theme.Theme, code, lang string) []string {
	spans, ok := syntax.Tokenize(code, lang)
	if !ok {
		lines := strings.Split(code, "\n")
		for i, l := range lines {
			lines[i] = th.Fg(theme.MdCodeBlock, l)
		}
		return lines
	}
	return colourLines(th, code, spans)
}

// colourLines styles the classified spans of code, line by line.
func colourLines(th *theme.Theme, code string, spans []syntax.Span) []string {
	lines := make([]string, 0, strings.Count(code, "\n")+1)
	var b strings.Builder
	start := 0
	for _, sp := range spans {
		seq := th.FgSeq(classKeys[sp.Class])
		for start < sp.End {
			end := sp.End
			nl := strings.IndexByte(code[start:end], '\n')
			if nl >= 0 {
				end = start + nl
			}
			if end > start {
				if seq != "" && strings.TrimSpace(code[start:end]) != "" {
					b.WriteString(seq)
					b.WriteString(code[start:end])
					b.WriteString(theme.Reset)
				} else {
					b.WriteString(code[start:end])
				}
			}
			start = end
			if nl >= 0 {
				lines = append(lines, b.String())
				b.Reset()
				start++
			}
		}
	}
	return append(lines, b.String())
}
