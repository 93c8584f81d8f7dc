package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools/output"
	"github.com/pi-go/pi-go/internal/tools/shell"
)

//go:embed bash.md
var bashDescription string

const bashSchema = `{"type":"object","required":["command"],"properties":{"command":{"type":"string","description":"Shell command to execute"},"timeout":{"type":"number","description":"Timeout in seconds (optional, no default timeout)"}}}`

// BashDetails is the details object of bash results and updates.
type BashDetails struct {
	Truncation     *output.Truncation `json:"truncation,omitempty"`
	FullOutputPath string             `json:"fullOutputPath,omitempty"`
}

type bashTool struct {
	cwd  string
	opts shell.Options
}

// bashUpdateInterval throttles streamed updates to one per 100 ms, as pi does.
const bashUpdateInterval = 100 * time.Millisecond

// NewBash returns the bash tool running commands in cwd.
func NewBash(cwd string, opts shell.Options) loop.Tool {
	return &bashTool{cwd: cwd, opts: opts}
}

func (t *bashTool) Definition() provider.ToolDefinition {
	return withPreferStrictSampling(toolDefinition("bash", bashDescription, bashSchema))
}

type bashArgs struct {
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"`
}

func (t *bashTool) Execute(ctx context.Context, call loop.ToolCall, onUpdate func(loop.ToolResult)) (loop.ToolResult, error) {
	var args bashArgs
	if err := decodeArgs("bash", call.Args, &args); err != nil {
		return loop.ToolResult{}, err
	}
	command := args.Command
	timeout, err := bashTimeout(args.Timeout)
	if err != nil {
		return loop.ToolResult{}, err
	}

	out := shell.NewCapture(t.opts.OutputDir, "pi-bash")
	defer out.Close()
	if onUpdate != nil {
		onUpdate(loop.ToolResult{Content: []provider.Content{}})
	}
	var (
		dirty    bool
		lastEmit time.Time
	)
	emit := func() {
		if onUpdate == nil || !dirty {
			return
		}
		dirty = false
		lastEmit = time.Now()
		tr, path := out.Snapshot(true)
		details := &BashDetails{FullOutputPath: path}
		if tr.Truncated {
			details.Truncation = &tr
		}
		onUpdate(loop.ToolResult{Content: []provider.Content{provider.TextContent(tr.Content)}, Details: details})
	}

	started := time.Now()
	res, err := shell.Exec(ctx, command, t.cwd, t.opts, timeout, func(chunk []byte) time.Duration {
		out.Append(chunk)
		if onUpdate == nil {
			return 0
		}
		dirty = true
		delay := bashUpdateInterval - time.Since(lastEmit)
		if delay <= 0 {
			emit()
			return 0
		}
		return delay
	}, emit)
	out.Finish()
	emit()
	if err != nil && !errors.Is(err, shell.ErrAborted) {
		return loop.ToolResult{}, err
	}
	if err != nil || res.Aborted {
		text, _ := bashFormat(out, "")
		return loop.ToolResult{}, errors.New(bashAppendStatus(text, "Command aborted"))
	}
	if res.TimedOut {
		text, _ := bashFormat(out, "")
		return loop.ToolResult{}, errors.New(bashAppendStatus(text,
			fmt.Sprintf("Command timed out after %s seconds", jsNumber(*args.Timeout))))
	}
	text, details := bashFormat(out, "(no output)")
	if res.ExitCode == nil {
		// Killed by a signal (pi 1.6; 0.73.1 took it for success).
		return loop.ToolResult{}, errors.New(bashAppendStatus(text, "Command terminated without an exit code"))
	}
	// pi 1.6 reports the run as data too, and a non-zero exit as an error result of its own (the
	// structured content goes with it) rather than a failure.
	full, truncated := out.FullOutput()
	sc := bashOutput{Output: full, Truncated: truncated, ExitCode: *res.ExitCode,
		WallTimeSeconds: math.Round(float64(time.Since(started).Milliseconds())/100) / 10}
	if truncated {
		_, sc.FullOutputPath = out.Snapshot(true)
	}
	result := loop.ToolResult{StructuredContent: sc}
	if details != nil {
		result.Details = details
	}
	if *res.ExitCode != 0 {
		text = bashAppendStatus(text, fmt.Sprintf("Command exited with code %d", *res.ExitCode))
		result.IsError = true
	}
	result.Content = []provider.Content{provider.TextContent(text)}
	return result, nil
}

// bashOutput is bash's structured content (pi 1.6), for programmatic callers: the whole output (up to
// shell.FullOutputMax bytes, then its start and end), unlike the tail the model is shown.
type bashOutput struct {
	Output          string  `json:"output"`
	Truncated       bool    `json:"truncated"`
	FullOutputPath  string  `json:"full_output_path,omitempty"`
	ExitCode        int     `json:"exit_code"`
	WallTimeSeconds float64 `json:"wall_time_seconds"`
}

// bashMaxTimeout is pi's limit (the longest delay Node's setTimeout takes, 2^31-1 ms): a longer
// timeout is surely a mistake.
const bashMaxTimeout = 2147483647 * time.Millisecond

// bashTimeout checks the timeout argument (seconds; nil means none). Zero, negative, NaN, infinite
// and over-long values are refused with a message the model can act on, as pi 1.6 does; a value
// that would overflow a time.Duration must never turn into "no timeout" or an instant one.
func bashTimeout(seconds *float64) (time.Duration, error) {
	if seconds == nil {
		return 0, nil
	}
	s := *seconds
	if math.IsNaN(s) || math.IsInf(s, 0) || s <= 0 {
		return 0, fmt.Errorf("Invalid timeout: %s. It must be a positive number of seconds; leave it out for no timeout.", jsNumber(s))
	}
	if s > bashMaxTimeout.Seconds() {
		return 0, fmt.Errorf("Invalid timeout: %s. The maximum is %s seconds; leave it out for no timeout.", jsNumber(s), jsNumber(bashMaxTimeout.Seconds()))
	}
	return time.Duration(s * float64(time.Second)), nil
}

// bashFormat is the final text (tail-truncated output, or empty when there is none) with pi's
// truncation notice; details are non-nil only when the output was truncated.
func bashFormat(out *shell.Capture, empty string) (string, *BashDetails) {
	tr, path := out.Snapshot(true)
	out.Close()
	text := tr.Content
	if text == "" {
		text = empty
	}
	if !tr.Truncated {
		return text, nil
	}
	start := tr.TotalLines - tr.OutputLines + 1
	end := tr.TotalLines
	full := path + out.DroppedNote()
	switch {
	case tr.LastLinePartial:
		text += fmt.Sprintf("\n\n[Showing last %s of line %d (line is %s). Full output: %s]",
			output.FormatSize(tr.OutputBytes), end, output.FormatSize(out.LastLineBytes()), full)
	case tr.TruncatedBy != nil && *tr.TruncatedBy == "lines":
		text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d. Full output: %s]", start, end, tr.TotalLines, full)
	default:
		text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d (%s limit). Full output: %s]",
			start, end, tr.TotalLines, output.FormatSize(output.DefaultMaxBytes), full)
	}
	return text, &BashDetails{Truncation: &tr, FullOutputPath: path}
}

func bashAppendStatus(text, status string) string {
	if text == "" {
		return status
	}
	return text + "\n\n" + status
}
