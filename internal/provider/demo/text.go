package demo

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/lazyregexp"
)

// joinParagraphs joins the non-empty parts with blank lines.
func joinParagraphs(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n\n")
}

// quote is a user's words in curly quotes, on one line, cut at max runes.
func quote(s string, max int) string {
	return "“" + clip(strings.Join(strings.Fields(s), " "), max) + "”"
}

// clip cuts s to at most max runes, marking the cut with an ellipsis.
func clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	// The first max-1 characters, invalid bytes as U+FFFD (as []rune has them), without converting
	// all of s.
	n, end := 0, len(s)
	for i := range s {
		if n == max-1 {
			end = i
			break
		}
		n++
	}
	head := s[:end]
	if !utf8.ValidString(head) {
		head = string([]rune(head))
	}
	return strings.TrimRight(head, " ") + "…"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// codeList writes names as `a`, `b` and `c`.
func codeList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "`" + n + "`"
	}
	switch len(quoted) {
	case 0:
		return ""
	case 1:
		return quoted[0]
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1]
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

var reShellSafe = lazyregexp.New(`^[A-Za-z0-9_./~+-]+$`)

// shellQuote quotes a word for sh when it needs it.
func shellQuote(s string) string {
	if reShellSafe.MatchString(s) { // a leading ~ stays unquoted so the shell expands it
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fence wraps lines in a code block whose fence is longer than any backtick run inside.
func fence(lang string, lines []string) string {
	body := strings.Join(lines, "\n")
	ticks := 3
	for run, i := 0, 0; i < len(body); i++ {
		if body[i] == '`' {
			run++
			if run >= ticks {
				ticks = run + 1
			}
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", ticks)
	return f + lang + "\n" + body + "\n" + f
}

// formatSize writes a byte count as pi does (B, KB, MB with one decimal).
func formatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
}
