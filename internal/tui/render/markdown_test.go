package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// markdownCorpus is what models write: prose, lists (tight, loose, nested, ordered), fences with blank
// lines inside, headings, quotes, rules, tables, HTML comments, CJK, long URLs.
var markdownCorpus = []string{
	"Hello *world*, this is a **short** answer with `inline code`.",
	"First paragraph that is long enough to wrap at forty columns for sure, yes.\n\nSecond paragraph.\n\nThird.",
	"## Plan\n\n1. Read the file\n2. Change it\n\n3. Test it\n\nDone.",
	"- one\n\n- two\n  continued\n\n  second paragraph of two\n- three\n\nAfter the list.",
	"- a\n  - nested\n    - deeper\n- b\n\n* star list\n\n+ plus list",
	"```go\nfunc main() {\n\tfmt.Println(\"hi\")\n\n\n\treturn\n}\n```\nText right after the fence.\n\n```\nplain\n```",
	"~~~python\ndef f():\n\n    return 1\n~~~\n\n````md\n```\nnested fence\n```\n````",
	"# Title\n\nIntro.\n\n### Sub\n\n> quoted line\n> continues\n\n> another quote\n\n---\n\nEnd.",
	"| col a | col b |\n|---|---|\n| 1 | 2 |\n| longer cell here | x |\n\nAfter table.",
	"<!-- a comment\n\nwith a blank line -->\n\nVisible text.",
	"日本語のテキストはスペースなしで長く続くのでラップされなければなりません。日本語のテキストはスペースなしで長く続く。\n\nok",
	"See https://example.com/a/very/long/url/that/does/not/fit/anywhere/at/all/in/any/terminal/width for details.",
	"    indented code\n    block\n\npara\n\n    more indented code",
	"Setext heading\n==============\n\nAnd another\n---\n\ntext",
	"1) paren list\n2) second\n\n10. ten\n11. eleven",
	"Trailing spaces  \nhard break\\\nanother\n\n\n\n\nmany blanks above",
	"- [ ] task\n- [x] done\n\nText with ~~strike~~ and [a link](https://example.com).",
	"Here is the code:\n```go\nfunc x() {}\n```\nand after it.",
	"- item\n```sh\nmake test\n```\n> quote\n```\nplain\n```",
	longCode(95, true),
	longCode(130, false),
}

// longCode is a fenced Go block of n lines (cut into chunks by the splitter), with blank lines inside
// when blanks is set. (Its last line is never blank: a whole document keeps a code block's trailing
// blank line, a block rendered alone loses it.)
func longCode(n int, blanks bool) string {
	var b strings.Builder
	b.WriteString("Intro:\n\n```go\n")
	for i := 0; i < n; i++ {
		if blanks && i%7 == 3 && i != n-1 {
			b.WriteString("\n")
			continue
		}
		b.WriteString("\tx := compute(" + itoa(i) + ") // step\n")
	}
	b.WriteString("```\n\nOutro.")
	return b.String()
}

func newTestMarkdown() *Markdown { return NewMarkdown(theme.Dark(termenv.ANSI256), theme.MarkdownText) }

// Rendering by blocks must give what rendering the whole document at once gives.
func TestMarkdownBlocksMatchWholeDocument(t *testing.T) {
	md := newTestMarkdown()
	for _, doc := range markdownCorpus {
		for _, w := range []int{30, 80, 120} {
			got := md.Render(doc, w)
			md.mu.Lock()
			want := md.render(doc, 0, w)
			md.mu.Unlock()
			if strings.Join(stripAll(got), "\n") != strings.Join(stripAll(want), "\n") {
				t.Errorf("width %d, doc %q:\nblocks:\n%s\nwhole:\n%s", w, doc,
					strings.Join(stripAll(got), "\n"), strings.Join(stripAll(want), "\n"))
			}
			assertFits(t, got, w)
		}
	}
}

func stripAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = ansi.Strip(l)
	}
	return out
}

func assertFits(t *testing.T, lines []string, width int) {
	t.Helper()
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d cells wide, limit %d: %q", i, w, width, l)
		}
	}
}
