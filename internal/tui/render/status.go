package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/spinner"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// SpinnerInterval is how long a spinner frame shows (pi's 80 ms). A TUI only needs to redraw this
// often while something spins; nothing ticks otherwise.
const SpinnerInterval = 80 * time.Millisecond

// PiSpinner is pi's working indicator for a bubbles spinner: the braille dots pi draws (bubbles'
// MiniDot) at pi's 80 ms a frame.
var PiSpinner = spinner.Spinner{Frames: spinner.MiniDot.Frames, FPS: SpinnerInterval}

// spinnerFrame is the frame to draw: the one the TUI's spinner shows now, or the first.
func spinnerFrame(frame string) string {
	if frame == "" {
		return PiSpinner.Frames[0]
	}
	return frame
}

// Activity is what the status line says the agent is doing.
type Activity int

const (
	// Idle: no status line.
	Idle Activity = iota
	// Working: a run is active and nothing more specific is known ("Working...").
	Working
	// Thinking: the model is streaming a thinking block.
	Thinking
	// RunningTool: tools are executing (Status.Tool names the first, Status.Tools counts them).
	RunningTool
	// Retrying: waiting before an automatic retry (Status.Attempt, MaxAttempts, RetryIn).
	Retrying
	// Compacting: a compaction runs (Status.CompactionReason).
	Compacting
	// Summarizing: a branch summary is being generated (tree navigation).
	Summarizing
)

// Status is the state of the status line.
type Status struct {
	Activity Activity
	// Elapsed is the time since the activity (or the run) started, shown for Working, Thinking and
	// RunningTool.
	Elapsed time.Duration
	// Spinner is the spinner's frame now ("" draws the first).
	Spinner string
	// Verbatim: Spinner is an extension's frame, drawn as it is (pi's custom working indicator);
	// "" then draws no indicator at all.
	Verbatim bool
	// Message replaces the label of Working (pi's custom working message).
	Message string
	// Tool is the running tool's name; Tools how many run (more than one: "Running 3 tools...").
	Tool  string
	Tools int
	// Retrying: attempt n of max, the time left before it, and why (the failed attempt's error).
	// Working, Thinking and RunningTool with Attempt > 0: the retried request runs.
	Attempt, MaxAttempts int
	RetryIn              time.Duration
	Reason               string
	// Compacting: "manual", "threshold" or "overflow".
	CompactionReason string
}

// StatusLine renders the spinner line under the chat: an empty spacer line, then e.g.
// " ⠹ Thinking... (12s · esc to interrupt)" or " ⠹ Retrying (1/3) in 4s... (esc to cancel) · 503
// Service Unavailable" (the reason last: a narrow terminal cuts it, not the countdown). A retry
// chain is this one line, updated, never a line per attempt. Idle gives no lines.
func (r *Renderer) StatusLine(s Status, width int) []string {
	if s.Activity == Idle {
		return nil
	}
	spin := theme.Accent
	cancel := "(" + r.keys.Interrupt + " to cancel)"
	var label string
	timed := false
	switch s.Activity {
	case Working:
		label, timed = "Working...", true
		if s.Message != "" {
			label = oneLine(s.Message)
		}
	case Thinking:
		label, timed = "Thinking...", true
	case RunningTool:
		timed = true
		switch {
		case s.Tools > 1:
			label = "Running " + itoa(s.Tools) + " tools..."
		case s.Tool != "":
			label = "Running " + oneLine(s.Tool) + "..."
		default:
			label = "Running tool..."
		}
	case Retrying:
		spin = theme.Warning
		secs := int((s.RetryIn + time.Second - 1) / time.Second)
		label = fmt.Sprintf("Retrying (%d/%d) in %ds... %s", s.Attempt, s.MaxAttempts, max(secs, 0), cancel)
		if s.Reason != "" {
			label += " · " + oneLine(s.Reason)
		}
	case Compacting:
		switch s.CompactionReason {
		case "manual":
			label = "Compacting context... " + cancel
		case "overflow":
			label = "Context overflow detected, Auto-compacting... " + cancel
		default:
			label = "Auto-compacting... " + cancel
		}
	case Summarizing:
		label = "Summarizing branch... " + cancel
	}
	if timed {
		retry := ""
		if s.Attempt > 0 {
			retry = fmt.Sprintf("retry %d/%d · ", s.Attempt, s.MaxAttempts)
		}
		label += " (" + retry + FormatElapsed(s.Elapsed) + " · " + r.keys.Interrupt + " to interrupt)"
	}
	indicator := r.th.Fg(spin, spinnerFrame(s.Spinner)) + " "
	if s.Verbatim {
		indicator = ""
		if s.Spinner != "" {
			indicator = s.Spinner + " "
		}
	}
	line := indicator + r.th.Fg(theme.Muted, label)
	return append([]string{""}, padLeft([]string{Truncate(line, max(width-2, 1), "...")}, width)...)
}

// FormatElapsed shows a duration compactly: "0s", "12s", "1m 05s", "1h 02m".
func FormatElapsed(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm %02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh %02dm", s/3600, s%3600/60)
	}
}

// EditorBorder is the rule drawn above and below the editor: in the colour of the thinking level
// (pi's editor border), or the bash colour when the text starts with "!".
func (r *Renderer) EditorBorder(thinkingLevel string, bashMode bool, width int) string {
	k := theme.ThinkingKey(thinkingLevel)
	if bashMode {
		k = theme.BashMode
	}
	return r.th.Fg(k, strings.Repeat("─", max(width, 1)))
}
