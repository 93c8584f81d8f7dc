package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditDiffMatchesPi compares editDiffString with pi's generateDiffString (pi 0.73.1 with jsdiff
// 8) on the cases in testdata/pijs/editdiff.json (see gen.mjs): random line edits over a small
// alphabet, where Myers has many equally short answers and only jsdiff's tie-breaks pick one.
func TestEditDiffMatchesPi(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "pijs", "editdiff.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Old              string `json:"old"`
		New              string `json:"new"`
		Context          int    `json:"context"`
		Diff             string `json:"diff"`
		FirstChangedLine int    `json:"firstChangedLine"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("only %d cases", len(cases))
	}
	for i, c := range cases {
		diff, first := editDiffString(c.Old, c.New, c.Context)
		if diff != c.Diff || first != c.FirstChangedLine {
			t.Fatalf("case %d\nold %q\nnew %q\n got (%d)\n%s\nwant (%d)\n%s", i, c.Old, c.New, first, diff, c.FirstChangedLine, c.Diff)
		}
	}
}

func TestEditDiffFormat(t *testing.T) {
	old := strings.Join([]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"}, "\n")
	next := strings.Replace(old, "6", "six", 1)
	diff, first := editDiffString(old, next, editDiffContextLines)
	want := strings.Join([]string{
		"    ...",
		"  2 2",
		"  3 3",
		"  4 4",
		"  5 5",
		"- 6 6",
		"+ 6 six",
		"  7 7",
		"  8 8",
		"  9 9",
		" 10 10",
		"    ...",
	}, "\n")
	if diff != want || first != 6 {
		t.Errorf("diff (first %d)\n%s\nwant\n%s", first, diff, want)
	}
}
