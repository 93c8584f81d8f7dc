package demo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"
)

// Every test in the package must leave no goroutine behind: the transport starts none.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// within fails the test if f does not return in a generous time; it never sleeps: it waits for f.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return", what)
	}
}

func TestCancelMidStreamEndsPromptly(t *testing.T) {
	// Chunks come every few milliseconds; after a few of them the caller aborts.
	client := goOpenAIClient(Options{Delay: 2 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := client.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{
		Model: ModelID, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "help"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	for i := 0; i < 3; i++ {
		if _, err := stream.Recv(); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
	}
	cancel()
	var got error
	after := 0
	within(t, "Recv after cancel", func() {
		for {
			if _, got = stream.Recv(); got != nil {
				return
			}
			after++
		}
	})
	if !errors.Is(got, context.Canceled) {
		t.Fatalf("Recv after cancel: %v, want context.Canceled", got)
	}
	if after > 1 {
		t.Errorf("%d chunks arrived after the cancel", after)
	}
}

func TestCancelDuringALongPause(t *testing.T) {
	// With an hour between chunks, only cancellation can end the wait.
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", BaseURL+"/chat/completions", bytes.NewReader(newChat().user("hi").body()))
	resp, err := HTTPClient(Options{Delay: time.Hour}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var readErr error
	within(t, "Read during a pause", func() {
		go cancel()
		_, readErr = io.ReadAll(resp.Body)
	})
	if !errors.Is(readErr, context.Canceled) {
		t.Fatalf("read ended with %v, want context.Canceled", readErr)
	}
}

func TestCloseDuringALongPause(t *testing.T) {
	body := newSSEBody(context.Background(), []sseEvent{{data: []byte("data: x\n\n"), pause: time.Hour}})
	var err error
	within(t, "Read while closing", func() {
		go body.Close()
		_, err = body.Read(make([]byte, 64))
	})
	if !errors.Is(err, errBodyClosed) {
		t.Fatalf("Read after Close: %v", err)
	}
	if err := body.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestCancelledBeforeTheRequest(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", BaseURL+"/chat/completions", bytes.NewReader(newChat().user("hi").body()))
	_, err := HTTPClient(Options{FullSpeed: true}).Do(req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

func TestFullSpeedNeverWaits(t *testing.T) {
	for name, opts := range map[string]Options{
		"FullSpeed":       {FullSpeed: true, Delay: time.Hour},
		"PI_DEMO_DELAY=0": {Getenv: func(k string) string { return map[string]string{EnvDelay: "0"}[k] }},
	} {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", BaseURL+"/chat/completions", bytes.NewReader(newChat(defaultTools()...).user("help").body()))
			resp, err := HTTPClient(opts).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var raw []byte
			within(t, "reading a full-speed stream", func() { raw, err = io.ReadAll(resp.Body) })
			if err != nil {
				t.Fatal(err)
			}
			if s := parseSSE(t, raw); s.Finish != "stop" || s.Chunks < 100 {
				t.Fatalf("finish %q after %d chunks", s.Finish, s.Chunks)
			}
		})
	}
}
