package render

import (
	"strings"
	"unicode"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Diff renders pi's numbered diff text (the edit tool's details.diff: "+12 added", "-12 removed",
// " 12 context", "    ..." for skipped lines): added lines green, removed red, context dim. A single
// changed line (one removed followed by one added) has its changed words shown inverted.
func (r *Renderer) Diff(diff string, width int) []string {
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	var out []string
	emit := func(k theme.Key, s string) { out = append(out, wrap(r.th.Fg(k, s), width)...) }
	for i := 0; i < len(lines); {
		p, ok := parseDiffLine(lines[i])
		if !ok {
			emit(theme.ToolDiffContext, cleanOutput(lines[i]))
			i++
			continue
		}
		switch p.prefix {
		case '-':
			var removed, added []diffLine
			for i < len(lines) {
				q, ok := parseDiffLine(lines[i])
				if !ok || q.prefix != '-' {
					break
				}
				removed = append(removed, q)
				i++
			}
			for i < len(lines) {
				q, ok := parseDiffLine(lines[i])
				if !ok || q.prefix != '+' {
					break
				}
				added = append(added, q)
				i++
			}
			if len(removed) == 1 && len(added) == 1 {
				oldText, newText := r.intraLine(removed[0].text, added[0].text)
				out = append(out, wrap(r.th.Fg(theme.ToolDiffRemoved, "-"+removed[0].num+" "+oldText), width)...)
				out = append(out, wrap(r.th.Fg(theme.ToolDiffAdded, "+"+added[0].num+" "+newText), width)...)
				continue
			}
			for _, l := range removed {
				emit(theme.ToolDiffRemoved, "-"+l.num+" "+l.text)
			}
			for _, l := range added {
				emit(theme.ToolDiffAdded, "+"+l.num+" "+l.text)
			}
		case '+':
			emit(theme.ToolDiffAdded, "+"+p.num+" "+p.text)
			i++
		default:
			emit(theme.ToolDiffContext, " "+p.num+" "+p.text)
			i++
		}
	}
	return out
}

type diffLine struct {
	prefix byte
	num    string // the right-aligned line number with its padding
	text   string // cleaned, tabs expanded
}

// parseDiffLine splits "<+|-| ><padded number> <text>" (pi's parseDiffLine).
func parseDiffLine(l string) (diffLine, bool) {
	if l == "" || (l[0] != '+' && l[0] != '-' && l[0] != ' ' && l[0] != '\t') {
		return diffLine{}, false
	}
	k := 1
	for k < len(l) && (l[k] == ' ' || l[k] == '\t') {
		k++
	}
	digits := k
	for k < len(l) && l[k] >= '0' && l[k] <= '9' {
		k++
	}
	hasDigits := k > digits
	var num, text string
	switch {
	case k < len(l) && (l[k] == ' ' || l[k] == '\t'):
		num, text = l[1:k], l[k+1:]
	case !hasDigits && k > 1:
		num, text = l[1:k-1], l[k:] // the separator was the last of the padding spaces
	default:
		return diffLine{}, false
	}
	prefix := l[0]
	if prefix == '\t' {
		prefix = ' '
	}
	return diffLine{prefix: prefix, num: num, text: cleanOutput(text)}, true
}

// Inverse on/off inside an already coloured span: the colour stays on around the inverted part.
const (
	inverseOn  = "\x1b[7m"
	inverseOff = "\x1b[27m"
)

// intraLine marks the changed middle of a modified line in both versions (inverted), widened to whole
// words and never covering leading indentation.
func (r *Renderer) intraLine(oldText, newText string) (string, string) {
	if r.th.FgSeq(theme.ToolDiffAdded) == "" {
		return oldText, newText // no colours: nothing to invert with
	}
	a, b := []rune(oldText), []rune(newText)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	// Widen to word boundaries so a changed word is marked whole.
	for pre > 0 && isWordRune(a[pre-1]) && (pre < len(a) && isWordRune(a[pre]) || pre < len(b) && isWordRune(b[pre])) {
		pre--
	}
	for suf > 0 && isWordRune(a[len(a)-suf]) &&
		(len(a)-suf-1 >= pre && isWordRune(a[len(a)-suf-1]) || len(b)-suf-1 >= pre && isWordRune(b[len(b)-suf-1])) {
		suf--
	}
	return markRange(a, pre, len(a)-suf), markRange(b, pre, len(b)-suf)
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func markRange(s []rune, from, to int) string {
	for from < to && unicode.IsSpace(s[from]) {
		from++
	}
	if from >= to {
		return string(s)
	}
	return string(s[:from]) + inverseOn + string(s[from:to]) + inverseOff + string(s[to:])
}
