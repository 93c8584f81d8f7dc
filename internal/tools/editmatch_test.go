package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestEditMatchingMatchesPi runs pi's normalizeForFuzzyMatch and applyEditsToNormalizedContent cases
// (testdata/pijs/editapply.json, produced by pi 0.73.1's edit-diff.js) through the Go versions.
func TestEditMatchingMatchesPi(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "pijs", "editapply.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Normalize []struct {
			Text       string `json:"text"`
			Normalized string `json:"normalized"`
		} `json:"normalize"`
		Apply []struct {
			Content string            `json:"content"`
			Edits   []EditReplacement `json:"edits"`
			Result  struct {
				OK *struct {
					BaseContent string `json:"baseContent"`
					NewContent  string `json:"newContent"`
				} `json:"ok"`
				Error string `json:"error"`
			} `json:"result"`
		} `json:"apply"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Normalize) == 0 || len(golden.Apply) == 0 {
		t.Fatal("empty golden file")
	}
	for _, c := range golden.Normalize {
		if got := editFuzzyNormalize(c.Text); got != c.Normalized {
			t.Errorf("editFuzzyNormalize(%q) = %q, pi says %q", c.Text, got, c.Normalized)
		}
	}
	for i, c := range golden.Apply {
		base, next, err := editApply(c.Content, c.Edits, "f.txt")
		switch {
		case c.Result.Error != "":
			if err == nil || err.Error() != c.Result.Error {
				t.Errorf("case %d (%q, %+v): error %v, pi says %q", i, c.Content, c.Edits, err, c.Result.Error)
			}
		case err != nil:
			t.Errorf("case %d (%q, %+v): %v", i, c.Content, c.Edits, err)
		case base != c.Result.OK.BaseContent || next != c.Result.OK.NewContent:
			t.Errorf("case %d (%q, %+v):\n got %q -> %q\nwant %q -> %q", i, c.Content, c.Edits, base, next, c.Result.OK.BaseContent, c.Result.OK.NewContent)
		}
	}
}

func TestEditLineEndings(t *testing.T) {
	for in, want := range map[string]string{"a\r\nb\nc": "\r\n", "a\nb\r\nc": "\n", "abc": "\n", "a\rb\n": "\n", "\r\n": "\r\n"} {
		if got := editDetectLineEnding(in); got != want {
			t.Errorf("editDetectLineEnding(%q) = %q, want %q", in, got, want)
		}
	}
	if got := editNormalizeToLF("a\r\nb\rc\n"); got != "a\nb\nc\n" {
		t.Errorf("editNormalizeToLF: %q", got)
	}
	if got := editRestoreLineEndings("a\nb\n", "\r\n"); got != "a\r\nb\r\n" {
		t.Errorf("editRestoreLineEndings: %q", got)
	}
}
