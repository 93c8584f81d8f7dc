package compaction

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/pi-go/pi-go/internal/provider"
)

func TestAbortBeforeRequest(t *testing.T) {
	b, _ := longTurn(t)
	st := &scriptedStream{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := len(b.m.Entries())
	if _, err := Compact(ctx, Params{Summarizer: summarizer(st), Branch: b.entries(), Settings: settings(1000)}); !errors.Is(err, ErrCancelled) {
		t.Errorf("Compact: %v", err)
	}
	prep, _ := Prepare(b.entries(), settings(1000), Limits{})
	if _, err := summarizer(st).Summarize(ctx, prep, ""); !errors.Is(err, ErrCancelled) {
		t.Errorf("Summarize: %v", err)
	}
	if _, err := summarizer(st).GenerateSummary(ctx, prep.MessagesToSummarize, "", ""); !errors.Is(err, ErrCancelled) {
		t.Errorf("GenerateSummary: %v", err)
	}
	if _, err := summarizer(st).GenerateBranchSummary(ctx, b.entries(), BranchSummaryOptions{}); !errors.Is(err, ErrCancelled) {
		t.Errorf("GenerateBranchSummary: %v", err)
	}
	if n := len(st.all()); n != 0 {
		t.Errorf("%d requests sent after the abort", n)
	}
	if len(b.m.Entries()) != before {
		t.Error("nothing is written")
	}
}

// blockingStream starts answering, says so on started, and waits for the abort.
func blockingStream(started chan<- struct{}) *scriptedStream {
	return &scriptedStream{answer: func(ctx context.Context, req *provider.Request) (string, string) {
		close(started)
		<-ctx.Done()
		return "", ""
	}}
}

func TestAbortMidStream(t *testing.T) {
	defer goleak.VerifyNone(t)
	b, _ := longTurn(t)
	started := make(chan struct{})
	st := blockingStream(started)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	if _, err := Compact(ctx, Params{Summarizer: summarizer(st), Branch: b.entries(), Settings: settings(1000)}); !errors.Is(err, ErrCancelled) {
		t.Errorf("got %v", err)
	}
}

func TestAbortMidStreamBranchSummary(t *testing.T) {
	b, _ := longTurn(t)
	started := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	if _, err := summarizer(blockingStream(started)).GenerateBranchSummary(ctx, b.entries(), BranchSummaryOptions{ReserveTokens: 16384}); !errors.Is(err, ErrCancelled) {
		t.Errorf("got %v", err)
	}
}

func TestAbortedAnswerWithoutCancel(t *testing.T) {
	// A stream that ends aborted on its own (the provider's abort) counts as cancelled too.
	b, _ := longTurn(t)
	s := summarizer(&scriptedStream{})
	s.Stream = func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
		sb := provider.NewStreamBuilder(req.Model, emit)
		sb.Start()
		sb.Text("partial")
		return sb.Fail(provider.StopReasonAborted, "Request was aborted")
	}
	if _, err := Compact(context.Background(), Params{Summarizer: s, Branch: b.entries(), Settings: settings(1000)}); !errors.Is(err, ErrCancelled) {
		t.Errorf("got %v", err)
	}
	if _, err := s.GenerateBranchSummary(context.Background(), b.entries(), BranchSummaryOptions{}); !errors.Is(err, ErrCancelled) {
		t.Errorf("branch summary: %v", err)
	}
}

func TestAbortBetweenParallelSummaries(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := splitBranch(t)
	prep, err := Prepare(b.entries(), settings(1000), Limits{})
	if err != nil || !prep.IsSplitTurn {
		t.Fatalf("%+v %v", prep, err)
	}
	historyDone := make(chan struct{})
	prefixWaiting := make(chan struct{})
	st := &scriptedStream{answer: func(ctx context.Context, req *provider.Request) (string, string) {
		if !strings.Contains(promptOf(t, req), "## Original Request") {
			defer close(historyDone)
			return "HISTORY", ""
		}
		<-historyDone
		close(prefixWaiting)
		<-ctx.Done()
		return "", ""
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-prefixWaiting
		cancel()
	}()
	if _, err := summarizer(st).Summarize(ctx, prep, ""); !errors.Is(err, ErrCancelled) {
		t.Errorf("got %v", err)
	}
	if n := len(st.all()); n != 2 {
		t.Errorf("%d requests", n)
	}
}

func TestAbortAfterAnswer(t *testing.T) {
	// The abort arrives as the answer completes: the summary is dropped.
	b, _ := longTurn(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := summarizer(&scriptedStream{})
	s.Stream = func(_ context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
		sb := provider.NewStreamBuilder(req.Model, emit)
		sb.Start()
		sb.Text("complete summary")
		cancel()
		return sb.Finish()
	}
	if _, err := Compact(ctx, Params{Summarizer: s, Branch: b.entries(), Settings: settings(1000)}); !errors.Is(err, ErrCancelled) {
		t.Errorf("got %v", err)
	}
}
