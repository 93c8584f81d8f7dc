package textdiff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		in   string
		want Line
	}{
		{"+12 added", Line{Kind: Added, Num: "12", Text: "added"}},
		{"- 7 removed", Line{Kind: Removed, Num: " 7", Text: "removed"}},
		{" 40 func main() {", Line{Kind: Context, Num: "40", Text: "func main() {"}},
		{"+ 3 \tindented", Line{Kind: Added, Num: " 3", Text: "\tindented"}},
		{"+3 ", Line{Kind: Added, Num: "3", Text: ""}},
		{"\t5\tctx", Line{Kind: Context, Num: "5", Text: "ctx"}},
		// The skipped-lines marker: the last padding space is the separator.
		{"    ...", Line{Kind: Context, Num: "  ", Text: "..."}},
		{"+12", Line{Text: "+12"}},
		{"+x no number", Line{Text: "+x no number"}},
		{"plain text", Line{Text: "plain text"}},
		{"", Line{}},
	}
	for _, tc := range tests {
		if got := ParseLine(tc.in); got != tc.want {
			t.Errorf("ParseLine(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// TestParseReadsFormat: every line Format writes parses back to its sign, its padded number and its
// text.
func TestParseReadsFormat(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "editdiff.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Old, New string
		Context  int
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	sign := map[Kind]string{Added: "+", Removed: "-", Context: " "}
	for i, c := range cases {
		diff, _ := Format(c.Old, c.New, c.Context)
		if diff == "" {
			continue
		}
		raw := strings.Split(diff, "\n")
		lines := Parse(diff + "\n")
		if len(lines) != len(raw) {
			t.Fatalf("case %d: %d lines parsed from %d", i, len(lines), len(raw))
		}
		for j, l := range lines {
			if l.Kind == Other || sign[l.Kind]+l.Num+" "+l.Text != raw[j] {
				t.Fatalf("case %d line %q parsed as %+v", i, raw[j], l)
			}
		}
	}
}

func TestChangedWords(t *testing.T) {
	mark := func(s string, sp Span) string {
		r := []rune(s)
		if sp.From >= sp.To {
			return s
		}
		return string(r[:sp.From]) + "[" + string(r[sp.From:sp.To]) + "]" + string(r[sp.To:])
	}
	tests := []struct{ old, new, wantOld, wantNew string }{
		{`return "hello"`, `return "hello, world"`, `return "hello"`, `return "hello[, world]"`},
		{"x := count + 1", "x := total + 1", "x := [count] + 1", "x := [total] + 1"},
		{"fooBar(1)", "fooBaz(1)", "[fooBar](1)", "[fooBaz](1)"},
		{"\tfmt.Println(greet())", "\tfmt.Println(greet(), 1)", "\tfmt.Println(greet())", "\tfmt.Println(greet()[, 1])"},
		{"    a", "  a", "    a", "  a"},
		{"same", "same", "same", "same"},
		{"héllo wörld", "héllo welt", "héllo [wörld]", "héllo [welt]"},
	}
	for _, tc := range tests {
		a, b := ChangedWords([]rune(tc.old), []rune(tc.new))
		if got := mark(tc.old, a); got != tc.wantOld {
			t.Errorf("%q -> %q: old marked %q, want %q", tc.old, tc.new, got, tc.wantOld)
		}
		if got := mark(tc.new, b); got != tc.wantNew {
			t.Errorf("%q -> %q: new marked %q, want %q", tc.old, tc.new, got, tc.wantNew)
		}
	}
}
