package extensions

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ErrExited is the error of every call to an extension process that has exited.
var ErrExited = errors.New("extension process exited")

// ErrTimeout is the error of a call the extension did not answer in time.
var ErrTimeout = errors.New("extension did not answer in time")

// RequestHandler answers what an extension asks of pi-go (a dialog, sendUserMessage, …). It runs on
// its own goroutine; ctx ends when the process does. A method without an answer returns nil.
type RequestHandler func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)

// process is one extension process and its end of the protocol. Writes are queued without bound so
// a child that stops reading never blocks pi-go (its calls time out; Close kills it); reads happen on
// one goroutine that routes results to their calls.
type process struct {
	path    string // the executable or, for the sidecar, a name for errors
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	handler RequestHandler
	onError func(ExtensionError)
	// lastNote is closed when the last id-less request has been handled (owned by readLoop).
	lastNote <-chan struct{}

	outMu sync.Mutex
	out   [][]byte // lines to write, in order, taken by writeLoop
	// beforeSend, when set, gives a line to write before each message (the sidecar's session
	// entries), so the message finds the session as it is.
	beforeSend func() []byte
	wake       chan struct{} // (capacity 1) tells writeLoop that out has lines
	closing    chan struct{} // closed by close after it queued shutdown: writeLoop writes out, then ends stdin
	done       chan struct{} // closed when the child has exited and the reader has stopped
	exitErr    error         // why, set before done is closed

	mu       sync.Mutex
	nextID   int64
	calls    map[int64]*call
	register chan extMessage // the first register message; later ones replace regs and tell the handler
	regs     extMessage

	requests  atomic.Int32 // requests of the child being answered: they pause every call's deadline
	stderr    tailBuffer
	ctx       context.Context // ends with the process: requests being answered see it
	cancelCtx context.CancelFunc
	closeOnce sync.Once
}

// call is one request of the host waiting for its result.
type call struct {
	result chan extMessage
	update func(json.RawMessage)
}

// startProcess starts argv with the process group and parent-death settings of the platform, and
// sends init. It does not wait for the child's registrations (see awaitRegister).
func startProcess(argv []string, env []string, dir string, init hostMessage, handler RequestHandler,
	onError func(ExtensionError)) (*process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.SysProcAttr = childProcAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &process{
		path:     argv[len(argv)-1],
		cmd:      cmd,
		stdin:    stdin,
		handler:  handler,
		onError:  onError,
		wake:     make(chan struct{}, 1),
		closing:  make(chan struct{}),
		done:     make(chan struct{}),
		calls:    map[int64]*call{},
		register: make(chan extMessage, 1),
	}
	cmd.Stderr = &p.stderr
	// The requests' context names the process: a provider it registers streams through it.
	p.ctx, p.cancelCtx = context.WithCancel(context.WithValue(context.Background(), processKey{}, p))
	if err := cmd.Start(); err != nil {
		p.cancelCtx()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	go p.writeLoop()
	go p.readLoop(stdout)
	init.Type = msgInit
	init.Protocol = ProtocolVersion
	p.send(init)
	return p, nil
}

// awaitRegister waits for the child's first register message.
func (p *process) awaitRegister(ctx context.Context) (extMessage, error) {
	select {
	case m := <-p.register:
		return m, nil
	case <-p.done:
		return extMessage{}, p.exitErr
	case <-ctx.Done():
		return extMessage{}, fmt.Errorf("%s: no registration: %w", p.path, ErrTimeout)
	}
}

// send queues one message; it never waits for the child. After the process has gone it is dropped.
func (p *process) send(m hostMessage) {
	line, err := json.Marshal(m)
	if err != nil {
		p.reportf("", "encode %s: %v", m.Type, err)
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	p.outMu.Lock()
	if p.beforeSend != nil {
		if pre := p.beforeSend(); pre != nil {
			p.out = append(p.out, pre)
		}
	}
	p.out = append(p.out, append(line, '\n'))
	p.outMu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default: // writeLoop has been woken already and will take this line too
	}
}

// setBeforeSend sets beforeSend; the messages sent from then on carry its lines.
func (p *process) setBeforeSend(fn func() []byte) {
	p.outMu.Lock()
	p.beforeSend = fn
	p.outMu.Unlock()
}

// writeLoop owns stdin: it writes the queued lines in order and, once close has queued shutdown,
// writes what is left (shutdown last) and closes stdin.
func (p *process) writeLoop() {
	for {
		select {
		case <-p.wake:
		case <-p.closing:
		case <-p.done:
			return
		}
		// Seen before the queue is taken: a closing seen here has its shutdown in the queue.
		closing := false
		select {
		case <-p.closing:
			closing = true
		default:
		}
		p.outMu.Lock()
		lines := p.out
		p.out = nil
		p.outMu.Unlock()
		for _, line := range lines {
			if _, err := p.stdin.Write(line); err != nil {
				// The reader sees the exit and fails the calls; stop writing.
				<-p.done
				return
			}
		}
		if closing {
			_ = p.stdin.Close()
			return
		}
	}
}

// readLoop routes the child's lines until its stdout closes, then reaps it and fails what waits.
func (p *process) readLoop(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	registered := false
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var m extMessage
		if err := json.Unmarshal(line, &m); err != nil {
			p.reportf("", "not a protocol line on stdout (%v): %.200s", err, line)
			continue
		}
		switch m.Type {
		case msgRegister:
			p.mu.Lock()
			before := p.regs.MarkdownTransformer.types()
			p.regs = m
			p.mu.Unlock()
			if !registered {
				registered = true
				p.register <- m
				continue
			}
			// A later register replaces the registrations (a tool registered after the start):
			// applied before the next line is read, so a command's result comes after its tools.
			if _, err := p.handler(p.ctx, methodRegistered, nil); err != nil {
				p.reportf("register", "%v", err)
			}
			// It may carry another markdown transformer (the sidecar's reload, or a handler that
			// registered one and then a tool): the TUI learns the surfaces as from the request.
			if !slices.Equal(before, m.MarkdownTransformer.types()) {
				if _, err := p.handler(p.ctx, "markdownTransformer", nil); err != nil {
					p.reportf("markdownTransformer", "%v", err)
				}
			}
		case msgResult, msgToolUpdate, msgStreamUpdate:
			p.deliver(m)
		case msgRequest:
			if m.Method == "markdownTransformer" {
				// Applied before the next line: a transform asked after it uses the new surfaces.
				if err := p.setMarkdownSpec(m.Params); err != nil {
					p.reportf(m.Method, "%v", err)
				} else if _, err := p.handler(p.ctx, m.Method, nil); err != nil {
					p.reportf(m.Method, "%v", err)
				}
				continue
			}
			if m.Method == "mcpServers" || m.Method == "registerProvider" || m.Method == "unregisterProvider" ||
				m.Method == "registerVirtualModel" || m.Method == "unregisterVirtualModel" {
				// Applied before the next line is read: a tool that registered a server returns
				// after the server joined pi-go's MCP manager, so the next request already sees it;
				// providers registered while loading are in pi-go's models when register arrives.
				if _, err := p.handler(p.ctx, m.Method, m.Params); err != nil {
					p.reportf(m.Method, "%v", err)
				}
				continue
			}
			p.answer(m)
		case msgError:
			ev := ExtensionError{ExtensionPath: m.ExtensionPath, Event: m.EventName, Error: m.Error}
			if ev.ExtensionPath == "" {
				ev.ExtensionPath = p.path
			}
			p.onError(ev)
		default:
			p.reportf("", "unknown message type %q", m.Type)
		}
	}
	err := p.cmd.Wait()
	p.exitErr = p.describeExit(err)
	p.cancelCtx()
	close(p.done)
	// Every waiting call watches done and returns exitErr.
}

func (p *process) describeExit(err error) error {
	msg := "exit status 0"
	if err != nil {
		msg = err.Error()
	}
	if tail := p.stderr.String(); tail != "" {
		msg += ": " + tail
	}
	return fmt.Errorf("%w (%s): %s", ErrExited, p.path, msg)
}

// deliver hands a result or update to the call it answers.
func (p *process) deliver(m extMessage) {
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	if err != nil {
		p.reportf("", "%s with an id that is no call's: %s", m.Type, m.ID)
		return
	}
	p.mu.Lock()
	c := p.calls[id]
	if c != nil && m.Type == msgResult {
		delete(p.calls, id)
	}
	p.mu.Unlock()
	if c == nil {
		return // the call timed out or was cancelled already
	}
	if m.Type != msgResult {
		if c.update != nil {
			c.update(m.Partial)
		}
		return
	}
	// A result waits for the id-less requests the child wrote before it (a session_start handler's
	// setActiveTools must have acted when the event is answered). Those handlers return at once.
	if tail := p.lastNote; tail != nil {
		select {
		case <-tail:
		default:
			go func() {
				select {
				case <-tail:
				case <-p.done:
				}
				c.result <- m
			}()
			return
		}
	}
	c.result <- m
}

// answer runs the handler for a request of the child on its own goroutine (a dialog may wait for the
// user for as long as it takes); while it runs, the deadlines of the host's calls are paused.
// Requests without an id (pi's fire-and-forget calls: sendMessage, setActiveTools, notify, …) are
// handled one after the other in the order they came, as pi runs them synchronously; their handlers
// return at once.
func (p *process) answer(m extMessage) {
	p.requests.Add(1)
	var prev <-chan struct{}
	var turn chan struct{}
	if len(m.ID) == 0 || string(m.ID) == "null" {
		prev, turn = p.lastNote, make(chan struct{}) // readLoop is the only caller: no lock needed
		p.lastNote = turn
	}
	go func() {
		defer p.requests.Add(-1)
		if turn != nil {
			defer close(turn)
			if prev != nil {
				<-prev
			}
		}
		res, err := p.handler(p.ctx, m.Method, m.Params)
		if len(m.ID) == 0 || string(m.ID) == "null" {
			if err != nil {
				p.reportf(m.Method, "%v", err)
			}
			return
		}
		resp := hostMessage{Type: msgResponse, ID: json.RawMessage(m.ID), Result: res}
		if err != nil {
			resp.Error = err.Error()
		}
		p.send(resp)
	}()
}

// call sends a request and waits for its result. timeout 0 waits as long as ctx allows; otherwise the
// deadline runs only while the child has no request of its own being answered (it may be asking the
// user). Cancelling ctx sends cancel and returns ctx's error.
func (p *process) call(ctx context.Context, m hostMessage, timeout time.Duration, update func(json.RawMessage)) (json.RawMessage, error) {
	select {
	case <-p.done:
		return nil, p.exitErr
	default:
	}
	c := &call{result: make(chan extMessage, 1), update: update}
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	p.calls[id] = c
	p.mu.Unlock()
	m.ID = id
	p.send(m)

	var tick <-chan time.Time
	if timeout > 0 {
		t := time.NewTicker(timeout)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case res := <-c.result:
			if res.Error != "" {
				return nil, errors.New(res.Error)
			}
			return res.Result, nil
		case <-p.done:
			return nil, p.exitErr
		case <-ctx.Done():
			p.forget(id)
			p.send(hostMessage{Type: msgCancel, ID: id})
			return nil, ctx.Err()
		case <-tick:
			if p.requests.Load() > 0 {
				continue // the child is waiting for us (a dialog): its time does not run
			}
			p.forget(id)
			p.send(hostMessage{Type: msgCancel, ID: id})
			return nil, fmt.Errorf("%s after %s: %w", m.Type, timeout, ErrTimeout)
		}
	}
}

func (p *process) forget(id int64) {
	p.mu.Lock()
	delete(p.calls, id)
	p.mu.Unlock()
}

// registrations is the latest register message.
func (p *process) registrations() extMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.regs
}

func (p *process) reportf(event, format string, args ...any) {
	p.onError(ExtensionError{ExtensionPath: p.path, Event: event, Error: fmt.Sprintf(format, args...)})
}

// close asks the child to shut down, waits up to grace for it, then kills its process group.
func (p *process) close(grace time.Duration) {
	p.closeOnce.Do(func() {
		p.send(hostMessage{Type: msgShutdown})
		close(p.closing)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-p.done:
		case <-t.C:
		}
		killGroup(p.cmd)
		<-p.done
	})
}

// tailBuffer keeps the last few kilobytes a child wrote to stderr, for the error that reports its exit.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 2048

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > tailMax {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailMax:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}

// environ is the child's environment: pi-go's own, so an extension sees what pi-go sees.
func environ(extra ...string) []string { return append(os.Environ(), extra...) }
