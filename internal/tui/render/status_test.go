package render

import (
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

func TestSpinnerAndElapsed(t *testing.T) {
	if got := strings.Join(PiSpinner.Frames, ""); got != "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏" || PiSpinner.FPS != 80*time.Millisecond {
		t.Fatalf("spinner %q at %v, want pi's braille dots at 80 ms", got, PiSpinner.FPS)
	}
	for d, want := range map[time.Duration]string{0: "0s", 999 * time.Millisecond: "0s", 59 * time.Second: "59s",
		65 * time.Second: "1m 05s", 3599 * time.Second: "59m 59s", 3720 * time.Second: "1h 02m"} {
		if got := FormatElapsed(d); got != want {
			t.Errorf("FormatElapsed(%v) = %q, want %q", d, got, want)
		}
	}
	r := newGoldenRenderer()
	if lines := r.StatusLine(Status{}, 80); lines != nil {
		t.Fatalf("idle status line: %q", lines)
	}
	got := plain(r.StatusLine(Status{Activity: Retrying, Attempt: 1, MaxAttempts: 3, RetryIn: 2001 * time.Millisecond}, 80))
	if got != "\n ⠋ Retrying (1/3) in 3s... (esc to cancel)\n" {
		t.Fatalf("retry line %q", got)
	}
	got = plain(r.StatusLine(Status{Activity: Retrying, Attempt: 2, MaxAttempts: 3, RetryIn: 4 * time.Second,
		Reason: "503 Service Unavailable:\nupstream busy"}, 100))
	if got != "\n ⠋ Retrying (2/3) in 4s... (esc to cancel) · 503 Service Unavailable: upstream busy\n" {
		t.Fatalf("retry line with its reason %q", got)
	}
	// A narrow terminal cuts the reason, not the countdown.
	got = plain(r.StatusLine(Status{Activity: Retrying, Attempt: 2, MaxAttempts: 3, RetryIn: 4 * time.Second,
		Reason: "503 Service Unavailable: upstream busy"}, 50))
	if !strings.HasPrefix(got, "\n ⠋ Retrying (2/3) in 4s... (esc to cancel) ·") || len([]rune(got)) > 52 {
		t.Fatalf("narrow retry line %q", got)
	}
	got = plain(r.StatusLine(Status{Activity: Working, Attempt: 1, MaxAttempts: 3, Elapsed: 3 * time.Second, Spinner: "⠧"}, 80))
	if got != "\n ⠧ Working... (retry 1/3 · 3s · esc to interrupt)\n" {
		t.Fatalf("retried request %q", got)
	}
}

func TestHeldErrorLine(t *testing.T) {
	r := newGoldenRenderer()
	failed := &provider.AssistantMessage{StopReason: provider.StopReasonError, ErrorMessage: "503 busy",
		Content: []provider.Content{provider.TextContent("partial")}}
	s := r.NewAssistantStream(AssistantOptions{})
	s.Finish(failed)
	s.HoldError()
	flushed := plain(s.Flush(80))
	if !strings.Contains(flushed, "partial") || strings.Contains(flushed+plain(s.Live(80))+plain(s.Lines(80)), "503") {
		t.Fatalf("held: flushed %q, live %q", flushed, plain(s.Live(80)))
	}
	if !s.ErrorHeld() {
		t.Fatal("not held")
	}
	s.ReleaseError()
	if got := plain(s.Flush(80)); !strings.Contains(got, "Error: 503 busy") {
		t.Fatalf("released: %q", got)
	}

	s = r.NewAssistantStream(AssistantOptions{})
	s.Finish(failed)
	s.HoldError()
	s.DropError()
	if got := plain(s.Flush(80)) + plain(s.Live(80)); strings.Contains(got, "503") || !strings.Contains(got, "partial") {
		t.Fatalf("dropped: %q", got)
	}
}

func TestThinkingIsDimAndItalic(t *testing.T) {
	r := newGoldenRenderer()
	lines := r.AssistantMessage(&provider.AssistantMessage{Content: []provider.Content{{Type: provider.ContentThinking, Thinking: "pondering"}}}, AssistantOptions{}, 80)
	joined := strings.Join(lines, "\n")
	if !strings.Contains(joined, "pondering") || !strings.Contains(joined, "\x1b[3m") ||
		!strings.Contains(joined, r.Theme().FgSeq(theme.ThinkingText)) {
		t.Fatalf("thinking not in the thinking colour and italic: %q", joined)
	}
}
