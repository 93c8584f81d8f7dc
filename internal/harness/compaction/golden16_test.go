package compaction

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"testing"
)

// golden16 is what pi 1.6.0's compaction code prepares, asks and answers for the cases of golden.json
// (testdata/golden/gen16.mjs; see its README): pi-go's cut points, summary requests and results
// follow 1.6, whose fixes 0.73.1 lacks (a summariser asked to summarise nothing, trailing tool results
// that kept everything, custom messages and branch summaries left out of the budget) and whose
// prompts differ (no thinking quoted, the turn prefix's own format, the model's output limit).
type golden16 struct {
	Estimates map[string]int `json:"estimates"`
	// Serialized is the main branch's conversation as 1.6's summary requests quote it.
	Serialized   string           `json:"serialized"`
	FindCutPoint []goldenCutPoint `json:"findCutPoint"`
	Compactions  []struct {
		Leaf     string          `json:"leaf"`
		Keep     int             `json:"keep"`
		Prep     *goldenPrep     `json:"prep"`
		Result   Result          `json:"result"`
		Requests []goldenRequest `json:"requests"`
	} `json:"compactions"`
	BranchSummaries []struct {
		Messages    int             `json:"messages"`
		TotalTokens int             `json:"totalTokens"`
		SameAs073   bool            `json:"sameAs073"`
		Result      BranchSummary   `json:"result"`
		Requests    []goldenRequest `json:"requests"`
	} `json:"branchSummaries"`
}

func loadGolden16(t *testing.T) *golden16 {
	t.Helper()
	data, err := os.ReadFile("testdata/golden/golden16.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden16
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

func TestGolden16Preparations(t *testing.T) {
	m, _ := loadGolden(t)
	g := loadGolden16(t)
	path := m.Path("")
	for _, c := range g.FindCutPoint {
		got := FindCutPoint(path, 0, len(path), c.Keep)
		if got.FirstKeptEntryIndex != c.FirstKeptEntryIndex || got.TurnStartIndex != c.TurnStartIndex || got.IsSplitTurn != c.IsSplitTurn {
			t.Errorf("keep %d: %+v, pi 1.6 %+v", c.Keep, got, c)
		}
	}
	index := map[string]int{}
	for i, e := range path {
		index[e.ID] = i
	}
	for _, c := range g.Compactions {
		what := "leaf " + c.Leaf + " keep " + strconv.Itoa(c.Keep)
		branch := path[:index[c.Leaf]+1]
		prep, err := prepare(branch, Settings{Enabled: true, ReserveTokens: 4000, KeepRecentTokens: c.Keep}, Limits{}, false)
		if c.Prep == nil {
			if !errors.Is(err, ErrNothingToCompact) && !errors.Is(err, ErrAlreadyCompacted) {
				t.Errorf("%s: pi 1.6 prepared nothing, got %+v %v", what, prep, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		if !c.Prep.matches(prep) {
			t.Errorf("%s: preparation differs from pi 1.6's\n got kept %s (%d) split %v tokens %d summarise %d prefix %v\n pi kept %s (%d) split %v tokens %d summarise %d prefix %v",
				what, prep.FirstKeptEntryID, index[prep.FirstKeptEntryID], prep.IsSplitTurn, prep.TokensBefore, len(prep.MessagesToSummarize), roles(prep.TurnPrefixMessages),
				c.Prep.FirstKeptEntryID, index[c.Prep.FirstKeptEntryID], c.Prep.IsSplitTurn, c.Prep.TokensBefore, len(c.Prep.Summarize), c.Prep.Prefix)
		}
	}
}
