package compaction

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

func settings(keep int) Settings {
	return Settings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: keep}
}

func roles(msgs []provider.Message) []string {
	out := []string{}
	for _, m := range msgs {
		out = append(out, m.Role())
	}
	return out
}

func TestPrepareNothingToDo(t *testing.T) {
	if _, err := Prepare(nil, DefaultSettings(), Limits{}); !errors.Is(err, ErrNothingToCompact) || err.Error() != "Nothing to compact (session too small)" {
		t.Errorf("empty branch: %v", err)
	}
	b := newBranch(t)
	u := b.user("hi")
	b.assistant("hello", usage(10, 5, 0, 0))
	b.compaction("sum", u, nil)
	if _, err := Prepare(b.entries(), DefaultSettings(), Limits{}); !errors.Is(err, ErrAlreadyCompacted) || err.Error() != "Already compacted" {
		t.Errorf("ends with a compaction: %v", err)
	}
}

func TestPrepareSmallSessionSummarisesNothing(t *testing.T) {
	// As in pi 1.6: a session within keepRecentTokens is kept whole, so there is nothing to compact
	// (0.73.1 sent the summariser an empty conversation).
	b := newBranch(t)
	b.m.AppendModelChange("test", "test-model")
	b.user("hi")
	b.assistant("hello", usage(10, 5, 0, 0))
	_, err := Prepare(b.entries(), DefaultSettings(), Limits{})
	if !errors.Is(err, ErrNothingToCompact) || !strings.HasPrefix(err.Error(), "Nothing to compact (session too small): ") {
		t.Errorf("got %v", err)
	}
}

func TestPrepareCutsBetweenTurns(t *testing.T) {
	b := newBranch(t)
	b.user("one " + words(1000))
	b.assistant("a1 "+words(1000), usage(1000, 1000, 0, 0))
	b.user("two " + words(1000))
	b.assistant("a2 "+words(1000), usage(3000, 1000, 0, 0))
	u3 := b.user("three " + words(600))
	b.assistant("a3 "+words(600), usage(5000, 600, 0, 0))
	b.user("tail") // after the last usage: estimated
	prep, err := Prepare(b.entries(), settings(1000), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if prep.FirstKeptEntryID != u3 || prep.FirstKeptEntryIndex != 4 || prep.IsSplitTurn || prep.KeptLatestRequest {
		t.Errorf("got %+v", prep)
	}
	if got := roles(prep.MessagesToSummarize); !reflect.DeepEqual(got, []string{"user", "assistant", "user", "assistant"}) {
		t.Errorf("summarised %v", got)
	}
	if len(prep.TurnPrefixMessages) != 0 || prep.PreviousSummary != "" {
		t.Errorf("got %+v", prep)
	}
	if prep.TokensBefore != 5600+1 {
		t.Errorf("tokensBefore %d, want the last usage plus the trailing estimate", prep.TokensBefore)
	}
}

func TestPrepareSplitTurn(t *testing.T) {
	b := newBranch(t)
	b.user("old " + words(500))
	b.assistant("old answer", usage(10, 10, 0, 0))
	u1 := b.user("build it") // 2
	b.assistant("step 1 "+words(1000), usage(10, 10, 0, 0))
	b.assistant("step 2 "+words(1000), usage(10, 10, 0, 0))
	a3 := b.assistant("step 3 "+words(1000), usage(10, 10, 0, 0)) // the cut
	b.user("thanks")
	b.assistant("welcome", usage(10, 10, 0, 0))
	es := b.entries()
	prep, err := Prepare(es, settings(1000), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if prep.FirstKeptEntryID != a3 || !prep.IsSplitTurn {
		t.Fatalf("got %+v", prep)
	}
	if got := roles(prep.MessagesToSummarize); !reflect.DeepEqual(got, []string{"user", "assistant"}) {
		t.Errorf("history %v", got)
	}
	if got := roles(prep.TurnPrefixMessages); !reflect.DeepEqual(got, []string{"user", "assistant", "assistant"}) {
		t.Errorf("turn prefix %v", got)
	}
	if u := prep.TurnPrefixMessages[0].(*provider.UserMessage); u.Content[0].Text != "build it" {
		t.Errorf("the prefix starts with the turn's request, got %q (%s)", u.Content[0].Text, u1)
	}
}

// longTurn builds a branch whose last user message is followed by a long run of tool calls.
func longTurn(t *testing.T) (b *branch, request string) {
	b = newBranch(t)
	b.user("earlier " + words(200))
	b.assistant("earlier answer", usage(100, 10, 0, 0))
	request = b.user("refactor the parser")
	for i := range 6 {
		b.toolCall("read", `{"path":"src/parser.go"}`, words(400+i))
	}
	b.assistant("done", usage(5000, 10, 0, 0))
	return b, request
}

func TestPrepareKeepsLatestRequest(t *testing.T) {
	b, request := longTurn(t)
	es := b.entries()
	// pi's cut falls inside the last turn: check that first.
	pi := FindCutPoint(es, 0, len(es), 1000)
	if !pi.IsSplitTurn || es[pi.TurnStartIndex].ID != request {
		t.Fatalf("the scenario must split the last turn: %+v", pi)
	}
	prep, err := Prepare(es, settings(1000), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if prep.FirstKeptEntryID != request || prep.IsSplitTurn || !prep.KeptLatestRequest || len(prep.TurnPrefixMessages) != 0 {
		t.Fatalf("got %+v, want the cut moved to the request", prep)
	}
	if got := roles(prep.MessagesToSummarize); !reflect.DeepEqual(got, []string{"user", "assistant"}) {
		t.Errorf("summarised %v", got)
	}
	// The rebuilt context keeps the request verbatim after the summary.
	if _, err := b.m.AppendCompaction("summary", prep.FirstKeptEntryID, prep.TokensBefore, nil, false, nil); err != nil {
		t.Fatal(err)
	}
	ctx, err := b.m.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := ctx.Messages[1].(*provider.UserMessage); !ok || u.Content[0].Text != "refactor the parser" {
		t.Errorf("second message of the context is %#v", ctx.Messages[1])
	}
}

func TestPrepareKeepsLatestRequestWithItsSettings(t *testing.T) {
	b := newBranch(t)
	b.user("earlier " + words(200))
	b.assistant("earlier answer", usage(100, 10, 0, 0))
	mc, _ := b.m.AppendModelChange("test", "bigger")
	b.user("now this")
	for range 4 {
		b.toolCall("bash", `{"command":"make"}`, words(500))
	}
	prep, err := Prepare(b.entries(), settings(1000), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if prep.FirstKeptEntryID != mc || prep.IsSplitTurn || !prep.KeptLatestRequest {
		t.Errorf("got %+v, want the cut at the model change before the request", prep)
	}
}

func TestPrepareLatestRequestThatCannotFit(t *testing.T) {
	b, request := longTurn(t)
	es := b.entries()
	s := Settings{Enabled: true, ReserveTokens: 1000, KeepRecentTokens: 1000}
	// The request's turn (about 2460 tokens) exceeds half of a 5000 window's usable 4000 tokens: pi's
	// split turn stands, and the request goes into the turn-prefix summary.
	prep, err := Prepare(es, s, Limits{ContextWindow: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if !prep.IsSplitTurn || prep.KeptLatestRequest || prep.TurnPrefixMessages[0].(*provider.UserMessage).Content[0].Text != "refactor the parser" {
		t.Errorf("got %+v", prep)
	}
	// A usable window of 5000 keeps up to 2500.
	prep, err = Prepare(es, s, Limits{ContextWindow: 6000})
	if err != nil {
		t.Fatal(err)
	}
	if !prep.KeptLatestRequest || prep.FirstKeptEntryID != request || prep.KeptTokens < 2400 {
		t.Errorf("got %+v", prep)
	}
	// With room in the window the request is kept.
	prep, err = Prepare(es, settings(1000), Limits{ContextWindow: 128000})
	if err != nil {
		t.Fatal(err)
	}
	if !prep.KeptLatestRequest || prep.FirstKeptEntryID != request {
		t.Errorf("got %+v", prep)
	}
}

func TestPrepareScalesSettingsToTheWindow(t *testing.T) {
	b, _ := longTurn(t)
	prep, err := Prepare(b.entries(), DefaultSettings(), Limits{ContextWindow: 8192})
	if err != nil {
		t.Fatal(err)
	}
	if prep.Settings.ReserveTokens != 2048 || prep.Settings.KeepRecentTokens != 2048 {
		t.Errorf("settings for an 8k window: %+v", prep.Settings)
	}
	// 20000 tokens kept verbatim would have summarised nothing of this 2700-token branch.
	if len(prep.MessagesToSummarize) == 0 || prep.KeptTokens > (8192-2048)/2 {
		t.Errorf("got %+v", prep)
	}
	if s := DefaultSettings().ForWindow(200000); s != DefaultSettings() {
		t.Errorf("a 200k window changes nothing: %+v", s)
	}
	if s := DefaultSettings().ForWindow(0); s != DefaultSettings() {
		t.Errorf("an unknown window changes nothing: %+v", s)
	}
	if !ShouldCompact(6200, 8192, DefaultSettings()) || ShouldCompact(6100, 8192, DefaultSettings()) {
		t.Error("the threshold of an 8k window is 8192 − 2048")
	}
}

func TestPrepareMovesTheCutUntilTheRestFits(t *testing.T) {
	b, _ := longTurn(t)
	es := b.entries()
	s := Settings{Enabled: true, ReserveTokens: 1000, KeepRecentTokens: 1000}
	// Window 6000: the request's turn (2460) would be kept, but with 3000 tokens of system prompt and
	// tools it leaves less than 1000 for the answer. The cut moves forward, into the turn.
	prep, err := Prepare(es, s, Limits{ContextWindow: 6000, Overhead: 3000})
	if err != nil {
		t.Fatal(err)
	}
	if prep.KeptLatestRequest || !prep.IsSplitTurn || prep.KeptTokens+3000 > 6000-1000 || len(prep.TurnPrefixMessages) == 0 {
		t.Errorf("got %+v", prep)
	}
	// With 5000 tokens of overhead not even the final answer fits: there is no cut to make.
	_, err = Prepare(es, s, Limits{ContextWindow: 6000, Overhead: 5000})
	var fit *FitError
	if !errors.As(err, &fit) || fit.Kept != EstimateTokens(mustMessage(t, es[len(es)-1])) || fit.ContextWindow != 6000 || fit.ReserveTokens != 1000 {
		t.Fatalf("got %v (%+v)", err, fit)
	}
	if !strings.Contains(err.Error(), "do not fit the model's context window of 6000 tokens") {
		t.Errorf("message: %v", err)
	}
}

func mustMessage(t *testing.T, e *session.Entry) provider.Message {
	t.Helper()
	m, err := e.Message()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPrepareMultipleCompactions(t *testing.T) {
	b := newBranch(t)
	b.user("u1 " + words(300))
	b.assistant("a1", usage(300, 10, 0, 0))
	u2 := b.user("u2 " + words(300))
	b.toolCall("edit", `{"path":"b.go","edits":[]}`, "ok")
	b.compaction("First summary", u2, Details{ReadFiles: []string{"a.go", "z.go"}, ModifiedFiles: []string{"m.go"}})
	b.user("u3 " + words(300))
	b.toolCall("read", `{"path":"c.go"}`, words(300))
	b.toolCall("write", `{"path":"a.go","content":"x"}`, "ok")
	u4 := b.user("u4 " + words(2000))
	b.assistant("a4", usage(9000, 10, 0, 0))
	es := b.entries()

	prep, err := Prepare(es, settings(1500), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if prep.PreviousSummary != "First summary" || prep.FirstKeptEntryID != u4 {
		t.Fatalf("got %+v", prep)
	}
	// From the previous compaction's first kept entry (u2) on, without the compaction entry itself.
	want := []string{"user", "assistant", "toolResult", "user", "assistant", "toolResult", "assistant", "toolResult"}
	if got := roles(prep.MessagesToSummarize); !reflect.DeepEqual(got, want) {
		t.Errorf("summarised %v, want %v", got, want)
	}
	readFiles, modifiedFiles := prep.FileOps.Lists()
	if !reflect.DeepEqual(readFiles, []string{"c.go", "z.go"}) || !reflect.DeepEqual(modifiedFiles, []string{"a.go", "b.go", "m.go"}) {
		t.Errorf("files: read %v modified %v", readFiles, modifiedFiles)
	}
	// tokensBefore: the context after the compaction (usage of the last answer).
	if prep.TokensBefore != 9010 {
		t.Errorf("tokensBefore %d", prep.TokensBefore)
	}
}

func TestPrepareIgnoresHookDetailsAndMissingKeptEntry(t *testing.T) {
	b := newBranch(t)
	b.user("u1")
	b.assistant("a1", usage(10, 10, 0, 0))
	if _, err := b.m.AppendCompaction("Hook summary", "gone", 100, Details{ReadFiles: []string{"hook.go"}, ModifiedFiles: []string{}}, true, nil); err != nil {
		t.Fatal(err)
	}
	b.user("u2 " + words(3000))
	b.assistant("a2", usage(10, 10, 0, 0))
	u := b.user("u3 " + words(3000))
	prep, err := Prepare(b.entries(), settings(1000), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// The first kept entry is not on the branch: the part after the compaction is considered.
	if prep.FirstKeptEntryID != u || !reflect.DeepEqual(roles(prep.MessagesToSummarize), []string{"user", "assistant"}) ||
		prep.PreviousSummary != "Hook summary" {
		t.Errorf("got %+v", prep)
	}
	if r, m := prep.FileOps.Lists(); len(r) != 0 || len(m) != 0 {
		t.Errorf("an extension's details are not carried over: %v %v", r, m)
	}
}

func TestPrepareCountsCustomAndSummaryEntries(t *testing.T) {
	b := newBranch(t)
	b.user("u1 " + words(100))
	b.assistant("a1", usage(10, 10, 0, 0))
	b.m.AppendCustomMessageEntry(&provider.CustomMessage{CustomType: "note", Content: []provider.Content{provider.TextContent("remember")}, ContentIsString: true})
	b.m.BranchWithSummary(b.m.LeafID(), "explored", nil, false, nil)
	b.m.AppendLabelChange(b.m.LeafID(), "mark")
	b.assistant("after the summary", usage(10, 10, 0, 0))
	u := b.user("u2 " + words(3000))
	b.assistant("a2", usage(10, 10, 0, 0))
	prep, err := Prepare(b.entries(), settings(1000), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if prep.FirstKeptEntryID != u {
		t.Errorf("kept from %s", prep.FirstKeptEntryID)
	}
	want := []string{"user", "assistant", "custom", "branchSummary", "assistant"}
	if got := roles(prep.MessagesToSummarize); !reflect.DeepEqual(got, want) {
		t.Errorf("summarised %v, want %v", got, want)
	}
}

func TestFileOpsLists(t *testing.T) {
	f := NewFileOps()
	f.AddMessage(assistantMsg(provider.Usage{},
		provider.ToolCallContent("1", "read", []byte(`{"path":"b.txt"}`)),
		provider.ToolCallContent("2", "read", []byte(`{"path":"a.txt"}`)),
		provider.ToolCallContent("3", "edit", []byte(`{"path":"a.txt"}`)),
		provider.ToolCallContent("4", "write", []byte(`{"path":"c.txt"}`)),
		provider.ToolCallContent("5", "read", []byte(`{"path":""}`)),
		provider.ToolCallContent("6", "read", []byte(`{"path":7}`)),
		provider.ToolCallContent("7", "bash", []byte(`{"path":"x.txt"}`)),
		provider.ToolCallContent("8", "read", []byte(`{"Path":"upper.txt"}`)),
		provider.ToolCallContent("9", "read", []byte(`{"path":"d1","path":"d2"}`)),
	))
	f.AddMessage(provider.NewUserMessage("read x"))
	r, m := f.Lists()
	if !reflect.DeepEqual(r, []string{"b.txt", "d2"}) || !reflect.DeepEqual(m, []string{"a.txt", "c.txt"}) {
		t.Errorf("read %v modified %v", r, m)
	}
	if got := FormatFileOperations(r, m); got != "\n\n<read-files>\nb.txt\nd2\n</read-files>\n\n<modified-files>\na.txt\nc.txt\n</modified-files>" {
		t.Errorf("format %q", got)
	}
	if got := FormatFileOperations(nil, []string{"x"}); got != "\n\n<modified-files>\nx\n</modified-files>" {
		t.Errorf("format %q", got)
	}
	if got := FormatFileOperations(nil, nil); got != "" {
		t.Errorf("format %q", got)
	}
	r, m = NewFileOps().Lists()
	if r == nil || m == nil {
		t.Error("lists are never nil")
	}
}

func TestPrepareKeepsEntriesBeforeTheCut(t *testing.T) {
	// The cut moves back over the entries just before it that do not reach the model (a thinking level
	// change), not over custom messages and branch summaries, which do (pi 1.6; 0.73.1 moved over
	// those too).
	b := newBranch(t)
	b.user("u1 " + words(100))
	b.assistant("a1", usage(10, 10, 0, 0))
	b.m.AppendCustomMessageEntry(&provider.CustomMessage{CustomType: "note", Content: []provider.Content{provider.TextContent("remember")}, ContentIsString: true})
	b.m.BranchWithSummary(b.m.LeafID(), "explored", nil, false, nil)
	tl, _ := b.m.AppendThinkingLevelChange("high")
	b.user("u2 " + words(3000))
	es := b.entries()
	prep, err := Prepare(es, settings(1000), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if prep.FirstKeptEntryID != tl {
		t.Errorf("kept from %s (%s)", prep.FirstKeptEntryID, es[prep.FirstKeptEntryIndex].Type)
	}
	// As in pi, a cut at a thinking change splits the turn before it, which the branch summary started.
	if got := roles(prep.MessagesToSummarize); !reflect.DeepEqual(got, []string{"user", "assistant", "custom"}) {
		t.Errorf("summarised %v", got)
	}
	if got := roles(prep.TurnPrefixMessages); !prep.IsSplitTurn || !reflect.DeepEqual(got, []string{"branchSummary"}) {
		t.Errorf("turn prefix %v", got)
	}
}
