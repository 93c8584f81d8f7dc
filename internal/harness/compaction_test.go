package harness

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness/compaction"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

const testSummary = "## Goal\nKeep going.\n\n## Progress\n- [x] earlier work"

// summaryAware wraps a script: summary requests (pi's summarisation system prompt) get testSummary,
// optionally after waiting on gate; everything else is played from the script.
func summaryAware(sc *script, gate chan struct{}, summaryRequests *[]*provider.Request) func(context.Context, *provider.Request, func(*provider.AssistantEvent)) *provider.AssistantMessage {
	return func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
		if req.SystemPrompt != compaction.SystemPrompt {
			return sc.stream(ctx, req, emit)
		}
		sc.mu.Lock()
		*summaryRequests = append(*summaryRequests, req)
		sc.mu.Unlock()
		b := provider.NewStreamBuilder(req.Model, emit)
		b.Start()
		if gate != nil {
			select {
			case <-gate:
			case <-ctx.Done():
				return b.Fail(provider.StopReasonAborted, "Request was aborted")
			}
		}
		b.Text(testSummary)
		return b.Finish()
	}
}

func usageTurn(text string, total int) scriptedTurn {
	return func(b *provider.StreamBuilder) *provider.AssistantMessage {
		b.Text(text)
		b.SetUsage(provider.Usage{Input: total - 10, Output: 10, TotalTokens: total})
		return b.Finish()
	}
}

func compactionFixture(t *testing.T, turns []scriptedTurn, gate chan struct{}, window int) (*harnessFixture, *[]*provider.Request) {
	var summaries []*provider.Request
	model := *testModel
	model.ContextWindow = window
	sc := &script{turns: turns}
	f := newFixture(t, nil, func(o *Options) {
		o.Model = &model
		o.Settings = config.InMemorySettings(config.Settings{Compaction: config.CompactionSettings{ReserveTokens: 100, KeepRecentTokens: 5}})
		o.Stream = summaryAware(sc, gate, &summaries)
	})
	f.script = sc // the requests other than summaries
	return f, &summaries
}

func TestOverflowCompactsAndContinues(t *testing.T) {
	f, summaries := compactionFixture(t, []scriptedTurn{
		usageTurn("first answer", 300),
		errorTurn("400 This model's maximum context length is 1000 tokens. However, your messages resulted in 1500 tokens."),
		textTurn("recovered"),
	}, nil, 1000)
	ctx := context.Background()
	if err := f.s.Prompt(ctx, "do the first thing", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Prompt(ctx, "now the big one", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	starts, ends := f.events.ofType(EventCompactionStart), f.events.ofType(EventCompactionEnd)
	if len(starts) != 1 || starts[0].Reason != CompactionOverflow {
		t.Fatalf("compaction_start: %+v", starts)
	}
	if len(ends) != 1 || !ends[0].WillRetry || ends[0].Result == nil || ends[0].Result.Summary == "" {
		t.Fatalf("compaction_end: %+v", ends)
	}
	if len(*summaries) != 1 {
		t.Fatalf("summary requests: %d", len(*summaries))
	}
	conv := provider.TextOf((*summaries)[0].Messages[0].(*provider.UserMessage).Content, "")
	// One turn, cut inside: pi 1.6's turn-prefix request.
	if !strings.HasPrefix(conv, "# Conversation\n[User]: do the first thing") {
		t.Errorf("summary request must carry the serialised history:\n%s", conv)
	}
	msgs := f.s.Messages()
	last := msgs[len(msgs)-1].(*provider.AssistantMessage)
	if provider.TextOf(last.Content, "") != "recovered" {
		t.Fatalf("the run must continue after compaction, last = %+v", last)
	}
	// The compaction's checkpoint (the prompt the session declared) leads, then the summary.
	if cp, ok := msgs[0].(*provider.SystemMessage); !ok || provider.SystemMessageText(cp) != f.s.SystemPrompt() {
		t.Fatalf("transcript must start with the compaction's system message: %T", msgs[0])
	}
	first, ok := msgs[1].(*provider.CompactionSummaryMessage)
	if !ok || !strings.Contains(first.Summary, "Keep going.") {
		t.Fatalf("the summary must follow the checkpoint: %T", msgs[1])
	}
	var kept bool
	for _, m := range msgs {
		if u, ok := m.(*provider.UserMessage); ok && provider.TextOf(u.Content, "") == "now the big one" {
			kept = true
		}
	}
	if !kept {
		t.Errorf("the latest request must be kept verbatim after the cut")
	}
	var compactions int
	for _, e := range f.store.Entries() {
		if e.Type == session.TypeCompaction {
			compactions++
		}
	}
	if compactions != 1 {
		t.Errorf("compaction entries = %d", compactions)
	}

	// The session resumes to the same context.
	path := f.store.SessionFile()
	want := len(msgs)
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}
	store, err := session.Open(path, session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	built, err := store.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	// The overflow error stays in the file (as in pi) and is dropped before any request; apart from it
	// the resumed context is the one in memory.
	var resumed int
	for _, m := range built.Messages {
		if a, ok := m.(*provider.AssistantMessage); ok && a.StopReason == provider.StopReasonError {
			continue
		}
		resumed++
	}
	if resumed != want {
		t.Errorf("resumed context has %d messages, want %d", resumed, want)
	}
}

func TestSecondOverflowGivesUp(t *testing.T) {
	overflow := errorTurn("prompt is too long: 1500 tokens > 1000 maximum")
	f, _ := compactionFixture(t, []scriptedTurn{usageTurn("a", 300), overflow, overflow}, nil, 1000)
	ctx := context.Background()
	_ = f.s.Prompt(ctx, "one", nil, BehaviorNone)
	_ = f.s.Prompt(ctx, "the second request, longer than what is kept", nil, BehaviorNone)
	ends := f.events.ofType(EventCompactionEnd)
	if len(ends) != 2 || ends[1].ErrorMessage != compaction.OverflowRecoveryFailed {
		t.Fatalf("compaction_end events: %+v", ends)
	}
}

func TestThresholdCompactsAfterRun(t *testing.T) {
	f, _ := compactionFixture(t, []scriptedTurn{usageTurn("a", 300), usageTurn("b", 950)}, nil, 1000)
	ctx := context.Background()
	_ = f.s.Prompt(ctx, "one", nil, BehaviorNone)
	if n := len(f.events.ofType(EventCompactionStart)); n != 0 {
		t.Fatalf("compacted below the threshold")
	}
	_ = f.s.Prompt(ctx, "the second request, longer than what is kept", nil, BehaviorNone)
	starts, ends := f.events.ofType(EventCompactionStart), f.events.ofType(EventCompactionEnd)
	if len(starts) != 1 || starts[0].Reason != CompactionThreshold || len(ends) != 1 || ends[0].WillRetry || ends[0].Result == nil {
		t.Fatalf("threshold compaction: %+v %+v", starts, ends)
	}
	if u, ok := f.s.ContextUsage(); !ok || u.Known {
		t.Errorf("usage right after a compaction must be unknown: %+v %v", u, ok)
	}
	// estimatedTokensAfter estimates the transcript the compaction left (pi 1.6).
	want := 0
	for _, m := range f.s.Messages() {
		want += compaction.EstimateTokens(m)
	}
	if got := ends[0].Result.EstimatedTokensAfter; got != want || got == 0 {
		t.Errorf("estimatedTokensAfter %d, the transcript's estimate %d", got, want)
	}
}

// pi 1.6 compacts between the turns of a run once the context the next request would send crosses
// the threshold: after turn_end, before the next turn_start, and the next request carries the summary.
func TestThresholdCompactsBetweenTurns(t *testing.T) {
	bigToolTurn := func(b *provider.StreamBuilder) *provider.AssistantMessage {
		i := 0
		b.ToolCall(&i, "call_1", "nope", `{}`)
		b.SetUsage(provider.Usage{Input: 940, Output: 10, TotalTokens: 950})
		b.SetStopReason("tool_calls", provider.StopReasonToolUse, "")
		return b.Finish()
	}
	f, summaries := compactionFixture(t, []scriptedTurn{usageTurn("a", 300), bigToolTurn, usageTurn("done", 400)}, nil, 1000)
	ctx := context.Background()
	if err := f.s.Prompt(ctx, "one", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Prompt(ctx, "the second request, longer than what is kept", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	var got []string
	f.events.mu.Lock()
	events := append([]Event(nil), f.events.events...)
	f.events.mu.Unlock()
	for _, e := range events {
		switch e.Type {
		case "turn_start", "turn_end", EventCompactionStart, EventCompactionEnd, "agent_end":
			got = append(got, e.Type+" "+e.Reason)
		}
	}
	want := []string{"turn_start ", "turn_end ", "agent_end ", // the first prompt
		"turn_start ", "turn_end ", EventCompactionStart + " threshold", EventCompactionEnd + " threshold",
		"turn_start ", "turn_end ", "agent_end "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("events\n got %q\nwant %q", got, want)
	}
	if ends := f.events.ofType(EventCompactionEnd); ends[0].Result == nil || ends[0].WillRetry {
		t.Errorf("compaction_end %+v", ends[0])
	}
	if len(*summaries) != 1 {
		t.Fatalf("%d summary requests", len(*summaries))
	}
	last := f.script.requests[len(f.script.requests)-1]
	if _, ok := last.Messages[0].(*provider.UserMessage); !ok ||
		!strings.Contains(provider.TextOf(last.Messages[0].(*provider.UserMessage).Content, ""), "Keep going.") {
		t.Errorf("the request after the compaction must start with the summary: %#v", last.Messages[0])
	}
}

func TestManualCompactErrorsAndAbort(t *testing.T) {
	gate := make(chan struct{})
	f, _ := compactionFixture(t, []scriptedTurn{usageTurn("a", 300)}, gate, 1000)
	ctx := context.Background()
	if _, err := f.s.Compact(ctx, ""); !errors.Is(err, compaction.ErrNothingToCompact) {
		t.Fatalf("empty session: %v", err)
	}
	if err := f.s.Prompt(ctx, "one", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Prompt(ctx, "the second request, longer than what is kept", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := f.s.Compact(ctx, "focus on tests"); done <- err }()
	waitForEvent(t, f.events, func(e Event) bool { return e.Type == EventCompactionStart })
	if !f.s.IsCompacting() {
		t.Fatal("compaction_start must come after the session reports compacting")
	}
	f.s.AbortCompaction()
	if err := <-done; !errors.Is(err, compaction.ErrCancelled) {
		t.Fatalf("aborted compaction: %v", err)
	}
	ends := f.events.ofType(EventCompactionEnd)
	if last := ends[len(ends)-1]; !last.Aborted || last.ErrorMessage != "" || last.Reason != CompactionManual {
		t.Errorf("compaction_end after abort: %+v", last)
	}
	for _, e := range f.store.Entries() {
		if e.Type == session.TypeCompaction {
			t.Fatal("an aborted compaction wrote an entry")
		}
	}
	close(gate)
	res, err := f.s.Compact(ctx, "")
	if err != nil || res.Summary == "" {
		t.Fatalf("compact: %+v %v", res, err)
	}
	if _, err := f.s.Compact(ctx, ""); !errors.Is(err, compaction.ErrAlreadyCompacted) {
		t.Fatalf("second compact: %v", err)
	}
}

func TestMessagesQueuedDuringManualCompactionAreDelivered(t *testing.T) {
	gate := make(chan struct{})
	f, _ := compactionFixture(t, []scriptedTurn{usageTurn("a", 300), usageTurn("b", 300), textTurn("after compaction")}, gate, 1000)
	ctx := context.Background()
	for _, p := range []string{"one", "the second request, longer than what is kept"} {
		if err := f.s.Prompt(ctx, p, nil, BehaviorNone); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { _, err := f.s.Compact(ctx, ""); done <- err }()
	waitForEvent(t, f.events, func(e Event) bool { return e.Type == EventCompactionStart })
	if err := f.s.Prompt(ctx, "queued while compacting", nil, BehaviorFollowUp); err != nil {
		t.Fatal(err)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitForEvent(t, f.events, func(e Event) bool { return e.Type == "agent_end" })
	f.s.Abort() // waits for the delivering operation to end
	msgs := f.s.Messages()
	last := msgs[len(msgs)-1].(*provider.AssistantMessage)
	prev := msgs[len(msgs)-2].(*provider.UserMessage)
	if provider.TextOf(prev.Content, "") != "queued while compacting" || provider.TextOf(last.Content, "") != "after compaction" {
		t.Errorf("queued message not delivered after the compaction: %T %T", msgs[len(msgs)-2], msgs[len(msgs)-1])
	}
}

// A server that truncates silently (stop, with an input larger than the window) gets a compaction
// that keeps the answer and no retry (pi 1.6: a finished answer cannot be continued); it never loops
// and never fails the prompt.
func TestSilentOverflowIsRecoveredOnce(t *testing.T) {
	silent := usageTurn("truncated answer", 5000)
	f, _ := compactionFixture(t, []scriptedTurn{usageTurn("a", 300), silent, silent, silent}, nil, 1000)
	ctx := context.Background()
	if err := f.s.Prompt(ctx, "one", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Prompt(ctx, "two", nil, BehaviorNone); err != nil {
		t.Fatalf("prompt: %v", err)
	}
	starts, ends := f.events.ofType(EventCompactionStart), f.events.ofType(EventCompactionEnd)
	if len(starts) != 1 || len(ends) != 1 || ends[0].ErrorMessage != "" || ends[0].WillRetry || ends[0].Reason != CompactionOverflow {
		t.Fatalf("compactions: %d starts, ends %+v", len(starts), ends)
	}
	msgs := f.s.Messages()
	if a, ok := msgs[len(msgs)-1].(*provider.AssistantMessage); !ok || provider.TextOf(a.Content, "") != "truncated answer" {
		t.Errorf("the answer left the transcript: %T", msgs[len(msgs)-1])
	}
	for _, e := range f.s.Store().Entries() {
		if e.Type == session.TypeContextEdit {
			t.Errorf("a finished answer was omitted: %s", e.ID)
		}
	}
}

// A threshold compaction that finds nothing to summarise ends quietly: no request, no events (pi 1.6).
func TestThresholdWithNothingToCompactIsQuiet(t *testing.T) {
	f, summaries := compactionFixture(t, []scriptedTurn{usageTurn("a", 950)}, nil, 1000)
	if err := f.s.Prompt(context.Background(), "one", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if n := len(f.events.ofType(EventCompactionStart)) + len(f.events.ofType(EventCompactionEnd)); n != 0 || len(*summaries) != 0 {
		t.Errorf("%d compaction events, %d summary requests", n, len(*summaries))
	}
}

// An overflow error that names a smaller window than the model's makes the session work with it: the
// footer and later compactions use the server's window.
func TestOverflowErrorTeachesTheWindow(t *testing.T) {
	f, _ := compactionFixture(t, []scriptedTurn{
		usageTurn("first answer", 300),
		errorTurn("400 This model's maximum context length is 2000 tokens. However, your messages resulted in 2100 tokens."),
		textTurn("recovered"),
	}, nil, 100000)
	ctx := context.Background()
	if err := f.s.Prompt(ctx, "one", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if u, _ := f.s.ContextUsage(); u.ContextWindow != 100000 {
		t.Fatalf("window before the overflow: %d", u.ContextWindow)
	}
	if err := f.s.Prompt(ctx, "the second request, longer than what is kept", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if u, _ := f.s.ContextUsage(); u.ContextWindow != 2000 {
		t.Errorf("window after the overflow: %d, want the server's 2000", u.ContextWindow)
	}
	ends := f.events.ofType(EventCompactionEnd)
	if len(ends) != 1 || ends[0].Result == nil {
		t.Fatalf("compaction_end: %+v", ends)
	}
}

// lengthTurn is an answer cut off by the server (finish_reason length) after output tokens.
func lengthTurn(text string, output int) scriptedTurn {
	return func(b *provider.StreamBuilder) *provider.AssistantMessage {
		b.Text(text)
		b.SetUsage(provider.Usage{Input: 300, Output: output, TotalTokens: 300 + output})
		b.SetStopReason("length", provider.StopReasonLength, "")
		return b.Finish()
	}
}

// pi 1.6's recoverable length stop: an answer cut off below the model's output limit (1000 here) is
// omitted with a context_edit, the history compacted and the request sent again; cut off a second
// time, the recovery gives up with pi's text. An answer that used the whole limit is left alone.
func TestTruncatedAnswerIsRecoveredOnce(t *testing.T) {
	for _, c := range []struct {
		name      string
		retry     scriptedTurn
		wantEnds  int
		wantError string
	}{
		{"recovered", textTurn("complete answer"), 1, ""},
		{"cut again", lengthTurn("cut again", 20), 2, compaction.LengthRecoveryFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, summaries := compactionFixture(t, []scriptedTurn{usageTurn("first answer", 300), lengthTurn("cut", 20), c.retry}, nil, 10000)
			ctx := context.Background()
			for _, p := range []string{"do the first thing", "now the long one"} {
				if err := f.s.Prompt(ctx, p, nil, BehaviorNone); err != nil {
					t.Fatal(err)
				}
			}
			ends := f.events.ofType(EventCompactionEnd)
			if len(ends) != c.wantEnds || !ends[0].WillRetry || len(*summaries) != 1 || ends[len(ends)-1].ErrorMessage != c.wantError {
				t.Fatalf("compaction_end %+v, %d summaries", ends, len(*summaries))
			}
			appended := f.events.ofType(EventEntryAppended)
			cut := ""
			for _, e := range f.s.Store().Entries() {
				if e.Type == session.TypeMessage && e.Role == provider.RoleAssistant && cut == "" {
					if m, _ := e.Message(); m.(*provider.AssistantMessage).StopReason == provider.StopReasonLength {
						cut = e.ID
					}
				}
			}
			if len(appended) != 1 || appended[0].Entry.Type != session.TypeContextEdit || appended[0].Entry.TargetID != cut || appended[0].Entry.Replacement != nil {
				t.Fatalf("entry_appended %+v, cut answer %s", appended, cut)
			}
			msgs := f.s.Messages()
			last := msgs[len(msgs)-1].(*provider.AssistantMessage)
			if want := provider.TextOf(last.Content, ""); want == "cut" {
				t.Errorf("the cut answer is still in the transcript")
			}
		})
	}
	// An answer that reached the model's output limit is not recoverable: no omission, no compaction.
	f, _ := compactionFixture(t, []scriptedTurn{lengthTurn("long", 1000)}, nil, 10000)
	if err := f.s.Prompt(context.Background(), "write a lot", nil, BehaviorNone); err != nil {
		t.Fatal(err)
	}
	if n := len(f.events.ofType(EventEntryAppended)) + len(f.events.ofType(EventCompactionStart)); n != 0 {
		t.Errorf("%d recovery events for an answer at the output limit", n)
	}
}

// The attempt a recovery omits is the failed answer and the results of its own tool calls, up to the
// next answer (pi's _omitRecoveryAttempt); other results stay.
func TestRecoveryAttemptPairsResultsWithTheirCalls(t *testing.T) {
	call := func(id string) provider.Content {
		return provider.ToolCallContent(id, "bash", json.RawMessage(`{}`))
	}
	result := func(id string) *provider.ToolResultMessage {
		return &provider.ToolResultMessage{ToolCallID: id, ToolName: "bash"}
	}
	user := provider.NewUserMessage("go")
	failed := &provider.AssistantMessage{Content: []provider.Content{call("a"), call("b")}, StopReason: provider.StopReasonLength}
	ra, rb, other := result("a"), result("b"), result("z")
	later := &provider.AssistantMessage{StopReason: provider.StopReasonStop}
	rLater := result("a")
	msgs := []provider.Message{user, failed, ra, other, rb, later, rLater}
	got := recoveryAttempt(msgs, failed)
	if len(got) != 3 || got[0] != provider.Message(failed) || got[1] != provider.Message(ra) || got[2] != provider.Message(rb) {
		t.Errorf("attempt %v", got)
	}
	if got := recoveryAttempt(msgs[:1], failed); len(got) != 1 || got[0] != provider.Message(failed) {
		t.Errorf("an answer not in the transcript: %v", got)
	}
}

// /tree with a summary writes pi 1.6's branch_summary: fromId is the leaf the navigation left, and
// usage is what the summary request cost (session tests check that it counts in the totals).
func TestNavigateTreeSummaryRecordsTheLeafLeftAndItsUsage(t *testing.T) {
	f, summaries := compactionFixture(t, []scriptedTurn{usageTurn("first answer", 300), usageTurn("second answer", 400)}, nil, 100000)
	ctx := context.Background()
	for _, p := range []string{"first", "second"} {
		if err := f.s.Prompt(ctx, p, nil, BehaviorNone); err != nil {
			t.Fatal(err)
		}
	}
	store := f.s.Store()
	left := store.LeafID()
	var second string
	for _, fm := range f.s.ForkMessages() {
		if fm.Text == "second" {
			second = fm.EntryID
		}
	}
	if _, err := f.s.NavigateTree(ctx, second, NavigateOptions{Summarize: true}); err != nil {
		t.Fatal(err)
	}
	if len(*summaries) != 1 {
		t.Fatalf("%d summary requests", len(*summaries))
	}
	leaf := store.LeafEntry()
	if leaf.Type != session.TypeBranchSummary || leaf.FromID != left {
		t.Fatalf("leaf %s %s fromId %s, want a branch summary from %s", leaf.Type, leaf.ID, leaf.FromID, left)
	}
	raw, _ := leaf.Raw()
	if !strings.Contains(string(raw), `"usage":{"input":`) {
		t.Errorf("no usage in %s", raw)
	}
	if _, ok := leaf.Usage(); !ok {
		t.Error("the branch summary's usage is not read back")
	}
}
