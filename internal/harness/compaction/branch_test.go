package compaction

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

func ids(es []*session.Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func TestCollectBranchEntries(t *testing.T) {
	b := newBranch(t)
	u1 := b.user("one")
	a1 := b.assistant("a1", usage(1, 1, 0, 0))
	u2 := b.user("two")
	a2 := b.assistant("a2", usage(1, 1, 0, 0))
	if err := b.m.Branch(a1); err != nil {
		t.Fatal(err)
	}
	b.user("three")
	a3 := b.assistant("a3", usage(1, 1, 0, 0))

	got, common := CollectBranchEntries(b.m, a2, a3)
	if common != a1 || !reflect.DeepEqual(ids(got), []string{u2, a2}) {
		t.Errorf("a2 → a3: %v under %s", ids(got), common)
	}
	got, common = CollectBranchEntries(b.m, a2, a1)
	if common != a1 || !reflect.DeepEqual(ids(got), []string{u2, a2}) {
		t.Errorf("a2 → a1: %v under %s", ids(got), common)
	}
	got, common = CollectBranchEntries(b.m, a2, u1)
	if common != u1 || !reflect.DeepEqual(ids(got), []string{a1, u2, a2}) {
		t.Errorf("a2 → u1: %v under %s", ids(got), common)
	}
	if got, common = CollectBranchEntries(b.m, "", a3); got != nil || common != "" {
		t.Errorf("no old leaf: %v %q", got, common)
	}
	// A second root shares nothing with the first tree.
	b.m.ResetLeaf()
	r := b.user("new root")
	got, common = CollectBranchEntries(b.m, a2, r)
	if common != "" || !reflect.DeepEqual(ids(got), []string{u1, a1, u2, a2}) {
		t.Errorf("a2 → other root: %v under %q", ids(got), common)
	}
}

func TestPrepareBranchEntries(t *testing.T) {
	b := newBranch(t)
	b.m.AppendThinkingLevelChange(provider.ThinkingHigh)
	u := b.user("old " + words(100))
	b.compaction("compacted before", u, nil)
	if _, err := b.m.BranchWithSummary(b.m.LeafID(), "earlier branch "+words(50), Details{ReadFiles: []string{"old.md"}, ModifiedFiles: []string{"old.go"}}, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.m.BranchWithSummary(b.m.LeafID(), "hook branch", Details{ReadFiles: []string{"hook.md"}}, true, nil); err != nil {
		t.Fatal(err)
	}
	b.user("look " + words(100))
	b.toolCall("read", `{"path":"a.md"}`, words(5000)) // the result is skipped
	b.toolCall("write", `{"path":"b.go","content":"x"}`, "ok")
	b.assistant("done "+words(100), usage(1, 1, 0, 0))
	es := b.entries()

	all := PrepareBranchEntries(es, 0)
	want := []string{"user", "compactionSummary", "branchSummary", "branchSummary", "user", "assistant", "assistant", "assistant"}
	if got := roles(all.Messages); !reflect.DeepEqual(got, want) {
		t.Errorf("no budget: %v, want %v", got, want)
	}
	r, m := all.FileOps.Lists()
	if !reflect.DeepEqual(r, []string{"a.md", "old.md"}) || !reflect.DeepEqual(m, []string{"b.go", "old.go"}) {
		t.Errorf("files %v %v", r, m)
	}
	if all.TotalTokens <= 300 {
		t.Errorf("total %d", all.TotalTokens)
	}

	// Newest first: done 102, write call 9, read call 5, look 102 (218), hook summary 3 (221), earlier
	// summary 54 (275), compaction 4, old 102.
	some := PrepareBranchEntries(es, 219)
	if got := roles(some.Messages); !reflect.DeepEqual(got, []string{"user", "assistant", "assistant", "assistant"}) || some.TotalTokens != 218 {
		t.Errorf("budget 219: %v (%d tokens)", roles(some.Messages), some.TotalTokens)
	}
	// A summary that does not fit squeezes in while the total is under 90 % of the budget.
	some = PrepareBranchEntries(es, 240)
	if got := roles(some.Messages); !reflect.DeepEqual(got, []string{"branchSummary", "user", "assistant", "assistant", "assistant"}) || some.TotalTokens != 221 {
		t.Errorf("budget 240: %v (%d tokens)", roles(some.Messages), some.TotalTokens)
	}
	some = PrepareBranchEntries(es, 250)
	if got := roles(some.Messages); !reflect.DeepEqual(got, []string{"branchSummary", "branchSummary", "user", "assistant", "assistant", "assistant"}) || some.TotalTokens != 275 {
		t.Errorf("budget 250: %v (%d tokens)", roles(some.Messages), some.TotalTokens)
	}
	// File lists include the details of pi's summaries even beyond the budget.
	if r, _ := some.FileOps.Lists(); !reflect.DeepEqual(r, []string{"a.md", "old.md"}) {
		t.Errorf("files %v", r)
	}
}

func TestGenerateBranchSummary(t *testing.T) {
	b := newBranch(t)
	b.user("try the other approach")
	b.toolCall("edit", `{"path":"x.go"}`, "ok")
	b.assistant("it failed", usage(1, 1, 0, 0))
	st := &scriptedStream{answer: func(context.Context, *provider.Request) (string, string) { return "## Goal\nexplore", "" }}
	s := summarizer(st)
	m := *testModel
	m.Reasoning = true
	s.Model, s.ThinkingLevel = &m, provider.ThinkingHigh

	got, err := s.GenerateBranchSummary(context.Background(), b.entries(), BranchSummaryOptions{ReserveTokens: 16384})
	if err != nil {
		t.Fatal(err)
	}
	want := "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n## Goal\nexplore\n\n<modified-files>\nx.go\n</modified-files>"
	if got.Summary != want || !reflect.DeepEqual(got.ModifiedFiles, []string{"x.go"}) || got.ReadFiles == nil || len(got.ReadFiles) != 0 {
		t.Errorf("got %+v", got)
	}
	req := st.all()[0]
	wantPrompt := "<conversation>\n[User]: try the other approach\n\n[Assistant tool calls]: edit(path=\"x.go\")\n\n[Assistant]: it failed\n</conversation>\n\n" + branchSummaryPrompt
	if p := promptOf(t, req); p != wantPrompt {
		t.Errorf("prompt:\n%s", p)
	}
	// pi 1.6: a reasoning model summarises a branch with the session's level, up to its output limit.
	if req.Options.MaxTokens != 0 || req.Options.Reasoning != provider.ThinkingHigh || req.SystemPrompt != SystemPrompt || req.Options.APIKey != "test-key" {
		t.Errorf("options %+v", req.Options)
	}

	if _, err := s.GenerateBranchSummary(context.Background(), b.entries(), BranchSummaryOptions{CustomInstructions: "the edit"}); err != nil {
		t.Fatal(err)
	}
	if p := promptOf(t, st.all()[1]); !strings.HasSuffix(p, branchSummaryPrompt+"\n\nAdditional focus: the edit") {
		t.Errorf("focus: %q", p[len(p)-80:])
	}
	if _, err := s.GenerateBranchSummary(context.Background(), b.entries(), BranchSummaryOptions{CustomInstructions: "Only list files.", ReplaceInstructions: true}); err != nil {
		t.Fatal(err)
	}
	if p := promptOf(t, st.all()[2]); !strings.HasSuffix(p, "</conversation>\n\nOnly list files.") {
		t.Errorf("replace: %q", p)
	}
}

func TestGenerateBranchSummaryEdges(t *testing.T) {
	st := &scriptedStream{}
	s := summarizer(st)
	b := newBranch(t)
	b.m.AppendModelChange("test", "x")
	got, err := s.GenerateBranchSummary(context.Background(), b.entries(), BranchSummaryOptions{})
	if err != nil || got.Summary != "No content to summarize" || len(st.all()) != 0 {
		t.Errorf("nothing to summarise: %+v %v", got, err)
	}

	b.user("x")
	s.Stream = (&scriptedStream{answer: func(context.Context, *provider.Request) (string, string) { return "", "server down" }}).stream
	if _, err := s.GenerateBranchSummary(context.Background(), b.entries(), BranchSummaryOptions{}); err == nil || err.Error() != "Branch summarization failed: server down" {
		t.Errorf("got %v", err)
	}
	s.Stream = func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
		m := assistantMsg(provider.Usage{})
		m.StopReason = provider.StopReasonError
		return m
	}
	if _, err := s.GenerateBranchSummary(context.Background(), b.entries(), BranchSummaryOptions{}); err == nil || err.Error() != "Branch summarization failed: Unknown error" {
		t.Errorf("got %v", err)
	}

	// The budget is the model's window (128000 when unknown) minus the reserve.
	b.user(words(3000))
	var seen string
	s.Stream = func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
		seen = promptOf(t, req)
		return assistantMsg(provider.Usage{}, provider.TextContent("ok"))
	}
	m := *testModel
	m.ContextWindow = 0
	s.Model = &m
	if _, err := s.GenerateBranchSummary(context.Background(), b.entries(), BranchSummaryOptions{ReserveTokens: 128000 - 3500}); err != nil || !strings.Contains(seen, "[User]: x") {
		t.Errorf("a 3500-token budget takes both messages: %v", err)
	}
	seen = ""
	if _, err := s.GenerateBranchSummary(context.Background(), b.entries(), BranchSummaryOptions{ReserveTokens: 128000 - 3000}); err != nil || seen == "" || strings.Contains(seen, "[User]: x") {
		t.Errorf("a 3000-token budget takes only the newest message: %v", err)
	}
	seen = ""
	if got, err := s.GenerateBranchSummary(context.Background(), b.entries(), BranchSummaryOptions{ReserveTokens: 128000 - 2500}); err != nil || seen != "" || got.Summary != NoContentToSummarize {
		t.Errorf("a 2500-token budget takes nothing: %+v %v", got, err)
	}
}
