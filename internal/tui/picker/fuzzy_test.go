package picker

import (
	"slices"
	"testing"
)

func TestFuzzyScoreOrdersLikePi(t *testing.T) {
	items := []string{"model", "compact", "copy", "clone", "hotkeys"}
	if got := FuzzyFilter(items, "cop", func(s string) string { return s }); !slices.Equal(got, []string{"copy", "compact"}) {
		t.Fatalf("cop -> %q", got)
	}
	if _, ok := FuzzyScore("xyz", "model"); ok {
		t.Fatal("xyz matched model")
	}
	if _, ok := FuzzyScore("gpt4", "gpt-4o"); !ok {
		t.Fatal("gpt4 must match gpt-4o")
	}
	if _, ok := FuzzyScore("4gpt", "gpt-4o"); !ok {
		t.Fatal("digits-then-letters query must match swapped")
	}
	exact, _ := FuzzyScore("copy", "copy")
	partial, _ := FuzzyScore("copy", "copycat")
	if exact >= partial {
		t.Fatalf("exact %v must beat partial %v", exact, partial)
	}
}
