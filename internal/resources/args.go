package resources

import (
	"regexp"
	"strconv"
	"strings"
)

// ParseCommandArgs splits a command's argument string as pi 1.6 does (a little like a shell): words
// separated by whitespace, newlines included; a quote ' or " opens a quoted argument only at the start
// of an argument (so "doesn't" stays one word), and inside it a backslash before that quote keeps the
// quote as text; an empty quoted argument is kept; a quote that is never closed is literal text.
func ParseCommandArgs(s string) []string {
	rs := []rune(s)
	var args []string
	var cur strings.Builder
	hasToken := false
	var inQuote rune // 0: not in a quoted argument
	quoteStart := 0
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case inQuote != 0:
			switch {
			case c == '\\' && i+1 < len(rs) && rs[i+1] == inQuote:
				cur.WriteRune(inQuote)
				i++
			case c == inQuote:
				inQuote = 0
			default:
				cur.WriteRune(c)
			}
		case (c == '"' || c == '\'') && !hasToken:
			inQuote, quoteStart, hasToken = c, i, true
		case isJSSpace(c):
			if hasToken {
				args = append(args, cur.String())
				cur.Reset()
				hasToken = false
			}
		default:
			cur.WriteRune(c)
			hasToken = true
		}
		if inQuote != 0 && i == len(rs)-1 {
			// Never closed: the quote is text and what follows it is read again unquoted (the
			// argument was empty when the quote opened it).
			inQuote = 0
			cur.Reset()
			cur.WriteRune(rs[quoteStart])
			i = quoteStart
		}
	}
	if hasToken {
		args = append(args, cur.String())
	}
	return args
}

// placeholder matches the substitutions of SubstituteArgs, in pi's order of alternatives.
var placeholder = regexp.MustCompile(`\$\{(\d+|ARGUMENTS|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)`)

// SubstituteArgs fills a template's placeholders: $1…$n (missing: empty), $@ and $ARGUMENTS (all,
// joined by spaces), ${N:-default}, ${@:-default} and ${ARGUMENTS:-default} (the default when the value
// is missing or empty), ${@:N} (from the Nth on; 0 counts as 1) and ${@:N:L} (L of them). Values are
// inserted as they are: a $1 inside an argument is not substituted again.
func SubstituteArgs(content string, args []string) string {
	all := strings.Join(args, " ")
	arg := func(n int) (string, bool) {
		if n < 1 || n > len(args) {
			return "", false
		}
		return args[n-1], true
	}
	var b strings.Builder
	last := 0
	for _, m := range placeholder.FindAllStringSubmatchIndex(content, -1) {
		b.WriteString(content[last:m[0]])
		last = m[1]
		group := func(i int) (string, bool) {
			if m[2*i] < 0 {
				return "", false
			}
			return content[m[2*i]:m[2*i+1]], true
		}
		if target, ok := group(1); ok {
			def, _ := group(2)
			value := all
			if target != "@" && target != "ARGUMENTS" {
				value, _ = arg(atoiSaturating(target))
			}
			if value == "" {
				value = def
			}
			b.WriteString(value)
			continue
		}
		if startText, ok := group(3); ok {
			start := max(atoiSaturating(startText)-1, 0)
			end := len(args)
			if lengthText, ok := group(4); ok {
				end = min(start+min(atoiSaturating(lengthText), len(args)), len(args))
			}
			if start >= len(args) || end <= start {
				continue
			}
			b.WriteString(strings.Join(args[start:end], " "))
			continue
		}
		simple, _ := group(5)
		if simple == "@" || simple == "ARGUMENTS" {
			b.WriteString(all)
			continue
		}
		v, _ := arg(atoiSaturating(simple))
		b.WriteString(v)
	}
	b.WriteString(content[last:])
	return b.String()
}

// atoiSaturating reads a run of digits; a number too large for an int is the largest int (it names no
// argument either way).
func atoiSaturating(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return int(^uint(0) >> 1)
	}
	return n
}
