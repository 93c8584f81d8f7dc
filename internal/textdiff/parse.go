package textdiff

import (
	"strings"
	"unicode"
)

// Kind is what a line of pi's diff text is.
type Kind uint8

const (
	// Other is a line that is not in the numbered format (shown as it is).
	Other Kind = iota
	Context
	Added
	Removed
)

// Line is one parsed line of pi's diff text.
type Line struct {
	Kind Kind
	// Num is the right-aligned line number with its padding ("" for Other).
	Num string
	// Text is the line's text (for Other, the whole line).
	Text string
}

// Parse splits pi's diff text (Format's output, the edit tool's details.diff) into lines; a trailing
// line break ends the last line and starts no new one.
func Parse(diff string) []Line {
	raw := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	lines := make([]Line, len(raw))
	for i, l := range raw {
		lines[i] = ParseLine(l)
	}
	return lines
}

// ParseLine splits "<+|-| ><padded number> <text>" as pi's parseDiffLine does (a tab may stand for
// the leading space and the separator); anything else is Other.
func ParseLine(l string) Line {
	if l == "" || (l[0] != '+' && l[0] != '-' && l[0] != ' ' && l[0] != '\t') {
		return Line{Text: l}
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
		return Line{Text: l}
	}
	kind := Context
	switch l[0] {
	case '+':
		kind = Added
	case '-':
		kind = Removed
	}
	return Line{Kind: kind, Num: num, Text: text}
}

// Span is the runes [From, To) of a line; it is empty when From >= To.
type Span struct{ From, To int }

// ChangedWords finds the changed middle of a line modified from a to b, in both versions: what lies
// between their common prefix and suffix, widened to whole words and never covering leading
// whitespace. The spans are empty when there is nothing to mark in that version.
func ChangedWords(a, b []rune) (Span, Span) {
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
	return trimmedSpan(a, pre, len(a)-suf), trimmedSpan(b, pre, len(b)-suf)
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// trimmedSpan is [from, to) of s without its leading whitespace.
func trimmedSpan(s []rune, from, to int) Span {
	for from < to && unicode.IsSpace(s[from]) {
		from++
	}
	return Span{From: from, To: to}
}
