package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wordWrap breaks one line of styled text into lines of at most width cells, greedily, at spaces
// only (a hyphen is not a break: "ls -la" and "--flag" stay whole). The spaces at a break are
// dropped; a word wider than width starts a new line and is cut into pieces. Styles open at a break
// are closed at the end of the line and reopened on the next. Escape sequences never count.
func wordWrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	if ansi.StringWidth(s) <= width {
		return []string{s}
	}
	var (
		out   []string
		line  strings.Builder
		lineW int
		space strings.Builder // spaces (and escapes among them) since the last word
		spW   int
	)
	emit := func() {
		out = append(out, line.String())
		line.Reset()
		lineW = 0
	}
	addWord := func(word string) {
		w := ansi.StringWidth(word)
		switch {
		case lineW > 0 && lineW+spW+w <= width:
			line.WriteString(space.String())
			lineW += spW
		case lineW > 0:
			emit()
			line.WriteString(escapesOnly(space.String()))
		case spW+w <= width:
			line.WriteString(space.String()) // the text's leading spaces
			lineW += spW
		default:
			line.WriteString(escapesOnly(space.String()))
		}
		space.Reset()
		spW = 0
		if lineW+w <= width {
			line.WriteString(word)
			lineW += w
			return
		}
		// A word wider than the line: cut it; the last piece stays open for what follows.
		pieces := hardwrap(word, width)
		for i, p := range pieces {
			line.WriteString(p)
			lineW = ansi.StringWidth(p)
			if i < len(pieces)-1 {
				emit()
			}
		}
	}
	start, inWord := 0, false
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b {
			i = skipEscape(s, i)
			continue
		}
		if c == ' ' {
			if inWord {
				addWord(s[start:i])
				inWord = false
				start = i
			}
			space.WriteString(s[start:i]) // escapes between the word and this space
			space.WriteByte(' ')
			spW++
			i++
			start = i
			continue
		}
		if !inWord {
			space.WriteString(s[start:i]) // escapes before the word belong to the space run
			start, inWord = i, true
		}
		i++
	}
	if inWord {
		addWord(s[start:])
	} else {
		space.WriteString(s[start:])
		line.WriteString(escapesOnly(space.String()))
	}
	emit()
	return carrySGR(out)
}

// escapesOnly is s without its spaces: the escape sequences of a run of spaces dropped at a break.
func escapesOnly(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return ""
	}
	return strings.ReplaceAll(s, " ", "")
}
