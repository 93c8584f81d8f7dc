package render

import (
	"sort"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/syntax"
	"github.com/pi-go/pi-go/internal/syntax/syntaxtest"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Whatever the input, every language gives one line per source line, with the source's text, each
// line closing its styles.
func TestHighlightIsLossless(t *testing.T) {
	th := theme.Dark(termenv.ANSI256)
	inputs := syntaxtest.Samples()
	names := syntax.Languages()
	sort.Strings(names)
	for _, name := range names {
		for _, code := range inputs {
			spans, _ := syntax.Tokenize(code, name)
			lines := colourLines(th, code, spans)
			want := strings.Split(code, "\n")
			if len(lines) != len(want) {
				t.Fatalf("%s %q: %d lines, want %d", name, code, len(lines), len(want))
			}
			for i, l := range lines {
				if ansi.Strip(l) != want[i] {
					t.Fatalf("%s %q: line %d is %q, want %q", name, code, i, ansi.Strip(l), want[i])
				}
				if st := sgrStateAfter("", l); st != "" {
					t.Fatalf("%s %q: line %d leaves %q open", name, code, i, st)
				}
			}
		}
	}
}

// Code in a language without a lexer keeps pi's plain code-block colour; known languages are coloured.
func TestHighlightCodeColours(t *testing.T) {
	th := theme.Dark(termenv.ANSI256)
	plain := highlightCode(th, "some output\n", "text")
	if len(plain) != 2 || plain[0] != th.Fg(theme.MdCodeBlock, "some output") || plain[1] != "" {
		t.Fatalf("unknown language: %q", plain)
	}
	goLines := highlightCode(th, "func main() {}", "go")
	if !strings.Contains(goLines[0], th.FgSeq(theme.SyntaxKeyword)+"func") ||
		!strings.Contains(goLines[0], th.FgSeq(theme.SyntaxFunction)+"main") {
		t.Fatalf("go not coloured: %q", goLines[0])
	}
	if got := highlightCode(theme.Dark(termenv.Ascii), "func main() {}", "go"); got[0] != "func main() {}" {
		t.Fatalf("Ascii profile coloured: %q", got[0])
	}
}
