package compaction

import (
	"errors"
	"reflect"
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
	if _, err := Prepare(nil, DefaultSettings(), 0); !errors.Is(err, ErrNothingToCompact) || err.Error() != "Nothing to compact (session too small)" {
		t.Errorf("empty branch: %v", err)
	}
	b := newBranch(t)
	u := b.user("hi")
	b.assistant("hello", usage(10, 5, 0, 0))
	b.compaction("sum", u, nil)
	if _, err := Prepare(b.entries(), DefaultSettings(), 0); !errors.Is(err, ErrAlreadyCompacted) || err.Error() != "Already compacted" {
		t.Errorf("ends with a compaction: %v", err)
	}
}

func TestPrepareSmallSessionSummarisesNothing(t *testing.T) {
	// As in pi: a session within keepRecentTokens is kept whole and the summary covers nothing.
	b := newBranch(t)
	b.m.AppendModelChange("test", "test-model")
	b.user("hi")
	b.assistant("hello", usage(10, 5, 0, 0))
	es := b.entries()
	prep, err := Prepare(es, DefaultSettings(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if prep.FirstKeptEntryID != es[0].ID || len(prep.MessagesToSummarize) != 0 || prep.IsSplitTurn || prep.TokensBefore != 15 {
		t.Errorf("got %+v", prep)
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
	prep, err := Prepare(b.entries(), settings(1000), 0)
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
	prep, err := Prepare(es, settings(1000), 0)
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
	prep, err := Prepare(es, settings(1000), 0)
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
	if _, err := b.m.AppendCompaction("summary", prep.FirstKeptEntryID, prep.TokensBefore, nil, false); err != nil {
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
	prep, err := Prepare(b.entries(), settings(1000), 0)
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
	// The request's turn (about 2400 tokens) exceeds half of a 16384+4000 window's usable 4000 tokens
	// (and keepRecentTokens): pi's split turn stands, and the request goes into the turn-prefix summary.
	prep, err := Prepare(es, settings(1000), 16384+4000)
	if err != nil {
		t.Fatal(err)
	}
	if !prep.IsSplitTurn || prep.KeptLatestRequest || prep.TurnPrefixMessages[0].(*provider.UserMessage).Content[0].Text != "refactor the parser" {
		t.Errorf("got %+v", prep)
	}
	_ = request
	// A usable window of 5000 keeps up to 2500.
	prep, err = Prepare(es, settings(1000), 16384+5000)
	if err != nil {
		t.Fatal(err)
	}
	if !prep.KeptLatestRequest {
		t.Errorf("got %+v", prep)
	}
	// So does a keepRecentTokens of 2500 with the smaller window (pi would keep as much anyway).
	prep, err = Prepare(es, settings(2500), 16384+4000)
	if err != nil {
		t.Fatal(err)
	}
	if prep.IsSplitTurn && !prep.KeptLatestRequest {
		t.Errorf("got %+v", prep)
	}
	// With room in the window the request is kept.
	prep, err = Prepare(es, settings(1000), 128000)
	if err != nil {
		t.Fatal(err)
	}
	if !prep.KeptLatestRequest || prep.FirstKeptEntryID != request {
		t.Errorf("got %+v", prep)
	}
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

	prep, err := Prepare(es, settings(1500), 0)
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
	if _, err := b.m.AppendCompaction("Hook summary", "gone", 100, Details{ReadFiles: []string{"hook.go"}, ModifiedFiles: []string{}}, true); err != nil {
		t.Fatal(err)
	}
	u := b.user("u2 " + words(3000))
	b.assistant("a2", usage(10, 10, 0, 0))
	prep, err := Prepare(b.entries(), settings(1000), 0)
	if err != nil {
		t.Fatal(err)
	}
	// The first kept entry is not on the branch: the part after the compaction is considered.
	if prep.FirstKeptEntryID != u || len(prep.MessagesToSummarize) != 0 || prep.PreviousSummary != "Hook summary" {
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
	b.m.BranchWithSummary(b.m.LeafID(), "explored", nil, false)
	b.m.AppendLabelChange(b.m.LeafID(), "mark")
	b.assistant("after the summary", usage(10, 10, 0, 0))
	u := b.user("u2 " + words(3000))
	b.assistant("a2", usage(10, 10, 0, 0))
	prep, err := Prepare(b.entries(), settings(1000), 0)
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
	// The cut moves back over custom message, branch summary and label entries just before it (pi).
	b := newBranch(t)
	b.user("u1 " + words(100))
	b.assistant("a1", usage(10, 10, 0, 0))
	cm, _ := b.m.AppendCustomMessageEntry(&provider.CustomMessage{CustomType: "note", Content: []provider.Content{provider.TextContent("remember")}, ContentIsString: true})
	b.m.BranchWithSummary(b.m.LeafID(), "explored", nil, false)
	b.user("u2 " + words(3000))
	es := b.entries()
	prep, err := Prepare(es, settings(1000), 0)
	if err != nil {
		t.Fatal(err)
	}
	if prep.FirstKeptEntryID != cm || es[prep.FirstKeptEntryIndex].Type != session.TypeCustomMessage {
		t.Errorf("kept from %s", prep.FirstKeptEntryID)
	}
	if got := roles(prep.MessagesToSummarize); !reflect.DeepEqual(got, []string{"user", "assistant"}) {
		t.Errorf("summarised %v", got)
	}
}
