package compaction

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// golden is what pi 0.73.1's own compaction code computed for testdata/golden/session.jsonl
// (testdata/golden/gen.mjs; see its README).
type golden struct {
	MainLeaf  string         `json:"mainLeaf"`
	SideLeaf  string         `json:"sideLeaf"`
	Estimates map[string]int `json:"estimates"`
	Context   struct {
		Count    int `json:"count"`
		Estimate struct {
			Tokens         int  `json:"tokens"`
			UsageTokens    int  `json:"usageTokens"`
			TrailingTokens int  `json:"trailingTokens"`
			LastUsageIndex *int `json:"lastUsageIndex"`
		} `json:"estimate"`
		Serialized string `json:"serialized"`
	} `json:"context"`
	FindCutPoint []goldenCutPoint `json:"findCutPoint"`
	Compactions  []struct {
		Leaf     string          `json:"leaf"`
		Keep     int             `json:"keep"`
		Prep     *goldenPrep     `json:"prep"`
		Result   Result          `json:"result"`
		Requests []goldenRequest `json:"requests"`
	} `json:"compactions"`
	BranchSummaries []struct {
		From             string          `json:"from"`
		Target           string          `json:"target"`
		ContextWindow    int             `json:"contextWindow"`
		CommonAncestorID *string         `json:"commonAncestorId"`
		Entries          []string        `json:"entries"`
		Result           BranchSummary   `json:"result"`
		Requests         []goldenRequest `json:"requests"`
	} `json:"branchSummaries"`
}

type goldenCutPoint struct {
	Keep                int  `json:"keep"`
	FirstKeptEntryIndex int  `json:"firstKeptEntryIndex"`
	TurnStartIndex      int  `json:"turnStartIndex"`
	IsSplitTurn         bool `json:"isSplitTurn"`
}

// goldenPrep is a preparation as the generators record it.
type goldenPrep struct {
	FirstKeptEntryID string   `json:"firstKeptEntryId"`
	IsSplitTurn      bool     `json:"isSplitTurn"`
	TokensBefore     int      `json:"tokensBefore"`
	PreviousSummary  string   `json:"previousSummary"`
	Summarize        []string `json:"summarize"`
	Prefix           []string `json:"prefix"`
	Files            Details  `json:"files"`
}

// matches reports whether prep is the recorded preparation.
func (g *goldenPrep) matches(prep *Preparation) bool {
	readFiles, modifiedFiles := prep.FileOps.Lists()
	return prep.FirstKeptEntryID == g.FirstKeptEntryID && prep.IsSplitTurn == g.IsSplitTurn &&
		prep.TokensBefore == g.TokensBefore && prep.PreviousSummary == g.PreviousSummary &&
		reflect.DeepEqual(roles(prep.MessagesToSummarize), g.Summarize) && reflect.DeepEqual(roles(prep.TurnPrefixMessages), g.Prefix) &&
		reflect.DeepEqual(readFiles, g.Files.ReadFiles) && reflect.DeepEqual(modifiedFiles, g.Files.ModifiedFiles)
}

type goldenRequest struct {
	SystemPromptSha string  `json:"systemPromptSha,omitempty"`
	PromptSha       string  `json:"promptSha"`
	MaxTokens       int     `json:"maxTokens"`
	Reasoning       *string `json:"reasoning"`
	Prompt          string  `json:"prompt,omitempty"`
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// loadGolden opens a copy of the golden session and reads what pi computed.
func loadGolden(t *testing.T) (*session.Manager, *golden) {
	t.Helper()
	data, err := os.ReadFile("testdata/golden/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("testdata/golden/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := session.Open(path, session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if w := m.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	return m, &g
}

// recordingStream answers like the generator's stand-in for pi-ai: "S<prompt length>".
func recordingStream() *scriptedStream {
	return &scriptedStream{answer: func(_ context.Context, req *provider.Request) (string, string) {
		return "S" + strconv.Itoa(jsLen(promptOfReq(req))), ""
	}}
}

func promptOfReq(req *provider.Request) string {
	return req.Messages[0].(*provider.UserMessage).Content[0].Text
}

// checkRequests compares requests as a multiset (parallel summaries arrive in any order).
func checkRequests(t *testing.T, what string, got []*provider.Request, want []goldenRequest) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d requests, pi sent %d", what, len(got), len(want))
		return
	}
	want = append([]goldenRequest(nil), want...)
	sort.Slice(want, func(i, j int) bool { return want[i].PromptSha < want[j].PromptSha })
	got = append([]*provider.Request(nil), got...)
	sort.Slice(got, func(i, j int) bool { return sha(promptOfReq(got[i])) < sha(promptOfReq(got[j])) })
	for i, w := range want {
		g := got[i]
		p := promptOfReq(g)
		if w.Prompt != "" && p != w.Prompt {
			t.Errorf("%s: prompt differs from pi's:\n got %q\nwant %q", what, p, w.Prompt)
		} else if sha(p) != w.PromptSha {
			t.Errorf("%s: prompt %d differs from pi's (sha)", what, i)
		}
		if w.SystemPromptSha != "" && sha(g.SystemPrompt) != w.SystemPromptSha {
			t.Errorf("%s: system prompt differs", what)
		}
		reasoning := ""
		if w.Reasoning != nil {
			reasoning = *w.Reasoning
		}
		if g.Options.MaxTokens != w.MaxTokens || string(g.Options.Reasoning) != reasoning || g.Options.APIKey != "key" {
			t.Errorf("%s: options %+v, pi: maxTokens %d reasoning %q", what, g.Options, w.MaxTokens, reasoning)
		}
	}
}

func TestGoldenTokensAndSerialization(t *testing.T) {
	m, g := loadGolden(t)
	// The per-message estimates are pi 1.6's (user images count; 0.73.1 left them out).
	g16 := loadGolden16(t)
	n := 0
	for _, e := range m.Entries() {
		want, ok := g16.Estimates[e.ID]
		if !ok {
			continue
		}
		msg, err := e.Message()
		if err != nil {
			t.Fatal(err)
		}
		if got := EstimateTokens(msg); got != want {
			t.Errorf("entry %s (%s): estimate %d, pi %d", e.ID, e.Role, got, want)
		}
		n++
	}
	if n != len(g.Estimates) || n < 250 {
		t.Errorf("compared %d of %d estimates", n, len(g.Estimates))
	}
	if m.LeafID() != g.MainLeaf {
		t.Fatalf("leaf %s, want %s", m.LeafID(), g.MainLeaf)
	}
	ctx, err := m.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx.Messages) != g.Context.Count {
		t.Errorf("context of %d messages, pi %d", len(ctx.Messages), g.Context.Count)
	}
	est := EstimateContextTokens(ctx.Messages)
	wantIdx := -1
	if g.Context.Estimate.LastUsageIndex != nil {
		wantIdx = *g.Context.Estimate.LastUsageIndex
	}
	if est.Tokens != g.Context.Estimate.Tokens || est.UsageTokens != g.Context.Estimate.UsageTokens ||
		est.TrailingTokens != g.Context.Estimate.TrailingTokens || est.LastUsageIndex != wantIdx {
		t.Errorf("context estimate %+v, pi %+v", est, g.Context.Estimate)
	}
	if got := serializeConversation(convert(ctx.Messages)); got != g16.Serialized {
		t.Errorf("serialised conversation differs from pi 1.6's (%d vs %d bytes)", len(got), len(g16.Serialized))
		for i := 0; i < len(got) && i < len(g16.Serialized); i++ {
			if got[i] != g16.Serialized[i] {
				lo := max(0, i-80)
				t.Errorf("first difference at %d:\n got %q\nwant %q", i, got[lo:min(len(got), i+80)], g16.Serialized[lo:min(len(g16.Serialized), i+80)])
				break
			}
		}
	}
	// Cut points: TestGolden16Preparations compares them with pi 1.6's.
}

func TestGoldenCompactions(t *testing.T) {
	m, g := loadGolden(t)
	path := m.Path("")
	index := map[string]int{}
	for i, e := range path {
		index[e.ID] = i
	}
	model := *testModel
	model.Reasoning = true
	moved := 0
	defer func() {
		if moved == 0 {
			t.Error("no case exercised keeping the latest request")
		}
	}()
	g16 := loadGolden16(t)
	if len(g16.Compactions) != len(g.Compactions) {
		t.Fatalf("%d cases for pi 1.6, %d for 0.73.1", len(g16.Compactions), len(g.Compactions))
	}
	for _, c := range g16.Compactions {
		what := "leaf " + c.Leaf + " keep " + strconv.Itoa(c.Keep)
		i, ok := index[c.Leaf]
		if !ok {
			t.Fatalf("%s: leaf not on the branch", what)
		}
		branch := path[:i+1]
		settings := Settings{Enabled: true, ReserveTokens: 4000, KeepRecentTokens: c.Keep}
		prep, err := prepare(branch, settings, Limits{}, false)
		if c.Prep == nil {
			if !errors.Is(err, ErrAlreadyCompacted) && !errors.Is(err, ErrNothingToCompact) {
				t.Errorf("%s: pi prepared nothing, got %+v %v", what, prep, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !c.Prep.matches(prep) {
			readFiles, modifiedFiles := prep.FileOps.Lists()
			t.Errorf("%s: preparation differs from pi's\n got kept %s split %v tokens %d summarise %v prefix %v files %v %v\n pi %+v",
				what, prep.FirstKeptEntryID, prep.IsSplitTurn, prep.TokensBefore, roles(prep.MessagesToSummarize), roles(prep.TurnPrefixMessages), readFiles, modifiedFiles, *c.Prep)
			continue
		}

		st := recordingStream()
		s := Summarizer{Stream: st.stream, Model: &model, APIKey: "key", ThinkingLevel: provider.ThinkingMedium, ConvertToLLM: convert}
		custom := ""
		if c.Keep == 2000 {
			custom = "keep the tests green"
		}
		res, err := s.Summarize(context.Background(), prep, custom)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		res.Usage = provider.Usage{} // pi 0.73.1's results have no usage (1.6 added it)
		if !reflect.DeepEqual(res, c.Result) {
			t.Errorf("%s: result\n got %+v\n pi  %+v", what, res, c.Result)
		}
		checkRequests(t, what, st.all(), c.Requests)

		// pi-go's Prepare differs only where pi would summarise the latest request away.
		ours, err := Prepare(branch, settings, Limits{})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		lastUser := -1
		for j := len(branch) - 1; j >= 0; j-- {
			if branch[j].Type == session.TypeMessage && branch[j].Role == provider.RoleUser {
				lastUser = j
				break
			}
		}
		piCut := index[c.Prep.FirstKeptEntryID]
		switch {
		case ours.KeptLatestRequest:
			moved++
			if piCut <= lastUser || ours.FirstKeptEntryIndex > lastUser || ours.IsSplitTurn {
				t.Errorf("%s: moved the cut from %d to %d (last user message %d)", what, piCut, ours.FirstKeptEntryIndex, lastUser)
			}
		case ours.FirstKeptEntryID != c.Prep.FirstKeptEntryID:
			t.Errorf("%s: Prepare cut at %s, pi at %s", what, ours.FirstKeptEntryID, c.Prep.FirstKeptEntryID)
		case piCut > lastUser && lastUser >= boundaryOf(branch):
			t.Errorf("%s: pi's cut %d is after the last user message %d, and the cut was not moved", what, piCut, lastUser)
		}
	}
}

// boundaryOf is where a branch's compactable part starts (after the latest compaction's kept start).
func boundaryOf(branch []*session.Entry) int {
	c := lastCompactionIndex(branch)
	if c < 0 {
		return 0
	}
	for i, e := range branch {
		if e.ID == branch[c].FirstKeptEntryID {
			return i
		}
	}
	return c + 1
}

func TestGoldenBranchSummaries(t *testing.T) {
	m, g := loadGolden(t)
	g16 := loadGolden16(t)
	if len(g16.BranchSummaries) != len(g.BranchSummaries) {
		t.Fatalf("%d branch summaries for pi 1.6, %d for 0.73.1", len(g16.BranchSummaries), len(g.BranchSummaries))
	}
	for k, b := range g.BranchSummaries {
		what := b.From + " → " + b.Target + " window " + strconv.Itoa(b.ContextWindow)
		entries, common := CollectBranchEntries(m, b.From, b.Target)
		window := b.ContextWindow
		if window == 0 {
			window = 128000
		}
		b16 := g16.BranchSummaries[k]
		if prep := PrepareBranchEntries(entries, window-1000); len(prep.Messages) != b16.Messages || prep.TotalTokens != b16.TotalTokens {
			t.Errorf("%s: %d messages (%d tokens) fit, pi 1.6: %d (%d)", what, len(prep.Messages), prep.TotalTokens, b16.Messages, b16.TotalTokens)
		}
		wantCommon := ""
		if b.CommonAncestorID != nil {
			wantCommon = *b.CommonAncestorID
		}
		if common != wantCommon || !reflect.DeepEqual(ids(entries), b.Entries) {
			t.Errorf("%s: entries %v under %q, pi %v under %q", what, ids(entries), common, b.Entries, wantCommon)
			continue
		}
		model := *testModel
		model.Reasoning = true
		model.ContextWindow = b.ContextWindow
		st := recordingStream()
		s := Summarizer{Stream: st.stream, Model: &model, APIKey: "key", ThinkingLevel: provider.ThinkingHigh, ConvertToLLM: convert}
		opts := BranchSummaryOptions{ReserveTokens: 1000}
		if b.ContextWindow != 0 {
			opts.CustomInstructions = "focus on files"
		}
		res, err := s.GenerateBranchSummary(context.Background(), entries, opts)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if res.Usage == nil {
			t.Errorf("%s: no usage for the summary request", what)
		}
		res.Usage = nil // the fixture's result has none (pi writes it into the entry)
		if !reflect.DeepEqual(res, b16.Result) {
			t.Errorf("%s: result\n got %+v\n pi  %+v", what, res, b16.Result)
		}
		checkRequests(t, what, st.all(), b16.Requests)
	}
}
