package textdiff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestPatchMatchesPi compares Patch with the unified patches pi 1.6.0's edit tool writes (jsdiff 8's
// createTwoFilesPatch, testdata/patch.json made by testdata/patch.mjs) for the cases of
// editdiff.json and a few more (missing final newlines, empty sides).
func TestPatchMatchesPi(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "patch.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Old     string `json:"old"`
		New     string `json:"new"`
		Context int    `json:"context"`
		Patch   string `json:"patch"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 400 {
		t.Fatalf("only %d cases", len(cases))
	}
	for i, c := range cases {
		if got := Patch("src/f.go", c.Old, c.New, c.Context); got != c.Patch {
			t.Errorf("case %d (%q → %q, context %d):\n got %q\nwant %q", i, c.Old, c.New, c.Context, got, c.Patch)
		}
	}
}
