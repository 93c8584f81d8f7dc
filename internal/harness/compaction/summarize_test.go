package compaction

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

func summarizer(s *scriptedStream) Summarizer {
	return Summarizer{Stream: s.stream, Model: testModel, APIKey: "test-key", ConvertToLLM: convert}
}

func TestGenerateSummaryRequest(t *testing.T) {
	st := &scriptedStream{answer: func(context.Context, *provider.Request) (string, string) { return "## Goal\nTest summary", "" }}
	s := summarizer(st)
	s.Headers = map[string]string{"X-Test": "1"}
	msgs := []provider.Message{
		provider.NewUserMessage("Summarize this."),
		assistantMsg(provider.Usage{}, provider.TextContent("Sure.")),
		&provider.CompactionSummaryMessage{Summary: "older"},
	}
	got, err := s.GenerateSummary(context.Background(), msgs, "", "")
	if err != nil || got != "## Goal\nTest summary" {
		t.Fatalf("got %q, %v", got, err)
	}
	req := st.all()[0]
	if req.SystemPrompt != SystemPrompt || req.Model != testModel {
		t.Errorf("system prompt %q", req.SystemPrompt)
	}
	// pi 1.6 leaves the limit to the model (0: its maxTokens).
	if req.Options.MaxTokens != 0 || req.Options.APIKey != "test-key" || req.Options.Headers["X-Test"] != "1" || req.Options.Reasoning != "" {
		t.Errorf("options %+v", req.Options)
	}
	want := "<conversation>\n[User]: Summarize this.\n\n[Assistant]: Sure.\n\n" +
		"[User]: The conversation history before this point was compacted into the following summary:\n\n<summary>\nolder\n</summary>" +
		"\n</conversation>\n\n" + summarizationPrompt
	if p := promptOf(t, req); p != want {
		t.Errorf("prompt:\n%s\nwant:\n%s", p, want)
	}
	if !strings.HasPrefix(summarizationPrompt, "The messages above are a conversation to summarize.") ||
		!strings.Contains(summarizationPrompt, "## Goal\n") || !strings.Contains(summarizationPrompt, "## Critical Context\n") {
		t.Error("the initial prompt is pi's")
	}
}

func TestGenerateSummaryUpdateAndFocus(t *testing.T) {
	st := &scriptedStream{}
	s := summarizer(st)
	if _, err := s.GenerateSummary(context.Background(), []provider.Message{provider.NewUserMessage("next")}, "the parser", "## Goal\nold goal"); err != nil {
		t.Fatal(err)
	}
	req := st.all()[0]
	want := "<conversation>\n[User]: next\n</conversation>\n\n<previous-summary>\n## Goal\nold goal\n</previous-summary>\n\n" +
		updateSummarizationPrompt + "\n\nAdditional focus: the parser"
	if p := promptOf(t, req); p != want {
		t.Errorf("prompt:\n%s\nwant:\n%s", p, want)
	}
	if req.Options.MaxTokens != 0 {
		t.Errorf("maxTokens %d, want the model's", req.Options.MaxTokens)
	}
	if !strings.HasPrefix(updateSummarizationPrompt, "The messages above are NEW conversation messages to incorporate into the existing summary provided in <previous-summary> tags.") {
		t.Error("the update prompt is pi's")
	}
}

func TestGenerateSummaryReasoning(t *testing.T) {
	cases := []struct {
		reasoning bool
		level     provider.ThinkingLevel
		want      provider.ThinkingLevel
	}{
		{true, provider.ThinkingHigh, provider.ThinkingHigh},
		{true, provider.ThinkingLow, provider.ThinkingLow},
		{true, provider.ThinkingOff, ""},
		{true, "", ""},
		{false, provider.ThinkingHigh, ""},
	}
	for _, c := range cases {
		st := &scriptedStream{}
		s := summarizer(st)
		m := *testModel
		m.Reasoning = c.reasoning
		s.Model, s.ThinkingLevel = &m, c.level
		if _, err := s.GenerateSummary(context.Background(), []provider.Message{provider.NewUserMessage("x")}, "", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GenerateTurnPrefixSummary(context.Background(), []provider.Message{provider.NewUserMessage("x")}, ""); err != nil {
			t.Fatal(err)
		}
		for _, req := range st.all() {
			if req.Options.Reasoning != c.want || req.Options.APIKey != "test-key" {
				t.Errorf("reasoning model %v at %q: options %+v, want reasoning %q", c.reasoning, c.level, req.Options, c.want)
			}
		}
	}
}

func TestGenerateSummaryFailures(t *testing.T) {
	st := &scriptedStream{answer: func(context.Context, *provider.Request) (string, string) { return "", "429 rate limited" }}
	s := summarizer(st)
	msgs := []provider.Message{provider.NewUserMessage("x")}
	if _, err := s.GenerateSummary(context.Background(), msgs, "", ""); err == nil || err.Error() != "Summarization failed: 429 rate limited" {
		t.Errorf("got %v", err)
	}
	if _, err := s.GenerateTurnPrefixSummary(context.Background(), msgs, ""); err == nil || err.Error() != "Turn prefix summarization failed: 429 rate limited" {
		t.Errorf("got %v", err)
	}
	s.Stream = func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
		m := assistantMsg(provider.Usage{})
		m.StopReason = provider.StopReasonError
		return m
	}
	if _, err := s.GenerateSummary(context.Background(), msgs, "", ""); err == nil || err.Error() != "Summarization failed: Unknown error" {
		t.Errorf("got %v", err)
	}
	s.Stream = nil
	if _, err := s.GenerateSummary(context.Background(), msgs, "", ""); err == nil {
		t.Error("no stream: want an error")
	}
}

func TestAnswerJoinsTextBlocks(t *testing.T) {
	s := summarizer(&scriptedStream{})
	s.Stream = func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
		return assistantMsg(provider.Usage{}, provider.Content{Type: provider.ContentThinking, Thinking: "t"}, provider.TextContent("a"), provider.TextContent("b"))
	}
	if got, _ := s.GenerateSummary(context.Background(), nil, "", ""); got != "a\nb" {
		t.Errorf("got %q", got)
	}
}

func TestTurnPrefixRequest(t *testing.T) {
	st := &scriptedStream{}
	s := summarizer(st)
	if _, err := s.GenerateTurnPrefixSummary(context.Background(), []provider.Message{provider.NewUserMessage("build it")}, ""); err != nil {
		t.Fatal(err)
	}
	req := st.all()[0]
	if p := promptOf(t, req); p != "# Conversation\n[User]: build it\n\n# Instructions\n"+turnPrefixPrompt {
		t.Errorf("prompt %q", p)
	}
	if req.Options.MaxTokens != 0 || req.SystemPrompt != SystemPrompt {
		t.Errorf("options %+v", req.Options)
	}
	if !strings.Contains(turnPrefixPrompt, "## Original Request") {
		t.Error("the prefix prompt is pi's")
	}
}

// splitBranch is a branch whose cut splits a turn that is not the last one.
func splitBranch(t *testing.T) *branch {
	b := newBranch(t)
	b.user("old request")
	b.toolCall("read", `{"path":"notes.md"}`, "notes")
	b.assistant("old answer", usage(10, 10, 0, 0))
	b.user("build it")
	b.toolCall("edit", `{"path":"main.go"}`, "ok")
	b.assistant("step 1 "+words(1000), usage(10, 10, 0, 0))
	b.assistant("step 2 "+words(1000), usage(10, 10, 0, 0))
	b.user("thanks")
	b.assistant("welcome", usage(10, 10, 0, 0))
	return b
}

func answerByKind(_ context.Context, req *provider.Request) (string, string) {
	if strings.Contains(req.Messages[0].(*provider.UserMessage).Content[0].Text, "## Original Request") {
		return "PREFIX", ""
	}
	return "HISTORY", ""
}

func TestSummarizeSplitTurn(t *testing.T) {
	b := splitBranch(t)
	prep, err := Prepare(b.entries(), settings(1000), Limits{})
	if err != nil || !prep.IsSplitTurn {
		t.Fatalf("%+v %v", prep, err)
	}
	st := &scriptedStream{answer: answerByKind}
	s := summarizer(st)
	res, err := s.Summarize(context.Background(), prep, "focus")
	if err != nil {
		t.Fatal(err)
	}
	want := "HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX" +
		"\n\n<read-files>\nnotes.md\n</read-files>\n\n<modified-files>\nmain.go\n</modified-files>"
	if res.Summary != want {
		t.Errorf("summary %q", res.Summary)
	}
	reqs := st.all()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want history and prefix", len(reqs))
	}
	for _, req := range reqs {
		p := promptOf(t, req)
		if strings.Contains(p, "## Original Request") {
			// pi 1.6 gives the turn prefix the user's focus too.
			if !strings.Contains(p, "[User]: build it") || strings.Contains(p, "old request") || !strings.HasSuffix(p, "\n\nAdditional focus: focus") {
				t.Errorf("prefix prompt %q", p)
			}
		} else if !strings.Contains(p, "[User]: old request") || strings.Contains(p, "build it") || !strings.HasSuffix(p, "\n\nAdditional focus: focus") {
			t.Errorf("history prompt %q", p)
		}
	}
	if res.FirstKeptEntryID != prep.FirstKeptEntryID || res.TokensBefore != prep.TokensBefore {
		t.Errorf("result %+v", res)
	}
	// The usage is both requests' (pi 1.6's combineUsage).
	if res.Usage.Input != 200 || res.Usage.Output != 20 || res.Usage.TotalTokens != 220 {
		t.Errorf("usage %+v", res.Usage)
	}
}

func TestSummarizeSplitTurnWithoutHistory(t *testing.T) {
	b := newBranch(t)
	b.user("build it")
	b.assistant("step 1 "+words(1000), usage(10, 10, 0, 0))
	b.assistant("step 2 "+words(1000), usage(10, 10, 0, 0))
	b.user("thanks")
	b.assistant("welcome", usage(10, 10, 0, 0))
	prep, err := Prepare(b.entries(), settings(1000), Limits{})
	if err != nil || !prep.IsSplitTurn || len(prep.MessagesToSummarize) != 0 {
		t.Fatalf("%+v %v", prep, err)
	}
	st := &scriptedStream{answer: answerByKind}
	res, err := summarizer(st).Summarize(context.Background(), prep, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary != "No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX" || len(st.all()) != 1 {
		t.Errorf("summary %q after %d requests", res.Summary, len(st.all()))
	}
	if res.Details.ReadFiles == nil || res.Details.ModifiedFiles == nil {
		t.Error("details lists must be [] not null")
	}
}

func TestSummarizeSplitTurnFailure(t *testing.T) {
	b := splitBranch(t)
	prep, _ := Prepare(b.entries(), settings(1000), Limits{})
	// The prefix fails; the history request is cancelled and the prefix's error is reported.
	historyStarted := make(chan struct{})
	st := &scriptedStream{answer: func(ctx context.Context, req *provider.Request) (string, string) {
		if strings.Contains(promptOf(t, req), "## Original Request") {
			<-historyStarted
			return "", "overloaded"
		}
		close(historyStarted)
		<-ctx.Done()
		return "", ""
	}}
	_, err := summarizer(st).Summarize(context.Background(), prep, "")
	if err == nil || err.Error() != "Turn prefix summarization failed: overloaded" {
		t.Errorf("got %v", err)
	}
}

func TestCompactEndToEnd(t *testing.T) {
	b := newBranch(t)
	b.user("read the notes " + words(500))
	b.toolCall("read", `{"path":"notes.md"}`, words(3000))
	b.assistant("noted", usage(4000, 10, 0, 0))
	b.user("now edit main.go")
	b.toolCall("edit", `{"path":"main.go","edits":[]}`, "ok")
	b.assistant("edited "+words(1200), usage(5000, 1200, 0, 0))
	st := &scriptedStream{answer: func(context.Context, *provider.Request) (string, string) { return "## Goal\nfirst", "" }}
	p := Params{Summarizer: summarizer(st), Branch: b.entries(), Settings: settings(1000)}

	res, err := Compact(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary != "## Goal\nfirst\n\n<read-files>\nnotes.md\n</read-files>" || res.TokensBefore != 6200 {
		t.Errorf("result %+v", res)
	}
	data, _ := provider.MarshalJS(res)
	// estimatedTokensAfter is the harness's to fill in, once the context is rebuilt.
	if want := `{"summary":"## Goal\nfirst\n\n<read-files>\nnotes.md\n</read-files>","firstKeptEntryId":"` + res.FirstKeptEntryID +
		`","tokensBefore":6200,"estimatedTokensAfter":0,"usage":{"input":100,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":110,` +
		`"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"details":{"readFiles":["notes.md"],"modifiedFiles":[]}}`; string(data) != want {
		t.Errorf("JSON %s", data)
	}
	// The latest request is kept: the cut is at "now edit main.go".
	if e := b.m.Entry(res.FirstKeptEntryID); e == nil || e.Role != provider.RoleUser {
		t.Fatalf("kept from %+v", e)
	}
	if _, err := b.m.AppendCompaction(res.Summary, res.FirstKeptEntryID, res.TokensBefore, res.Details, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Compact(context.Background(), Params{Summarizer: summarizer(st), Branch: b.m.Path(""), Settings: settings(1000)}); !errors.Is(err, ErrAlreadyCompacted) {
		t.Errorf("compacting twice: %v", err)
	}

	// A second compaction updates the first summary and carries its files over.
	b.user("and write tests " + words(100))
	b.toolCall("write", `{"path":"main_test.go","content":"package main"}`, "ok")
	b.assistant("written", usage(3000, 10, 0, 0))
	b.user("last one")
	b.assistant("sure "+words(1500), usage(4000, 1500, 0, 0))
	st2 := &scriptedStream{answer: func(context.Context, *provider.Request) (string, string) { return "## Goal\nsecond", "" }}
	res2, err := Compact(context.Background(), Params{Summarizer: summarizer(st2), Branch: b.m.Path(""), Settings: settings(1000)})
	if err != nil {
		t.Fatal(err)
	}
	p2 := promptOf(t, st2.all()[0])
	if !strings.HasPrefix(p2, "<conversation>\n[User]: now edit main.go\n\n[Assistant tool calls]: edit(path=\"main.go\", edits=[])") ||
		!strings.Contains(p2, "<previous-summary>\n"+res.Summary+"\n</previous-summary>\n\n"+updateSummarizationPrompt) {
		t.Errorf("second request:\n%s", p2)
	}
	if strings.Join(res2.Details.ReadFiles, ",") != "notes.md" || strings.Join(res2.Details.ModifiedFiles, ",") != "main.go,main_test.go" {
		t.Errorf("details %+v", res2.Details)
	}
	if e := b.m.Entry(res2.FirstKeptEntryID); e == nil || e.Role != provider.RoleUser {
		t.Errorf("kept from %+v", e)
	}
}

func TestCompactValidation(t *testing.T) {
	b := newBranch(t)
	b.user("x")
	for _, s := range []Summarizer{
		{Model: testModel, ConvertToLLM: convert},
		{Stream: (&scriptedStream{}).stream, ConvertToLLM: convert},
		{Stream: (&scriptedStream{}).stream, Model: testModel},
	} {
		if _, err := Compact(context.Background(), Params{Summarizer: s, Branch: b.entries(), Settings: DefaultSettings()}); err == nil || errors.Is(err, ErrCancelled) {
			t.Errorf("%+v: got %v", s, err)
		}
	}
	if _, err := Compact(context.Background(), Params{Summarizer: summarizer(&scriptedStream{}), Settings: DefaultSettings()}); !errors.Is(err, ErrNothingToCompact) {
		t.Errorf("empty branch: %v", err)
	}
}

func TestEndState(t *testing.T) {
	boom := errors.New("Summarization failed: boom")
	cases := []struct {
		reason  string
		err     error
		aborted bool
		msg     string
	}{
		{ReasonManual, nil, false, ""},
		{ReasonManual, ErrCancelled, true, ""},
		{ReasonThreshold, ErrCancelled, true, ""},
		{ReasonManual, ErrAlreadyCompacted, false, "Compaction failed: Already compacted"},
		{ReasonManual, ErrNothingToCompact, false, "Compaction failed: Nothing to compact (session too small)"},
		{ReasonManual, boom, false, "Compaction failed: Summarization failed: boom"},
		{ReasonThreshold, ErrNothingToCompact, false, ""},
		{ReasonOverflow, ErrNothingToCompact, false, "Context overflow recovery failed: Nothing to compact (session too small)"},
		{ReasonThreshold, &FitError{Kept: 1, Overhead: 2, ContextWindow: 3, ReserveTokens: 4}, false,
			"Auto-compaction failed: " + (&FitError{Kept: 1, Overhead: 2, ContextWindow: 3, ReserveTokens: 4}).Error()},
		{ReasonThreshold, boom, false, "Auto-compaction failed: Summarization failed: boom"},
		{ReasonOverflow, boom, false, "Context overflow recovery failed: Summarization failed: boom"},
	}
	for _, c := range cases {
		aborted, msg := EndState(c.reason, c.err)
		if aborted != c.aborted || msg != c.msg {
			t.Errorf("%s %v: got %v %q", c.reason, c.err, aborted, msg)
		}
	}
	if ErrCancelled.Error() != "Compaction cancelled" {
		t.Error("pi's text")
	}
}

func TestResultJSONRoundTrip(t *testing.T) {
	r := Result{Summary: "s", FirstKeptEntryID: "abcd1234", TokensBefore: 5, Details: Details{ReadFiles: []string{}, ModifiedFiles: []string{"x"}}}
	data, _ := json.Marshal(r)
	var back Result
	if err := json.Unmarshal(data, &back); err != nil || back.FirstKeptEntryID != "abcd1234" || back.Details.ModifiedFiles[0] != "x" {
		t.Errorf("%s → %+v %v", data, back, err)
	}
}

// pi 1.6 refuses a summary cut at the output limit or one that calls a tool.
func TestSummaryFailuresOfPi16(t *testing.T) {
	msgs := []provider.Message{provider.NewUserMessage("x")}
	reply := func(stop provider.StopReason, content ...provider.Content) loop.StreamFunc {
		return func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
			m := assistantMsg(provider.Usage{}, content...)
			m.StopReason = stop
			return m
		}
	}
	s := summarizer(&scriptedStream{})
	s.Stream = reply(provider.StopReasonLength, provider.TextContent("## Goal\nhalf"))
	if _, err := s.GenerateSummary(context.Background(), msgs, "", ""); err == nil || err.Error() != "Summarization failed: generation hit the token cap and the summary is incomplete" {
		t.Errorf("length: %v", err)
	}
	if _, err := s.GenerateTurnPrefixSummary(context.Background(), msgs, ""); err == nil || err.Error() != "Turn prefix summarization failed: generation hit the token cap and the summary is incomplete" {
		t.Errorf("prefix length: %v", err)
	}
	s.Stream = reply(provider.StopReasonToolUse, provider.ToolCallContent("c1", "read", json.RawMessage(`{}`)))
	if _, err := s.GenerateSummary(context.Background(), msgs, "", ""); err == nil || err.Error() != "Summarization attempted to call a tool" {
		t.Errorf("tool call: %v", err)
	}
	b := newBranch(t)
	b.user("x")
	if _, err := s.GenerateBranchSummary(context.Background(), b.entries(), BranchSummaryOptions{}); err == nil || err.Error() != "Branch summarization attempted to call a tool" {
		t.Errorf("branch tool call: %v", err)
	}
}

// A split turn with nothing before it but an earlier compaction keeps that summary as its history
// (pi 1.6; 0.73.1 wrote "No prior history.").
func TestSummarizeSplitTurnKeepsThePreviousSummary(t *testing.T) {
	st := &scriptedStream{answer: answerByKind}
	prep := &Preparation{IsSplitTurn: true, PreviousSummary: "## Goal\nearlier", FirstKeptEntryID: "e1",
		TurnPrefixMessages: []provider.Message{provider.NewUserMessage("build it")}}
	res, err := summarizer(st).Summarize(context.Background(), prep, "")
	if err != nil || !strings.HasPrefix(res.Summary, "## Goal\nearlier\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX") || len(st.all()) != 1 {
		t.Errorf("summary %q, %v, %d requests", res.Summary, err, len(st.all()))
	}
}
