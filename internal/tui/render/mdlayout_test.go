package render

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The paragraph that glamour v1.0.0 (pi-go's markdown renderer before its own) broke into "…(counts,
// the first lines," / "the" / "exit status), …" at 98 columns: it wrapped twice with two width
// functions, leaving a word alone on a line.
func TestParagraphHasNoOrphanWord(t *testing.T) {
	md := newTestMarkdown()
	text := "The result of ls -la is back. I'll say what it shows, key facts first (counts, the first lines, the exit status), then suggest something else to try."
	got := stripAll(md.Render(text, 98))
	want := []string{
		"The result of ls -la is back. I'll say what it shows, key facts first (counts, the first lines,",
		"the exit status), then suggest something else to try.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// mdToken is a word as written in markdown and as shown.
type mdToken struct{ src, shown string }

var mdVocabulary = []mdToken{
	{"the", "the"}, {"a", "a"}, {"of", "of"}, {"is", "is"}, {"result", "result"}, {"counts,", "counts,"},
	{"(first", "(first"}, {"lines),", "lines),"}, {"ls", "ls"}, {"-la", "-la"}, {"--verbose", "--verbose"},
	{"re-run", "re-run"}, {"a-b-c-d-e", "a-b-c-d-e"}, {"well-known,", "well-known,"}, {"x+y", "x+y"},
	{"internationalisation", "internationalisation"}, {"I'll", "I'll"}, {"key;", "key;"},
	{"`go-test`", "go-test"}, {"`x`", "x"}, {"**bold**", "bold"}, {"*it*", "it"}, {"_under_", "under"},
	{"~~gone~~", "gone"}, {"日本語", "日本語"}, {"テキスト。", "テキスト。"}, {"⚠️", "⚠️"}, {"😀ok", "😀ok"},
	{"café", "café"}, {"1.5", "1.5"}, {"foo/bar.go:12", "foo/bar.go:12"}, {"e.g.", "e.g."},
}

// randomProse is n tokens joined by spaces or (soft) line breaks; contLead is what starts a source
// continuation line (list indentation, quote marker). shown holds the words of each source line.
func randomProse(rng *rand.Rand, n int, contLead string) (src string, shown [][]string) {
	var b strings.Builder
	shown = [][]string{nil}
	for i := 0; i < n; i++ {
		tok := mdVocabulary[rng.Intn(len(mdVocabulary))]
		if i > 0 {
			if rng.Intn(8) == 0 && contLead != "-" {
				b.WriteString("\n" + contLead)
				shown = append(shown, nil)
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(tok.src)
		shown[len(shown)-1] = append(shown[len(shown)-1], tok.shown)
	}
	return b.String(), shown
}

// greedy is the reference word wrap: each line takes every next word that fits.
func greedy(words []string, width int) []string {
	var lines []string
	cur, curW := "", 0
	for _, w := range words {
		ww := ansi.StringWidth(w)
		switch {
		case cur == "":
			cur, curW = w, ww
		case curW+1+ww <= width:
			cur, curW = cur+" "+w, curW+1+ww
		default:
			lines = append(lines, cur)
			cur, curW = w, ww
		}
	}
	return append(lines, cur)
}

// Property: for random paragraphs, list items and quotes at random widths, every line fits, and each
// source line is laid out exactly as one greedy wrap at the width left by the prefix, continuation
// lines behind the prefix's hanging indent: no word is left alone on a line by a second wrap.
func TestProseWrapsOnceGreedily(t *testing.T) {
	md := newTestMarkdown()
	rng := rand.New(rand.NewSource(7))
	kinds := []struct {
		lead, contLead string // source
		first, hang    string // shown
	}{
		{"", "", "", ""},
		{"- ", "  ", "- ", "  "},
		{"12. ", "    ", "12. ", "    "},
		{"> ", "> ", "│ ", "│ "},
		{"- [ ] ", "  ", "- [ ] ", "      "},
		{"- x\n  - ", "    ", "    - ", "      "},
		{"### ", "", "", ""}, // the "### " is part of the heading's text
	}
	for iter := 0; iter < 600; iter++ {
		k := kinds[iter%len(kinds)]
		n := 1 + rng.Intn(60)
		contLead := k.contLead
		if k.lead == "### " {
			contLead = "-" // a heading is one line of source
		}
		src, srcLines := randomProse(rng, n, contLead)
		width := 8 + rng.Intn(130)
		lines := md.Render(k.lead+src, width)
		assertFits(t, lines, width)
		got := stripAll(lines)
		if k.lead == "### " {
			srcLines[0] = append([]string{"###"}, srcLines[0]...)
		}
		if strings.HasPrefix(k.lead, "- x\n") {
			if len(got) == 0 || got[0] != "- x" {
				t.Fatalf("nested list: first line %q", got)
			}
			got = got[1:]
		}
		avail := width - ansi.StringWidth(k.first)
		longest := 0
		var words []string
		for _, l := range srcLines {
			for _, w := range l {
				longest = max(longest, ansi.StringWidth(w))
			}
			words = append(words, l...)
		}
		var content []string
		for i, l := range got {
			p := k.hang
			if i == 0 {
				p = k.first
			}
			if !strings.HasPrefix(l, strings.TrimRight(p, " ")) {
				t.Fatalf("iter %d width %d: line %d %q does not start with %q\n%s", iter, width, i, l, p, strings.Join(got, "\n"))
			}
			content = append(content, strings.TrimPrefix(l, p))
		}
		if longest > avail {
			// Words are cut; only check nothing is lost.
			if j := strings.Join(content, ""); strings.ReplaceAll(j, " ", "") != strings.Join(words, "") {
				t.Fatalf("iter %d width %d: text lost: %q vs %q", iter, width, j, strings.Join(words, " "))
			}
			continue
		}
		var want []string
		for _, l := range srcLines {
			want = append(want, greedy(l, avail)...)
		}
		if strings.Join(content, "\n") != strings.Join(want, "\n") {
			t.Fatalf("iter %d width %d kind %q: layout differs from one greedy wrap\n--- got\n%s\n--- want\n%s\n--- source\n%s",
				iter, width, k.lead, strings.Join(content, "\n"), strings.Join(want, "\n"), src)
		}
	}
}

// Streaming random prose in random pieces gives what rendering it at once gives.
func TestStreamedProseEqualsWhole(t *testing.T) {
	md := newTestMarkdown()
	rng := rand.New(rand.NewSource(3))
	for iter := 0; iter < 12; iter++ {
		var doc strings.Builder
		for p := 0; p < 1+rng.Intn(5); p++ {
			src, _ := randomProse(rng, 5+rng.Intn(60), "  ")
			if p%3 == 1 {
				src = "- " + src
			}
			doc.WriteString(src + "\n\n")
		}
		text := doc.String()
		width := 20 + rng.Intn(100)
		want := md.Render(text, width)
		s := md.NewStream()
		var printed []string
		for i := 0; i < len(text); {
			i = min(i+1+rng.Intn(16), len(text))
			s.Set(text[:i])
			assertFits(t, s.Live(width), width)
			printed = append(printed, s.Flush(width)...)
		}
		s.Finish()
		printed = append(printed, s.Flush(width)...)
		if strings.Join(printed, "\n") != strings.Join(want, "\n") {
			t.Fatalf("iter %d width %d: streamed output differs\n--- streamed\n%s\n--- whole\n%s", iter, width,
				strings.Join(stripAll(printed), "\n"), strings.Join(stripAll(want), "\n"))
		}
	}
}

func TestMarkdownLineStructure(t *testing.T) {
	md := newTestMarkdown()
	cases := []struct {
		name, src string
		width     int
		want      []string
	}{
		{"line breaks, soft or hard, break", "one\ntwo  \nthree\\\nfour", 40, []string{"one", "two", "three", "four"}},
		{"a soft break in a list item hangs", "- one two\n  three four five six", 12, []string{"- one two", "  three four", "  five six"}},
		{"hard break in a list item hangs", "- one two three  \n  four five six seven", 12, []string{"- one two", "  three", "  four five", "  six seven"}},
		{"paragraphs of a list item, and a loose list's items, are apart", "- first\n\n  second para\n- next", 40,
			[]string{"- first", "", "  second para", "", "- next"}},
		{"a nested list is indented four columns a level", "1. one\n2. two\n   - sub a is long\n     - deeper", 40,
			[]string{"1. one", "2. two", "    - sub a is long", "        - deeper"}},
		{"under a two-digit number too", "10. ten\n    - sub", 40, []string{"10. ten", "    - sub"}},
		{"under a task item too", "- [ ] task\n  - sub", 40, []string{"- [ ] task", "    - sub"}},
		{"ordered items are numbered from the first", "3) three\n7) seven", 40, []string{"3. three", "4. seven"}},
		{"a paragraph followed by a list", "Steps:\n- one\n- two", 40, []string{"Steps:", "- one", "- two"}},
		{"quote continuation keeps the bar", "> aaa bbb ccc ddd", 9, []string{"│ aaa bbb", "│ ccc ddd"}},
		{"code span line break is a space", "a `b\nc` d", 40, []string{"a b c d"}},
		{"long word is cut", "x " + strings.Repeat("y", 25), 10, []string{"x", strings.Repeat("y", 10), strings.Repeat("y", 10), strings.Repeat("y", 5)}},
		// pi cuts a long code line at the width; pi-go breaks it between words (issue 16).
		{"code is wrapped between words", "```\naaa bbb ccc ddd eee\n```", 12, []string{"```", "  aaa bbb", "  ccc ddd", "  eee", "```"}},
		{"control characters are dropped", "red \x1b[31mred\x1b[0m \abell", 40, []string{"red red bell"}},
	}
	for _, c := range cases {
		got := stripAll(md.Render(c.src, c.width))
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// A table keeps its natural width when it fits and is shrunk, its cells wrapped, when it does not.
func TestMarkdownTableWidth(t *testing.T) {
	md := newTestMarkdown()
	src := "| name | value |\n|---|---|\n| alpha | " + strings.Repeat("long cell text ", 8) + "|"
	wide := stripAll(md.Render(src, 200))
	if w := ansi.StringWidth(wide[0]); w >= 150 {
		t.Fatalf("table at 200 columns is %d wide: stretched", w)
	}
	narrow := md.Render(src, 40)
	assertFits(t, narrow, 40)
	if len(narrow) <= len(wide) {
		t.Fatalf("narrow table not wrapped: %q", stripAll(narrow))
	}
}

func TestWordWrapKeepsStyles(t *testing.T) {
	s := "\x1b[1mbold words that wrap\x1b[0m plain"
	got := wordWrap(s, 10)
	for i, l := range got {
		if st := sgrStateAfter("", l); st != "" {
			t.Errorf("line %d leaves %q open: %q", i, st, l)
		}
	}
	if plain := stripAll(got); strings.Join(plain, "|") != "bold words|that wrap|plain" {
		t.Fatalf("wordWrap = %q", plain)
	}
	if !strings.HasPrefix(got[1], "\x1b[1m") {
		t.Fatalf("bold not reopened on the second line: %q", got[1])
	}
}
