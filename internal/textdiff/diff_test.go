package textdiff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatMatchesPi compares Format with pi's generateDiffString (pi 0.73.1 with jsdiff 8) on the
// cases in testdata/editdiff.json (made by internal/tools/testdata/pijs/gen.mjs): random line edits
// over a small alphabet, where Myers has many equally short answers and only jsdiff's tie-breaks
// pick one.
func TestFormatMatchesPi(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "editdiff.json"))
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
		diff, first := Format(c.Old, c.New, c.Context)
		if diff != c.Diff || first != c.FirstChangedLine {
			t.Fatalf("case %d\nold %q\nnew %q\n got (%d)\n%s\nwant (%d)\n%s", i, c.Old, c.New, first, diff, c.FirstChangedLine, c.Diff)
		}
	}
}

func TestFormatContext(t *testing.T) {
	old := strings.Join([]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"}, "\n")
	next := strings.Replace(old, "6", "six", 1)
	diff, first := Format(old, next, DefaultContext)
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
