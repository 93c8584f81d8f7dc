package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"

	"github.com/pi-go/pi-go/internal/export"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/jsonx"
)

// DefaultMaxLineBytes bounds one command line. pi has no limit; pi-go answers a longer line with an
// error and skips it, so a runaway client cannot exhaust memory. Images of tens of megabytes fit.
const DefaultMaxLineBytes = 64 << 20

// ServeOptions configure Serve.
type ServeOptions struct {
	// Stderr receives warnings and logs; nothing but protocol records is ever written to out.
	Stderr io.Writer
	// MaxLineBytes bounds one command line (0: DefaultMaxLineBytes).
	MaxLineBytes int
	// ExportTheme colours export_html's page (the settings' theme; the zero value is a plain dark page).
	ExportTheme export.Theme
	// ExtensionUI is the extension host's end of the extension UI sub-protocol (nil: no extensions;
	// responses are ignored, as pi ignores strays).
	ExtensionUI ExtensionUI
	// Shutdown receives an extension's ctx.shutdown(): Serve then returns nil, as at the end of the
	// input, once no command is in progress and the session is idle (pi's checkShutdownRequested).
	Shutdown <-chan struct{}
}

// ExtensionUI connects extensions to the client: Attach gives it the function that writes its
// records (extension_ui_request, extension_error) among the responses and events, before the first
// command is read; Response receives every extension_ui_response line as the client sent it (the
// line's bytes are reused after Response returns: it copies what it keeps).
type ExtensionUI interface {
	Attach(write func(record json.RawMessage))
	Response(line []byte)
}

// Serve speaks pi's RPC protocol: commands are read from in, one JSON object per line, and responses
// and the session's events are written to out, one JSON object per line. Commands are handled as pi
// handles them: quick ones at once and in order, slow ones (prompt runs, abort, bash, session switches,
// compaction) in the background, so a slow command never holds up abort or get_state.
//
// Serve returns nil at the end of in, after aborting the current run and bash command, waiting for the
// commands still in progress and flushing the session file and out. When ctx ends it shuts down the same
// way and returns ctx.Err(); a read that is blocked on in then ends only when in does (close it, or
// exit). A failed write to out also shuts down, returning that error.
func Serve(ctx context.Context, sess *harness.Session, in io.Reader, out io.Writer, opts ServeOptions) error {
	return newServer(ctx, sess, out, opts).serve(ctx, in)
}

func newServer(ctx context.Context, sess *harness.Session, out io.Writer, opts ServeOptions) *server {
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	// Runs outlive a cancelled ctx only as long as shutdown needs to abort them.
	runCtx, cancelRuns := context.WithCancel(context.WithoutCancel(ctx))
	lw := NewLineWriter(out)
	return &server{
		sess:       sess,
		out:        lw,
		events:     NewEventWriter(lw),
		stderr:     opts.Stderr,
		maxLine:    opts.MaxLineBytes,
		theme:      opts.ExportTheme,
		runCtx:     runCtx,
		cancelRuns: cancelRuns,
		runs:       newRunState(sess),
		outFailed:  make(chan struct{}),
		extUI:      opts.ExtensionUI,
		idle:       make(chan struct{}, 1),
		shutdownCh: opts.Shutdown,
	}
}

type server struct {
	sess    *harness.Session
	out     *LineWriter
	events  *EventWriter // agent and session events, in order (the session calls onEvent one at a time)
	stderr  io.Writer
	maxLine int
	theme   export.Theme // export_html's colours
	// runCtx is the context of prompts and bash commands; cancelled at shutdown.
	runCtx     context.Context
	cancelRuns context.CancelFunc
	// tasks are the commands running in the background.
	tasks sync.WaitGroup
	runs  *runState
	// bashCancels stop the bash commands received and not yet answered (abort_bash).
	bashMu      sync.Mutex
	bashCancels map[int]context.CancelFunc
	nextBash    int

	outOnce   sync.Once
	outErr    error
	outFailed chan struct{}
	logMu     sync.Mutex
	extUI     ExtensionUI

	// active counts the background commands in progress; idle is signalled when one ends or the
	// session settles, for a shutdown that waits for both.
	active     atomic.Int64
	idle       chan struct{}
	shutdownCh <-chan struct{}
}

// inputLine is one record read from in, or the error that ended the input.
type inputLine struct {
	data    []byte
	size    int64
	tooLong bool
	err     error
}

func (s *server) serve(ctx context.Context, in io.Reader) error {
	unsubscribe := s.sess.Subscribe(s.onEvent)
	if s.extUI != nil {
		s.extUI.Attach(func(record json.RawMessage) { s.write(record, true) })
	}
	lines := make(chan inputLine)
	stop := make(chan struct{})
	go readInput(newLineReader(in, s.maxLine), lines, stop, s.takeUIResponse)

	var err error
	shutdownAsked := false
loop:
	for {
		select {
		case l := <-lines:
			if l.err != nil {
				if !errors.Is(l.err, io.EOF) {
					err = fmt.Errorf("reading commands: %w", l.err)
				}
				break loop
			}
			s.handleLine(l)
		case <-s.shutdownCh:
			shutdownAsked = true
		case <-s.idle:
		case <-ctx.Done():
			err = ctx.Err()
			break loop
		case <-s.outFailed:
			break loop
		}
		if shutdownAsked && s.active.Load() == 0 && !s.runs.isStreaming() && !s.sess.IsStreaming() {
			break loop
		}
	}
	close(stop)
	s.shutdown()
	unsubscribe()
	if cerr := s.out.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing output: %w", cerr)
	}
	if oerr := s.outputError(); err == nil && oerr != nil {
		err = fmt.Errorf("writing output: %w", oerr)
	}
	return err
}

// beginTask and endTask bracket a command that runs in the background.
func (s *server) beginTask() {
	s.active.Add(1)
	s.tasks.Add(1)
}

func (s *server) endTask() {
	s.active.Add(-1)
	s.tasks.Done()
	s.signalIdle()
}

// signalIdle wakes the command loop to see whether a shutdown asked for can happen now.
func (s *server) signalIdle() {
	select {
	case s.idle <- struct{}{}:
	default:
	}
}

// readInput sends every record of the input, then the error that ended it (io.EOF at the end). A
// record take consumes (an extension UI response) is not sent: it is answered on this goroutine, since
// the command loop may be waiting for the very command whose dialog it answers.
func readInput(lr *lineReader, lines chan<- inputLine, stop <-chan struct{}, take func([]byte) bool) {
	for {
		data, size, tooLong, err := lr.next()
		if err == nil && !tooLong && take != nil && take(data) {
			continue
		}
		select {
		case lines <- inputLine{data: data, size: size, tooLong: tooLong, err: err}:
		case <-stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// takeUIResponse hands an extension_ui_response record to the extension host.
func (s *server) takeUIResponse(data []byte) bool {
	if s.extUI == nil || !bytes.Contains(data, []byte("extension_ui_response")) {
		return false
	}
	var rec struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(data, &rec) != nil || rec.Type != "extension_ui_response" {
		return false
	}
	s.extUI.Response(data)
	return true
}

// shutdown stops everything still running, waits for the background commands and flushes the session.
func (s *server) shutdown() {
	s.cancelRuns()
	s.sess.Abort()
	s.sess.AbortBash()
	s.tasks.Wait()
	if err := s.sess.Store().Sync(); err != nil {
		s.logf("rpc: could not save the session: %v", err)
	}
}

// handleLine parses one record and runs its command.
func (s *server) handleLine(l inputLine) {
	if l.tooLong {
		s.write(parseFailureText(fmt.Sprintf("the line is %d bytes long, more than the limit of %d", l.size, s.maxLine)), true)
		return
	}
	text := decodeUTF8(l.data)
	if perr := checkJSON(text); perr != nil {
		msg := append(utf16.Encode([]rune("Failed to parse command: ")), perr.jsMessage(text)...)
		s.write(parseFailure(appendJSONUTF16(nil, msg)), true)
		return
	}
	c, resp := parseCommand(text)
	switch {
	case resp != nil:
		s.write(resp, true)
		return
	case c == nil:
		return // an extension UI response without a host (pi ignores strays too)
	}
	h, known := handlers[c.typ]
	switch {
	case !known:
		s.write(c.failText("Unknown command: "+c.typ), true)
	case h.background:
		s.beginTask()
		go func() {
			defer s.endTask()
			s.run(c, h)
		}()
	default:
		s.run(c, h)
	}
}

// parseCommand turns a valid JSON document into a command. Documents that are no command get pi's
// answers: "Unknown command: undefined" for values without a type, the type as JavaScript prints it for
// a type that is no string; as in pi 1.6, an object's id is echoed. A nil command with a nil response
// means there is nothing to answer.
func parseCommand(text string) (*command, *response) {
	doc := strings.TrimLeft(text, " \t\r\n")
	switch doc[0] {
	case '{':
	case 'n':
		// pi crashes on a null command (it reads null.id); say what is wrong instead.
		return nil, parseFailureText("a command must be a JSON object, not null")
	default:
		return nil, &response{errJSON: jsonx.AppendString(nil, "Unknown command: undefined")}
	}
	fields, err := splitObject(doc)
	if err != nil {
		return nil, parseFailureText(err.Error())
	}
	var id []byte
	if rawID, ok := fields["id"]; ok {
		v, err := parseJSValue([]byte(rawID))
		if err != nil {
			return nil, parseFailureText(err.Error())
		}
		id = v.appendStringify(nil)
	}
	rawType, hasType := fields["type"]
	if !hasType {
		return nil, &response{id: id, errJSON: jsonx.AppendString(nil, "Unknown command: undefined")}
	}
	typ, err := parseJSValue([]byte(rawType))
	if err != nil {
		return nil, parseFailureText(err.Error())
	}
	if typ.kind != 's' {
		return nil, &response{id: id, command: typ.appendStringify(nil),
			errJSON: jsonx.AppendString(nil, "Unknown command: "+typ.String())}
	}
	if typ.str == "extension_ui_response" {
		return nil, nil
	}
	return &command{typ: typ.str, fields: fields, id: id}, nil
}

// run executes a command and writes its response. A panic in a command is that command's error
// response (pi answers exceptions the same way), never the end of the session.
func (s *server) run(c *command, h handler) {
	if resp := s.call(c, h.fn); resp != nil {
		s.write(resp, true)
	}
}

func (s *server) call(c *command, fn func(*server, *command) *response) (resp *response) {
	defer func() {
		if r := recover(); r != nil {
			s.logf("rpc: %s failed: %v\n%s", c.typ, r, debug.Stack())
			resp = c.failText(fmt.Sprint(r))
		}
	}()
	return fn(s, c)
}

// onEvent writes every session event. Streamed deltas may wait in the buffer for a few milliseconds;
// everything else is flushed at once.
func (s *server) onEvent(e harness.Event) {
	s.runs.observe(e)
	if err := s.events.Write(e); err != nil {
		s.fail(err)
	}
	if e.Type == harness.EventAgentSettled {
		s.signalIdle()
	}
}

// write sends one record; the first failure shuts the server down.
func (s *server) write(v any, urgent bool) {
	if err := s.out.WriteRecord(v, urgent); err != nil {
		s.fail(err)
	}
}

// fail records the first output failure and shuts the server down.
func (s *server) fail(err error) {
	s.outOnce.Do(func() {
		s.logMu.Lock()
		s.outErr = err
		s.logMu.Unlock()
		s.logf("rpc: writing output: %v", err)
		close(s.outFailed)
	})
}

func (s *server) outputError() error {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.outErr
}

func (s *server) logf(format string, args ...any) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.stderr, format+"\n", args...)
}
