package extensions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Config is what the host starts and how.
type Config struct {
	Cwd      string
	AgentDir string
	// Mode is ctx.mode as pi names it: "tui", "rpc", "print" or "json"; HasUI is ctx.hasUI.
	Mode  string
	HasUI bool
	// SessionFile is the session's JSONL file ("" for an in-memory session); the sidecar opens a pi
	// SessionManager on it for ctx.sessionManager.
	SessionFile string
	// SessionEntries, when set, is asked before each message to the sidecar (under its write lock,
	// so it must be quick) what an in-memory session gained since it last answered; nil when
	// nothing. A session with a file returns nil: the sidecar reads the file.
	SessionEntries func() *SessionEntries
	// Sidecar runs the TypeScript and JavaScript extensions (nil: none).
	Sidecar *Sidecar
	// Executables are extensions in any language, one process each, in load order after the sidecar's.
	Executables []string
	// Flags are the command-line flags pi-go did not know, for extensions' registerFlag (name without
	// dashes → "true" for a bare flag or the value that followed it).
	Flags map[string]any
	// CallTimeout bounds every event and command call (0: DefaultCallTimeout); StartTimeout the wait
	// for the processes' registrations (0: DefaultStartTimeout). Tool executions have no deadline
	// but end with the run's context.
	CallTimeout  time.Duration
	StartTimeout time.Duration
	// OnError receives every extension error (a throwing handler, a crash, a timeout); nil drops them.
	OnError func(ExtensionError)
	// OnMCPServers receives the whole list of registered MCP servers: once when the processes have
	// registered (when any registered one), then whenever an extension changes it. Calls come one at
	// a time, newest list last; nil drops them.
	OnMCPServers func([]MCPServer)
	// OnProvider receives each provider an extension registers or unregisters (provider.go), in the
	// order the extension made the calls; those made while loading arrive before the start ends.
	// Its error is reported as the extension's. nil ignores them.
	OnProvider func(ProviderChange) error
	// OnVirtualModel receives each virtual model an extension registers or unregisters
	// (virtual.go), in order, as OnProvider does. nil ignores them.
	OnVirtualModel func(VirtualModelChange) error
	// OnMarkdownTransformers receives the surfaces some extension transforms (MarkdownTransformers)
	// whenever an extension registers, replaces or withdraws its transformer after the start. nil
	// ignores them.
	OnMarkdownTransformers func(messageTypes []string)
	// OnRegister is called when a process registered again after the start (tools, commands or
	// events it added or replaced since: read them anew, e.g. with Tools). It runs before the
	// process's next line is read and must not call into the processes and wait. nil ignores it.
	OnRegister func()
}

// methodRegistered is how a process tells the host's handler of a later register message.
const methodRegistered = "pi-go:registered"

// Defaults for Config's timeouts.
const (
	DefaultCallTimeout  = 30 * time.Second
	DefaultStartTimeout = 60 * time.Second
)

// Host owns the extension processes of one pi-go run.
type Host struct {
	cfg     Config
	handler atomic.Pointer[RequestHandler]

	startOnce sync.Once
	ready     chan struct{} // closed when every process has registered or failed to
	stopStart context.CancelFunc
	startCtx  context.Context // cancelled by Close: a start in progress gives up
	procs     []*process      // in load order; set before ready is closed
	sidecar   *process        // the Node sidecar among procs (nil: none); set before ready is closed

	// What Preload started before the final set was known (trust.go); start keeps these processes.
	preloaded  bool
	pre        []*process
	preSidecar *process
	preScripts []string

	stateMu sync.Mutex
	state   State

	term terminal // the terminal UI's size and theme (ui.go)

	// mcpMu serializes the MCP server lists and their delivery to OnMCPServers.
	mcpMu      sync.Mutex
	mcpServers []MCPServer
	mcpSeq     int64 // the seq of the newest "mcpServers" request applied; 0: none yet

	// logins are the provider logins in progress, by the loginId of their provider_login (login.go).
	logins   sync.Map
	loginSeq atomic.Int64
}

// New returns a host for cfg; nothing is started until Start.
func New(cfg Config) *Host {
	if cfg.CallTimeout == 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.OnError == nil {
		cfg.OnError = func(ExtensionError) {}
	}
	h := &Host{cfg: cfg, ready: make(chan struct{})}
	h.startCtx, h.stopStart = context.WithCancel(context.Background())
	return h
}

// Empty reports whether there is nothing to start.
func (h *Host) Empty() bool { return h.cfg.Sidecar == nil && len(h.cfg.Executables) == 0 }

// SetHandler binds what answers the extensions' requests (the session exists after the host).
// Requests that come before, or after SetHandler(nil), are answered with an error.
func (h *Host) SetHandler(fn RequestHandler) { h.handler.Store(&fn) }

func (h *Host) handle(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method == "mcpServers" {
		// Requests are answered concurrently: seq puts the lists back in the order they were sent.
		var p struct {
			Seq     int64       `json:"seq"`
			Servers []MCPServer `json:"servers"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("mcpServers: %w", err)
		}
		h.mcpMu.Lock()
		defer h.mcpMu.Unlock()
		if p.Seq <= h.mcpSeq {
			return nil, nil
		}
		h.mcpServers, h.mcpSeq = p.Servers, p.Seq
		if h.cfg.OnMCPServers != nil {
			h.cfg.OnMCPServers(slices.Clone(p.Servers))
		}
		return nil, nil
	}
	if method == "registerProvider" || method == "unregisterProvider" {
		p, _ := ctx.Value(processKey{}).(*process)
		return nil, h.handleProvider(p, method, params)
	}
	if method == "registerVirtualModel" || method == "unregisterVirtualModel" {
		p, _ := ctx.Value(processKey{}).(*process)
		return nil, h.handleVirtualModel(p, method, params)
	}
	if method == "login" {
		return h.handleLogin(ctx, params)
	}
	if method == "markdownTransformer" {
		// The process has applied it (readLoop); the TUI learns the surfaces now.
		if h.cfg.OnMarkdownTransformers != nil && h.Started() {
			h.cfg.OnMarkdownTransformers(h.MarkdownTransformers())
		}
		return nil, nil
	}
	if method == methodRegistered {
		// Before the start ends the tools are read with the first registrations anyway.
		if h.cfg.OnRegister != nil && h.Started() {
			h.cfg.OnRegister()
		}
		return nil, nil
	}
	if method == "getState" {
		h.stateMu.Lock()
		defer h.stateMu.Unlock()
		return json.Marshal(h.state)
	}
	fn := h.handler.Load()
	if fn == nil || *fn == nil {
		return nil, fmt.Errorf("%s: pi-go is still starting", method)
	}
	return (*fn)(ctx, method, params)
}

// Start starts the processes in the background and returns at once.
func (h *Host) Start() {
	h.startOnce.Do(func() { go h.start() })
}

func (h *Host) start() {
	defer func() {
		close(h.ready)
		// After ready: a size set meanwhile is either in this push or pushed by SetTerminal.
		h.pushTerminal(h.procs)
	}()
	if h.Empty() {
		h.closeUnused()
		return
	}
	ctx, cancel := context.WithTimeout(h.startCtx, h.cfg.StartTimeout)
	defer cancel()
	if h.preloaded {
		h.extend(ctx)
	} else {
		h.sidecar, h.procs = h.launch(ctx, h.cfg.Sidecar, h.cfg.Executables)
	}
	h.mcpMu.Lock()
	if h.mcpSeq == 0 {
		h.mcpServers = nil
		for _, p := range h.procs {
			h.mcpServers = append(h.mcpServers, p.registrations().MCPServers...)
		}
	}
	h.mcpMu.Unlock()
	h.reportMCPServers()
}

// launch starts the sidecar for sc (nil: none) and one process per executable, and waits until each
// has registered or failed to (reported, and left out). It returns the sidecar's process and all the
// processes that registered, in load order.
func (h *Host) launch(ctx context.Context, sc *Sidecar, executables []string) (sidecar *process, procs []*process) {
	h.stateMu.Lock()
	state := h.state
	h.stateMu.Unlock()
	type started struct {
		p   *process
		err error
	}
	var argvs [][]string
	var paths [][]string
	if sc != nil {
		argvs = append(argvs, sc.argv())
		paths = append(paths, sc.Extensions)
	}
	for _, exe := range executables {
		argvs = append(argvs, []string{exe})
		paths = append(paths, nil)
	}
	results := make([]started, len(argvs))
	var wg sync.WaitGroup
	for i, argv := range argvs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hasUI := h.cfg.HasUI
			init := hostMessage{Cwd: h.cfg.Cwd, AgentDir: h.cfg.AgentDir, Mode: h.cfg.Mode, HasUI: &hasUI,
				SessionFile: h.cfg.SessionFile, Paths: paths[i], Flags: h.cfg.Flags, State: &state}
			if i == 0 && sc != nil {
				init.Options = sc.options()
			}
			p, err := startProcess(argv, environ(), h.cfg.Cwd, init, h.handle, h.cfg.OnError)
			if err == nil && i == 0 && sc != nil && h.cfg.SessionEntries != nil {
				p.setBeforeSend(h.sessionEntriesLine)
			}
			if err == nil {
				if _, err = p.awaitRegister(ctx); err != nil {
					grace := time.Second
					if errors.Is(ctx.Err(), context.Canceled) {
						grace = 0 // pi-go is exiting: no time for goodbyes
					}
					p.close(grace)
				}
			}
			results[i] = started{p, err}
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.err != nil && errors.Is(ctx.Err(), context.Canceled) {
			continue // closed (or interrupted) while starting: not the extension's failure
		}
		if r.err != nil {
			h.cfg.OnError(ExtensionError{ExtensionPath: argvs[i][len(argvs[i])-1], Event: "load", Error: r.err.Error()})
			continue
		}
		procs = append(procs, r.p)
		if i == 0 && sc != nil {
			sidecar = r.p
		}
		h.reportLoadErrors(r.p)
	}
	return sidecar, procs
}

// reportLoadErrors reports the extensions p's first registration says failed to load.
func (h *Host) reportLoadErrors(p *process) {
	for _, le := range p.registrations().Errors {
		h.cfg.OnError(ExtensionError{ExtensionPath: le.Path, Event: "load", Error: le.Error})
	}
}

// sessionEntriesLine is the session_entries line for what the in-memory session gained, or nil.
func (h *Host) sessionEntriesLine() []byte {
	d := h.cfg.SessionEntries()
	if d == nil {
		return nil
	}
	line, err := json.Marshal(hostMessage{Type: msgSessionEntries, Session: d})
	if err != nil {
		h.cfg.OnError(ExtensionError{Event: msgSessionEntries, Error: err.Error()})
		return nil
	}
	return append(line, '\n')
}

// reportMCPServers hands the servers registered while loading to OnMCPServers, unless a later
// list already reached it.
func (h *Host) reportMCPServers() {
	h.mcpMu.Lock()
	defer h.mcpMu.Unlock()
	if h.mcpSeq == 0 && len(h.mcpServers) > 0 && h.cfg.OnMCPServers != nil {
		h.cfg.OnMCPServers(slices.Clone(h.mcpServers))
	}
}

// MCPServers are the MCP servers the extensions registered, after the start (waited for, at most
// until ctx ends).
func (h *Host) MCPServers(ctx context.Context) []MCPServer {
	if h.Empty() {
		return nil
	}
	h.Start()
	if h.Wait(ctx) != nil {
		return nil
	}
	h.mcpMu.Lock()
	defer h.mcpMu.Unlock()
	return slices.Clone(h.mcpServers)
}

// Wait waits until the processes have registered (or failed to), at most until ctx ends.
func (h *Host) Wait(ctx context.Context) error {
	select {
	case <-h.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Started reports whether the processes have registered, without waiting.
func (h *Host) Started() bool {
	select {
	case <-h.ready:
		return true
	default:
		return false
	}
}

// live is the processes that registered and still run, after the start (waited for).
func (h *Host) live(ctx context.Context) []*process {
	if h.Empty() {
		return nil
	}
	h.Start()
	if h.Wait(ctx) != nil {
		return nil
	}
	out := make([]*process, 0, len(h.procs))
	for _, p := range h.procs {
		select {
		case <-p.done:
		default:
			out = append(out, p)
		}
	}
	return out
}

// subscribed is the live processes with handlers for event.
func (h *Host) subscribed(ctx context.Context, event string) []*process {
	var out []*process
	for _, p := range h.live(ctx) {
		if slices.Contains(p.registrations().Events, event) {
			out = append(out, p)
		}
	}
	return out
}

// HasHandlers reports whether any extension handles event (waiting for the start).
func (h *Host) HasHandlers(ctx context.Context, event string) bool {
	return len(h.subscribed(ctx, event)) > 0
}

// emit sends an event that expects an answer to every subscribed process in load order, handing
// each answer (or the process's failure, already reported) to next, which may stop the chain. payload
// builds the event for the next process, so a chain sees what the previous process changed.
func (h *Host) emit(ctx context.Context, event string, payload func() any, next func(res json.RawMessage, err error) (stop bool)) {
	for _, p := range h.subscribed(ctx, event) {
		body, err := json.Marshal(payload())
		if err == nil {
			var res json.RawMessage
			res, err = p.call(ctx, hostMessage{Type: msgEvent, Event: body}, h.cfg.CallTimeout, nil)
			if err == nil {
				if next(res, nil) {
					return
				}
				continue
			}
		}
		if ctx.Err() != nil {
			return
		}
		h.cfg.OnError(ExtensionError{ExtensionPath: p.path, Event: event, Error: err.Error()})
		if next(nil, err) {
			return
		}
	}
}

// Emit sends an event to every subscribed process and returns the answers that are not null, in load
// order (the session_before_* events, whose answers the caller combines).
func (h *Host) Emit(ctx context.Context, event string, payload any) []json.RawMessage {
	var out []json.RawMessage
	h.emit(ctx, event, func() any { return payload }, func(res json.RawMessage, err error) bool {
		if err == nil && len(res) > 0 && string(res) != "null" {
			out = append(out, res)
		}
		return false
	})
	return out
}

// Notify sends an event nobody answers (agent_start, turn_end, session_start, …) to the subscribed
// processes. It does not wait for the start: before it, events are dropped, as pi's runner is not
// bound before its session starts.
func (h *Host) Notify(event string, payload any) {
	if !h.Started() {
		return
	}
	var body json.RawMessage
	for _, p := range h.subscribed(context.Background(), event) {
		if body == nil {
			b, err := json.Marshal(payload)
			if err != nil {
				h.cfg.OnError(ExtensionError{ExtensionPath: p.path, Event: event, Error: err.Error()})
				return
			}
			body = b
		}
		p.send(hostMessage{Type: msgEvent, Event: body})
	}
}

// SetState replaces the state mirror and pushes it to the processes.
func (h *Host) SetState(s State) {
	h.stateMu.Lock()
	h.state = s
	h.stateMu.Unlock()
	if !h.Started() {
		return // the processes get it with init
	}
	for _, p := range h.procs {
		p.send(hostMessage{Type: msgState, State: &s})
	}
}

// UpdateState changes the state mirror through fn and pushes it.
func (h *Host) UpdateState(fn func(*State)) {
	h.stateMu.Lock()
	s := h.state
	fn(&s)
	h.stateMu.Unlock()
	h.SetState(s)
}

// Close shuts the processes down (a grace period each, then their process groups are killed).
func (h *Host) Close() {
	if h.Empty() && !h.preloaded {
		return // nothing was ever started; a preload's processes are closed below even when the final set is empty
	}
	h.startOnce.Do(func() { close(h.ready) }) // never started: nothing to close
	h.stopStart()                             // a start in progress gives up and kills what it started
	<-h.ready
	var wg sync.WaitGroup
	for _, p := range h.closing() {
		wg.Add(1)
		go func() { defer wg.Done(); p.close(2 * time.Second) }()
	}
	wg.Wait()
}

// errNoExtension is RunCommand's answer for a name nobody registered.
var errNoExtension = errors.New("no extension registered it")
