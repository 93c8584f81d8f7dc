package render

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenWidths are the terminal widths every block is snapshotted at.
var goldenWidths = []int{80, 120}

// newGoldenRenderer renders with a fixed profile (256 colours, dark) and home directory, so goldens
// do not depend on the terminal the tests run in.
func newGoldenRenderer() *Renderer {
	return New(Options{Theme: theme.Dark(termenv.ANSI256), Home: "/home/user"})
}

type goldenCase struct {
	name   string
	render func(r *Renderer, width int) []string
}

// runGolden renders every case at every golden width, checks the styled lines fit the width, and
// compares their plain text (escape sequences stripped, trailing spaces trimmed) with
// testdata/<name>.w<width>.golden.
func runGolden(t *testing.T, cases []goldenCase) {
	t.Helper()
	r := newGoldenRenderer()
	for _, c := range cases {
		for _, w := range goldenWidths {
			t.Run(c.name+"/"+itoa(w), func(t *testing.T) {
				lines := c.render(r, w)
				assertFits(t, lines, w)
				assertClosed(t, lines)
				checkGolden(t, c.name+".w"+itoa(w), plain(lines))
			})
		}
	}
}

func plain(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight(ansi.Strip(l), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// assertClosed checks that no line leaves a style open for the next one.
func assertClosed(t *testing.T, lines []string) {
	t.Helper()
	for i, l := range lines {
		if st := sgrStateAfter("", l); st != "" {
			t.Errorf("line %d leaves SGR state %q open: %q", i, st, l)
		}
	}
}

func errorKey() theme.Key { return theme.Error }

func syntaxKeywordKey() theme.Key { return theme.SyntaxKeyword }
