package compaction

import (
	"fmt"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

func roleAt(entries []*session.Entry, i int) string {
	if entries[i].Type != session.TypeMessage {
		return entries[i].Type
	}
	return entries[i].Role
}

func TestFindCutPointLandsOnUserOrAssistant(t *testing.T) {
	b := newBranch(t)
	for i := range 10 {
		b.user(fmt.Sprintf("User %d", i))
		b.assistant(fmt.Sprintf("Assistant %d", i), usage(0, 100, (i+1)*1000, 0))
	}
	es := b.entries()
	cut := FindCutPoint(es, 0, len(es), 2500)
	if r := roleAt(es, cut.FirstKeptEntryIndex); r != provider.RoleUser && r != provider.RoleAssistant {
		t.Errorf("cut at %s", r)
	}
	// Every message is tiny: the budget is never reached and everything is kept.
	if cut.FirstKeptEntryIndex != 0 || cut.IsSplitTurn {
		t.Errorf("got %+v, want everything kept", cut)
	}
}

func TestFindCutPointNoCutPoints(t *testing.T) {
	b := newBranch(t)
	b.assistant("a", usage(0, 0, 0, 0))
	es := b.entries()
	if cut := FindCutPoint(es, 0, len(es), 1000); cut.FirstKeptEntryIndex != 0 {
		t.Errorf("got %+v", cut)
	}

	// Only tool results in range: the cut is the start of the range.
	b = newBranch(t)
	b.user("go")
	b.toolCall("bash", `{"command":"ls"}`, words(50))
	b.add(&provider.ToolResultMessage{ToolCallID: "x", ToolName: "bash", Content: []provider.Content{provider.TextContent(words(50))}})
	es = b.entries()
	if cut := FindCutPoint(es, 2, len(es), 10); cut.FirstKeptEntryIndex != 2 || cut.IsSplitTurn || cut.TurnStartIndex != -1 {
		t.Errorf("got %+v, want the start 2", cut)
	}
}

func TestFindCutPointKeepsEverythingWithinBudget(t *testing.T) {
	b := newBranch(t)
	b.user("1")
	b.assistant("a", usage(0, 50, 500, 0))
	b.user("2")
	b.assistant("b", usage(0, 50, 1000, 0))
	es := b.entries()
	if cut := FindCutPoint(es, 0, len(es), 50000); cut.FirstKeptEntryIndex != 0 {
		t.Errorf("got %+v", cut)
	}
}

func TestFindCutPointSplitTurn(t *testing.T) {
	b := newBranch(t)
	b.user("Turn 1")
	b.assistant("A1", usage(0, 100, 1000, 0))
	b.user("Turn 2")                                         // 2
	b.assistant("A2-1 "+words(1000), usage(0, 100, 5000, 0)) // 3
	b.assistant("A2-2 "+words(1000), usage(0, 100, 8000, 0)) // 4
	b.assistant("A2-3 "+words(1000), usage(0, 100, 10000, 0))
	es := b.entries()
	cut := FindCutPoint(es, 0, len(es), 1500)
	if cut.FirstKeptEntryIndex != 4 || !cut.IsSplitTurn || cut.TurnStartIndex != 2 {
		t.Errorf("got %+v, want a cut at 4 splitting the turn started at 2", cut)
	}
	if FindTurnStartIndex(es, 4, 3) != -1 {
		t.Error("a turn start before the range is not found")
	}
}

func TestFindCutPointNeverCutsAtToolResult(t *testing.T) {
	b := newBranch(t)
	b.user("old " + words(100))
	b.assistant("old answer", usage(0, 10, 0, 0))
	b.user("read it")                                                     // 2
	call, result := b.toolCall("read", `{"path":"big.txt"}`, words(2000)) // 3, 4
	final := b.assistant("done", usage(0, 10, 0, 0))                      // 5
	es := b.entries()
	_, _ = call, result
	cut := FindCutPoint(es, 0, len(es), 1000)
	// The budget is reached at the tool result; the next cut point is the final answer.
	if es[cut.FirstKeptEntryIndex].ID != final || !cut.IsSplitTurn || cut.TurnStartIndex != 2 {
		t.Errorf("got %+v (%s)", cut, roleAt(es, cut.FirstKeptEntryIndex))
	}
}

func TestFindCutPointNoCutPointAfterBudget(t *testing.T) {
	// As in pi 1.6: when no cut point follows the entry where the budget is reached (a tool result
	// larger than the budget), the cut keeps the assistant message that called the tool, not everything
	// (0.73.1 kept everything, and an overflow compaction re-sent the whole context).
	b := newBranch(t)
	b.user("old " + words(3000))
	b.assistant("old answer", usage(0, 10, 0, 0))
	b.user("read it")                                                // 2
	call, _ := b.toolCall("read", `{"path":"big.txt"}`, words(2000)) // 3, 4
	es := b.entries()
	cut := FindCutPoint(es, 0, len(es), 1000)
	if es[cut.FirstKeptEntryIndex].ID != call || !cut.IsSplitTurn || cut.TurnStartIndex != 2 {
		t.Errorf("got %+v (%s)", cut, roleAt(es, cut.FirstKeptEntryIndex))
	}
}

func TestFindCutPointCountsCustomMessages(t *testing.T) {
	// pi 1.6 counts every entry that reaches the model, custom messages included, toward the budget.
	b := newBranch(t)
	b.user("one " + words(100))
	b.assistant("a1", usage(0, 10, 0, 0))
	b.user("two")
	note, err := b.m.AppendCustomMessageEntry(&provider.CustomMessage{CustomType: "note", Display: true,
		Content: []provider.Content{provider.TextContent(words(2000))}, Timestamp: provider.Now()})
	if err != nil {
		t.Fatal(err)
	}
	b.assistant("a2", usage(0, 10, 0, 0))
	es := b.entries()
	cut := FindCutPoint(es, 0, len(es), 1000)
	if es[cut.FirstKeptEntryIndex].ID != note || cut.IsSplitTurn {
		t.Errorf("got %+v (%s), want the cut at the custom message, which starts a turn", cut, roleAt(es, cut.FirstKeptEntryIndex))
	}
}

func TestFindCutPointIncludesPrecedingSettingsEntries(t *testing.T) {
	b := newBranch(t)
	b.user("first " + words(2000))
	b.assistant("answer "+words(2000), usage(0, 10, 0, 0))
	b.assistant("more "+words(2000), usage(0, 10, 0, 0))
	mc, _ := b.m.AppendModelChange("test", "other")
	b.m.AppendThinkingLevelChange(provider.ThinkingHigh)
	u := b.user("second " + words(2000)) // the budget is reached here
	b.assistant("reply", usage(0, 10, 0, 0))
	es := b.entries()
	cut := FindCutPoint(es, 0, len(es), 1500)
	if es[cut.FirstKeptEntryIndex].ID != mc {
		t.Fatalf("cut at %s, want the model change before the user message %s", roleAt(es, cut.FirstKeptEntryIndex), u)
	}
	// pi's quirk, kept: the cut entry is not a user message, so the previous turn counts as split.
	if !cut.IsSplitTurn || cut.TurnStartIndex != 0 {
		t.Errorf("got %+v", cut)
	}
}

func TestFindCutPointStopsAtCompaction(t *testing.T) {
	b := newBranch(t)
	u := b.user("x")
	b.compaction("sum", u, nil)
	b.m.AppendThinkingLevelChange(provider.ThinkingLow)
	b.user("after " + words(2000))
	es := b.entries()
	cut := FindCutPoint(es, 0, len(es), 100)
	if cut.FirstKeptEntryIndex != 2 {
		t.Errorf("got %+v, want the thinking change right after the compaction", cut)
	}
}

func TestFindCutPointSummaryEntries(t *testing.T) {
	b := newBranch(t)
	b.user("first " + words(2000))
	b.assistant("answer "+words(2000), usage(0, 10, 0, 0))
	bs, err := b.m.BranchWithSummary(b.m.LeafID(), "branch summary", nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.assistant("big "+words(2000), usage(0, 10, 0, 0))
	es := b.entries()
	// The budget is reached at the last message. As in pi 1.6 the cut stays there (the branch summary
	// before it reaches the model; 0.73.1 moved the cut back over it), and the branch summary starts
	// the turn it splits.
	cut := FindCutPoint(es, 0, len(es), 100)
	if cut.FirstKeptEntryIndex != 3 || !cut.IsSplitTurn || es[cut.TurnStartIndex].ID != bs {
		t.Errorf("got %+v, want the last answer, in the turn the branch summary started", cut)
	}

	// A custom message entry is a cut point and a turn start too.
	b = newBranch(t)
	b.user("first " + words(2000))
	cm, err := b.m.AppendCustomMessageEntry(&provider.CustomMessage{CustomType: "note", Content: []provider.Content{provider.TextContent("hi")}, ContentIsString: true, Display: true})
	if err != nil {
		t.Fatal(err)
	}
	b.assistant("one "+words(600), usage(0, 10, 0, 0))
	b.assistant("two "+words(600), usage(0, 10, 0, 0))
	es = b.entries()
	cut = FindCutPoint(es, 0, len(es), 1000)
	// The budget is reached at the first answer, in the turn the custom message started.
	if cut.FirstKeptEntryIndex != 2 || !cut.IsSplitTurn || es[cut.TurnStartIndex].ID != cm {
		t.Errorf("got %+v, want the first answer, in the custom message's turn", cut)
	}
	// Without room to move back, the custom message still starts the turn of a cut after it.
	cut = FindCutPoint(es, 2, len(es), 1000)
	if cut.FirstKeptEntryIndex != 2 || cut.IsSplitTurn {
		t.Errorf("got %+v", cut)
	}
	if FindTurnStartIndex(es, 3, 0) != 1 {
		t.Error("the custom message starts the turn")
	}
}
