package export

import (
	"io"
	"strings"

	"github.com/pi-go/pi-go/internal/syntax"
)

// classNames are the CSS classes of the highlight classes (page.css colours them from the theme's
// syntax keys); plain text gets no span.
var classNames = [syntax.NumClasses]string{
	syntax.ClassComment: "hc", syntax.ClassKeyword: "hk", syntax.ClassType: "ht", syntax.ClassFunction: "hf",
	syntax.ClassVariable: "hv", syntax.ClassString: "hs", syntax.ClassNumber: "hn", syntax.ClassOperator: "ho",
	syntax.ClassPunct: "hp", syntax.ClassMeta: "hm", syntax.ClassAdded: "ha", syntax.ClassRemoved: "hr",
}

// writer is where HTML goes: a *bufio.Writer, or goldmark's buffered writer inside markdown.
type writer interface {
	io.Writer
	io.StringWriter
}

// maxHighlight is the largest code highlighted; larger code is shown plain, since a span per token
// over megabytes would make the page slow to lay out for little gain.
const maxHighlight = 256 << 10

// writeEscaped writes s with the five HTML-special characters escaped.
func writeEscaped(w writer, s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		var rep string
		switch s[i] {
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '&':
			rep = "&amp;"
		case '"':
			rep = "&#34;"
		case '\'':
			rep = "&#39;"
		case 0:
			rep = "\uFFFD"
		default:
			continue
		}
		w.WriteString(s[start:i])
		w.WriteString(rep)
		start = i + 1
	}
	w.WriteString(s[start:])
}

// writeCode writes code, highlighted as lang when that is a known language and the code is not too
// large, as the inside of a <pre>.
func writeCode(w writer, code, lang string) {
	if len(code) > maxHighlight {
		writeEscaped(w, code)
		return
	}
	spans, ok := syntax.Tokenize(code, lang)
	if !ok {
		writeEscaped(w, code)
		return
	}
	at := 0
	for _, sp := range spans {
		text := code[at:sp.End]
		at = sp.End
		cls := classNames[sp.Class]
		if cls == "" || strings.TrimSpace(text) == "" {
			writeEscaped(w, text)
			continue
		}
		w.WriteString(`<span class="`)
		w.WriteString(cls)
		w.WriteString(`">`)
		writeEscaped(w, text)
		w.WriteString("</span>")
	}
}

// writeDiff writes a diff as pi's tools show it: added lines, removed lines and context, each in
// its colour. Both pi's numbered form ("+ 12 text") and unified diffs ("+text") start with the sign.
func writeDiff(w writer, diff string) {
	w.WriteString(`<pre class="diff">`)
	for line := range strings.SplitSeq(strings.TrimSuffix(diff, "\n"), "\n") {
		cls := "dc"
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "@@"):
			cls = "dh"
		case strings.HasPrefix(line, "+"):
			cls = "da"
		case strings.HasPrefix(line, "-"):
			cls = "dr"
		}
		w.WriteString(`<span class="`)
		w.WriteString(cls)
		w.WriteString(`">`)
		writeEscaped(w, line)
		w.WriteString("\n</span>")
	}
	w.WriteString("</pre>")
}
