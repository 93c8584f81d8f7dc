package shell

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/pi-go/pi-go/internal/lazyregexp"
	"github.com/pi-go/pi-go/internal/tools/output"
)

// UserResult is the outcome of a command the user ran themselves (`!cmd` in the editor, the RPC
// `bash` command): pi's BashResult, with its JSON field names, stored in the session as a
// bashExecution message.
type UserResult struct {
	// Output is the sanitised output, tail-truncated when Truncated.
	Output string `json:"output"`
	// ExitCode is nil when the command was cancelled or killed by a signal.
	ExitCode  *int `json:"exitCode,omitempty"`
	Cancelled bool `json:"cancelled"`
	Truncated bool `json:"truncated"`
	// FullOutputPath is the file with the whole (sanitised) output, once it passed 50 KB (its end
	// only, past spoolLimit).
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// RunUser runs a command typed by the user as pi's interactive executor does: the same shell,
// environment and process handling as the bash tool (no timeout), output sanitised (ANSI escapes
// stripped, control characters and CR removed), streamed to onChunk (may be nil) chunk by chunk on the
// caller's goroutine, kept in a rolling buffer and spilled to pi-bash-<hex>.log in the output
// directory past 50 KB. Cancelling ctx kills the process group and returns the output so far with
// Cancelled set. Errors are for commands that could not run (bad shell path, missing cwd, spawn
// failure).
func RunUser(ctx context.Context, command, cwd string, opts Options, onChunk func(string)) (UserResult, error) {
	var (
		sink   = userSink{spool: newSpool(opts.OutputDir, "pi-bash")}
		dec    output.Decoder
		strip  ansiStripper
		result UserResult
	)
	defer sink.close()
	handle := func(text string) {
		if text == "" {
			return
		}
		sink.add(text)
		if onChunk != nil {
			onChunk(text)
		}
	}
	res, err := Exec(ctx, command, cwd, opts, 0, func(chunk []byte) time.Duration {
		sink.totalRaw += len(chunk)
		handle(sanitize(strip.strip(string(dec.Decode(chunk, false)), false)))
		return 0
	}, func() {})
	cancelled := errors.Is(err, ErrAborted) || res.Aborted
	if err != nil && !cancelled {
		return result, err
	}
	handle(sanitize(strip.strip(string(dec.Decode(nil, true)), true)))

	full := strings.Join(sink.chunks, "")
	tr := output.TruncateTail(full, output.DefaultMaxLines, output.DefaultMaxBytes)
	if tr.Truncated {
		sink.ensureFile()
	}
	result.Output = full
	if tr.Truncated {
		result.Output = tr.Content
	}
	result.Cancelled = cancelled
	result.Truncated = tr.Truncated
	result.FullOutputPath = sink.spool.path
	if !cancelled {
		result.ExitCode = res.ExitCode
	}
	return result, nil
}

// userSink is the executor's rolling buffer: it keeps about 100 KB of recent sanitised text
// (whole chunks) and, once more than 50 KB of raw output arrived, writes all text to a file in the
// output directory (bounded: spool).
type userSink struct {
	chunks   []string
	size     int
	totalRaw int
	spool    *spool
}

func (s *userSink) add(text string) {
	if s.totalRaw > output.DefaultMaxBytes {
		s.ensureFile()
	}
	s.spool.write([]byte(text))
	s.chunks = append(s.chunks, text)
	s.size += len(text)
	for s.size > 2*output.DefaultMaxBytes && len(s.chunks) > 1 {
		s.size -= len(s.chunks[0])
		s.chunks[0] = ""
		s.chunks = s.chunks[1:]
	}
}

// ensureFile starts the file with the text kept so far.
func (s *userSink) ensureFile() {
	if s.spool.started {
		return
	}
	if s.spool.open() {
		for _, c := range s.chunks {
			s.spool.write([]byte(c))
		}
	}
}

func (s *userSink) close() { s.spool.close() }

// ansiPattern is strip-ansi's expression: OSC strings ended by BEL, ESC \ or ST, and CSI / escape
// sequences.
var ansiPattern = lazyregexp.New(`(?:\x1b\][\s\S]*?(?:\x07|\x1b\x5c|\x{9c}))|[\x1b\x{9b}][\[\]()#;?]*(?:\d{1,4}(?:[;:]\d{0,4})*)?[\dA-PR-TZcf-nq-uy=><~]`)

// ansiStripper removes escape sequences from a stream of text, holding back a sequence that may
// continue in the next chunk.
type ansiStripper struct {
	held string
}

// ansiHoldMax bounds how much of an unfinished escape sequence is held for the next chunk.
const ansiHoldMax = 4096

func (s *ansiStripper) strip(text string, final bool) string {
	text = s.held + text
	s.held = ""
	if !final {
		if p := ansiIncomplete(text); p >= 0 {
			s.held = text[p:]
			text = text[:p]
		}
	}
	if !strings.ContainsAny(text, "\x1b\u009b") {
		return text
	}
	return ansiPattern.ReplaceAllString(text, "")
}

// ansiIncomplete finds the first escape sequence near the end of text that is not finished yet
// (an OSC string without its terminator, or an introducer followed only by parameter characters),
// or -1.
func ansiIncomplete(text string) int {
	from := max(0, len(text)-ansiHoldMax)
	for i := from; i < len(text); i++ {
		var rest string
		switch {
		case text[i] == 0x1b:
			rest = text[i+1:]
		case strings.HasPrefix(text[i:], "\u009b"):
			rest = text[i+len("\u009b"):]
		default:
			continue
		}
		if strings.HasPrefix(rest, "]") && !strings.ContainsAny(rest, "\x07\u009c") && !strings.Contains(rest, "\x1b\\") {
			return i
		}
		rest = strings.TrimLeft(rest, "[]()#;?")
		rest = strings.TrimLeft(rest, "0123456789;:")
		if rest == "" {
			return i
		}
	}
	return -1
}

// sanitize removes what pi's sanitizeBinaryOutput removes (control characters other than tab
// and newline, U+FFF9..U+FFFB) and every carriage return.
func sanitize(text string) string {
	clean := true
	for i := 0; i < len(text); i++ {
		if c := text[i]; (c < 0x20 && c != '\t' && c != '\n') || c == 0xEF {
			clean = false
			break
		}
	}
	if clean {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		switch {
		case r == '\t' || r == '\n':
		case r < 0x20:
			continue
		case r >= 0xFFF9 && r <= 0xFFFB:
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
