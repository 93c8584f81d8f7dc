package render

import (
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// pi's look, as plain text: the layout of every kind of block.
func TestMarkdownLooksLikePi(t *testing.T) {
	md := newTestMarkdown()
	cases := []struct {
		name, src string
		width     int
		want      []string
	}{
		{"headings: no marks on levels 1 and 2", "# One\n## Two\n### Three\n###### Six", 40,
			[]string{"One", "", "Two", "", "### Three", "", "###### Six"}},
		{"a long heading wraps without indent", "### a heading that is long", 12, []string{"### a", "heading that", "is long"}},
		{"code block between rules", "```go\nx := 1\n\ny := 2\n```", 40, []string{"```go", "  x := 1", "", "  y := 2", "```"}},
		{"indented code too", "    a\n    b", 40, []string{"```", "  a", "  b", "```"}},
		{"an unclosed fence runs to the end", "```sh\nls", 40, []string{"```sh", "  ls", "```"}},
		{"rule at most 80 wide", "---", 100, []string{strings.Repeat("─", 80)}},
		{"rule at the width", "***", 12, []string{strings.Repeat("─", 12)}},
		{"quote", "> one\n>\n> two", 40, []string{"│ one", "│", "│ two"}},
		{"nested quote", "> a\n> > b", 40, []string{"│ a", "│", "│ │ b"}},
		{"no room for the bar", "> abc", 2, []string{"ab", "c"}},
		{"link with other text", "see [docs](https://x.io/d) now", 80, []string{"see docs (https://x.io/d) now"}},
		{"link showing its URL", "[https://x.io](https://x.io)", 80, []string{"https://x.io"}},
		{"a URL in a link's text", "[see https://x.io/a](https://x.io/b)", 80, []string{"see https://x.io/a (https://x.io/b)"}},
		{"autolink and mail", "<https://x.io> and <me@x.io>", 80, []string{"https://x.io and me@x.io"}},
		{"image shows its alt text", "![a cat](cat.png)", 80, []string{"a cat"}},
		{"double tildes strike, single ones do not", "~~gone~~ ~kept~", 80, []string{"gone ~kept~"}},
		{"escapes and character references", `\*not em\* &amp; &#35; &copy; &bogus;`, 80, []string{"*not em* & # © &bogus;"}},
		{"HTML comments are hidden", "a <!-- c --> b\n\n<!-- block -->\n\nc", 80, []string{"a b", "", "c"}},
		{"an HTML block shows as text", "<div>\n<b>x</b>\n</div>", 80, []string{"<div>", "<b>x</b>", "</div>"}},
		{"table", "| a | bb |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |", 80,
			[]string{"┌───┬────┐", "│ a │ bb │", "├───┼────┤", "│ 1 │ 2  │", "├───┼────┤", "│ 3 │ 4  │", "└───┴────┘"}},
		{"table after paragraph lines", "Data:\n| a |\n|---|\n| 1 |", 80,
			[]string{"Data:", "", "┌───┐", "│ a │", "├───┤", "│ 1 │", "└───┘"}},
		{"table cells: escaped pipes, missing and extra cells", "| a | b |\n|---|---|\n| `x \\| y` |\n| 1 | 2 | 3 |", 80,
			[]string{"┌───────┬───┐", "│ a     │ b │", "├───────┼───┤", "│ x | y │   │", "├───────┼───┤", "│ 1     │ 2 │", "└───────┴───┘"}},
		{"a table too wide wraps its cells", "| name | text |\n|---|---|\n| x | one two three four |", 20,
			[]string{"┌──────┬───────────┐", "│ name │ text      │", "├──────┼───────────┤", "│ x    │ one two   │",
				"│      │ three     │", "│      │ four      │", "└──────┴───────────┘"}},
		{"a table with no room is shown as written", "| a | b |\n|---|---|\n| 1 | 2 |", 6,
			[]string{"| a |", "b |", "|---|-", "--|", "| 1 |", "2 |"}},
		{"not a table without pipes", "a\n---\nb", 40, []string{"a", "", "b"}},
		{"task items", "- [ ] open\n- [x] done\n* [X] also", 40, []string{"- [ ] open", "- [x] done", "- [x] also"}},
		{"loose list", "- a\n\n- b", 40, []string{"- a", "", "- b"}},
		{"code in a list item", "- run:\n  ```sh\n  make\n  ```", 40, []string{"- run:", "  ```sh", "    make", "  ```"}},
		{"CJK punctuation ends a bare URL", "見て https://x.io/a。次", 80, []string{"見て https://x.io/a。次"}},
	}
	for _, c := range cases {
		got := stripAll(md.Render(c.src, c.width))
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// The styles pi gives each part, in the theme's colours.
func TestMarkdownStyles(t *testing.T) {
	th := theme.Dark(termenv.ANSI256)
	md := NewMarkdown(th, theme.MarkdownText)
	fg := th.FgSeq
	has := func(name, src, want string) {
		t.Helper()
		if got := strings.Join(md.Render(src, 80), "\n"); !strings.Contains(got, want) {
			t.Errorf("%s: %q lacks %q", name, got, want)
		}
	}
	has("h1 bold and underlined", "# T", fg(theme.MdHeading)+"\x1b[1;4mT")
	has("h2 bold", "## T", fg(theme.MdHeading)+"\x1b[1mT")
	has("bold", "**b**", "\x1b[1mb")
	has("italic", "*i*", "\x1b[3mi")
	has("strike", "~~s~~", "\x1b[9ms")
	has("inline code", "`c`", fg(theme.MdCode)+"c")
	has("link text", "[l](u)", fg(theme.MdLink)+"\x1b[4ml")
	has("link URL", "[l](u)", fg(theme.MdLinkURL)+" (u)")
	has("a URL in a link's text is the link's text", "[see https://x.io](u)", fg(theme.MdLink)+"\x1b[4msee https://x.io"+theme.Reset)
	has("bare URL", "at https://x.io.", fg(theme.MdLink)+"\x1b[4mhttps://x.io"+theme.Reset+fg(theme.Text)+".")
	has("code rule", "```go\nx\n```", fg(theme.MdCodeBlockBorder)+"```go")
	has("unknown language", "```text\nx\n```", "  "+fg(theme.MdCodeBlock)+"x")
	has("quote bar", "> q", fg(theme.MdQuoteBorder)+"│")
	has("quote text", "> q", fg(theme.MdQuote)+"\x1b[3mq")
	has("list marker", "- x", fg(theme.MdListBullet)+"- ")
	has("task marker", "- [x] x", fg(theme.MdListBullet)+"- [x] ")
	has("rule", "---", fg(theme.MdHr)+"───")
	has("table header bold", "| h |\n|---|\n| c |", "\x1b[1mh")
	// Bold inside a link keeps the link's colour; the text after a span is back to plain.
	has("nesting", "[a **b** c](u) d", fg(theme.MdLink)+"\x1b[1;4mb"+theme.Reset+fg(theme.MdLink)+"\x1b[4m c"+theme.Reset)
	thinking := NewMarkdown(th, theme.MarkdownThinking)
	if got := strings.Join(thinking.Render("think **hard**", 80), ""); !strings.HasPrefix(got, fg(theme.ThinkingText)+"\x1b[3mthink ") ||
		!strings.Contains(got, fg(theme.ThinkingText)+"\x1b[1;3mhard") {
		t.Errorf("thinking style: %q", got)
	}
}

// Chunks of a long code block show one pair of rules around the whole block, streamed or not.
func TestLongCodeBlockHasOnePairOfRules(t *testing.T) {
	md := newTestMarkdown()
	doc := longCode(130, false)
	for _, lines := range [][]string{md.Render(doc, 80), func() []string {
		s := md.NewStream()
		var out []string
		for i := 0; i < len(doc); i += 97 {
			s.Set(doc[:i])
			out = append(out, s.Flush(80)...)
		}
		s.Set(doc)
		s.Finish()
		return append(out, s.Flush(80)...)
	}()} {
		plain := strings.Join(stripAll(lines), "\n")
		if strings.Count(plain, "```go") != 1 || strings.Count(plain, "```") != 2 {
			t.Fatalf("rules:\n%s", plain)
		}
	}
}

// While a code block streams, its tail is drawn plain between the rules, and a closing fence still
// arriving does not show as code.
func TestStreamingCodeTail(t *testing.T) {
	md := newTestMarkdown()
	s := md.NewStream()
	s.Set("Intro\n\n```py\nx = 1\n``")
	got := stripAll(s.TailLines(40))
	want := []string{"```py", "  x = 1", "```"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tail:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s.Set("Intro\n\n```py\nx = 1\n```\n")
	s.Finish()
	if got := strings.Join(stripAll(s.Lines(40)), "\n"); got != "Intro\n\n```py\n  x = 1\n```" {
		t.Fatalf("finished:\n%s", got)
	}
}

func TestFindURL(t *testing.T) {
	for s, want := range map[string]string{
		"see https://a.io/x_(y) now":    "https://a.io/x_(y)",
		"(https://a.io/x)":              "https://a.io/x",
		"end https://a.io/x.":           "https://a.io/x",
		"www.example.com/path?q=1,":     "www.example.com/path?q=1",
		"ftp://host/file":               "ftp://host/file",
		"mail a.b+c@ex.org.":            "a.b+c@ex.org",
		"nohttps://a.io":                "",
		"www.nodot":                     "",
		"user@host":                     "",
		"http://":                       "",
		"<http://a.io>":                 "http://a.io",
		"https://a.io/日本語 after":        "https://a.io/日本語",
		"https://a.io/x\"quoted\" text": "https://a.io/x\"quoted",
	} {
		got := ""
		if a, b := findURL(s); a >= 0 {
			got = s[a:b]
		}
		if got != want {
			t.Errorf("findURL(%q) = %q, want %q", s, got, want)
		}
	}
}
