package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-go/pi-go/internal/config"
)

// State is where a server's connection stands.
type State string

const (
	StateDisabled     State = "disabled"
	StateConnecting   State = "connecting"
	StateConnected    State = "connected"
	StateFailed       State = "failed"
	StateDisconnected State = "disconnected"
	StateNeedsAuth    State = "needs-auth"
	StateClosed       State = "closed"
)

// DefaultTimeout is a server's per-request timeout when its config sets none (pi's 60 seconds).
const DefaultTimeout = 60 * time.Second

// conn is one configured server's connection. It connects on demand (the manager asks once at
// start) and again when a call finds the connection gone; connecting never blocks a caller past its
// context, and one connect attempt is shared by every caller waiting for it.
type conn struct {
	server Server
	env    connEnv

	mu           sync.Mutex
	state        State
	err          string
	session      *sdk.ClientSession
	proc         *stdioProcess
	tools        []*sdk.Tool
	instructions string
	hasResources bool
	opening      chan struct{} // closed when the connect in progress ends; nil when none is
	closed       bool
	// registered is the config JSON of a server an extension registered: a registration with
	// another config replaces the connection.
	registered string

	progressSeq atomic.Int64
	progress    sync.Map // progress token (string) → func(*sdk.ProgressNotificationParams)
}

// connEnv is what a connection needs from its manager.
type connEnv struct {
	cwd      string
	resolver *config.ValueResolver
	version  string
	// httpClient carries HTTP requests (nil: http.DefaultClient's transport).
	httpClient *http.Client
	// changed is called after every state or tool change, without locks held.
	changed func(*conn)
	// log receives the server's logging notifications.
	log func(server string, p *sdk.LoggingMessageParams)
	// tokenSource gives the OAuth access token of an OAuth server ("" when none is stored).
	tokenSource func(ctx context.Context, server Server) (string, error)
	// providerToken gives the credential of the auth.provider of a server (nil: none).
	providerToken func(ctx context.Context, provider string) (string, error)
	// wg owns the goroutines connections start.
	wg *sync.WaitGroup
	// shutdown is cancelled when the manager closes.
	shutdown context.Context
}

func newConn(s Server, env connEnv) *conn {
	c := &conn{server: s, env: env, state: StateConnecting}
	if !s.Config.Enabled {
		c.state = StateDisabled
	}
	return c
}

func (c *conn) timeout() time.Duration {
	if t := c.server.Config.Timeout; t > 0 {
		return time.Duration(t * float64(time.Second))
	}
	return DefaultTimeout
}

// Status is a snapshot of a server for /mcp and pi mcp list.
type Status struct {
	Server       Server
	State        State
	Error        string
	Tools        []*sdk.Tool
	Instructions string
	HasResources bool
}

func (c *conn) status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Status{Server: c.server, State: c.state, Error: c.err, Tools: c.tools, Instructions: c.instructions, HasResources: c.hasResources}
}

func (c *conn) notify() {
	if c.env.changed != nil {
		c.env.changed(c)
	}
}

// waitOpening waits until the connect in progress, if any, ends, or ctx does (its error).
func (c *conn) waitOpening(ctx context.Context) error {
	c.mu.Lock()
	opening := c.opening
	c.mu.Unlock()
	if opening == nil {
		return nil
	}
	select {
	case <-opening:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startConnect starts a connect unless one is in progress or the server is connected, and returns
// the channel closed when the connect in progress ends (nil when connected or unavailable).
func (c *conn) startConnect() chan struct{} {
	c.mu.Lock()
	if c.closed || !c.server.Config.Enabled || c.session != nil {
		c.mu.Unlock()
		return nil
	}
	opening := c.opening
	if opening == nil {
		opening = make(chan struct{})
		c.opening = opening
		c.state, c.err = StateConnecting, ""
		c.env.wg.Add(1)
		go func() {
			defer c.env.wg.Done()
			c.open(opening)
		}()
	}
	c.mu.Unlock()
	c.notify()
	return opening
}

// client returns the connected session, connecting when there is none. It waits for the connect
// at most until ctx ends; the connect itself is bounded by the server's timeout and by shutdown.
func (c *conn) client(ctx context.Context) (*sdk.ClientSession, error) {
	if opening := c.startConnect(); opening != nil {
		select {
		case <-opening:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return nil, fmt.Errorf("MCP server %q is shut down", c.server.Name)
	case !c.server.Config.Enabled:
		return nil, fmt.Errorf("MCP server %q is disabled", c.server.Name)
	case c.session != nil:
		return c.session, nil
	case c.state == StateNeedsAuth:
		return nil, errors.New(signInRequiredMessage(c.server))
	}
	return nil, fmt.Errorf("MCP server %q failed to connect: %s", c.server.Name, c.err)
}

// open connects once and records the outcome; done is closed at the end.
func (c *conn) open(done chan struct{}) {
	ctx, cancel := context.WithTimeout(c.env.shutdown, c.timeout())
	defer cancel()
	session, proc, err := c.connectRetrying(ctx)
	c.mu.Lock()
	c.opening = nil
	if err == nil && c.closed {
		err = errors.New("shut down while connecting")
	}
	if err != nil {
		if session != nil {
			_ = session.Close()
		}
		if proc != nil {
			proc.stopContext(c.env.shutdown)
		}
		var authErr *authRequiredError
		switch {
		case c.closed:
			c.state = StateClosed
		case errors.As(err, &authErr):
			c.state, c.err = StateNeedsAuth, ""
		default:
			c.state, c.err = StateFailed, describeConnectError(err, ctx, c.timeout())
			if proc != nil {
				if tail := strings.TrimSpace(proc.stderr.String()); tail != "" {
					c.err += "\n" + tail
				}
			}
		}
		c.mu.Unlock()
		close(done)
		c.notify()
		return
	}
	c.session, c.proc = session, proc
	c.state, c.err = StateConnected, ""
	c.mu.Unlock()
	close(done)
	c.notify()
	c.env.wg.Add(1)
	go func() {
		defer c.env.wg.Done()
		c.watch(session, proc)
	}()
}

// signInRequiredMessage is pi's message for a server that needs sign-in: with /login of its
// auth.provider, else with /mcp.
func signInRequiredMessage(s Server) string {
	how := "/mcp"
	if s.Config.AuthProvider != "" {
		how = "/login " + s.Config.AuthProvider
	}
	return fmt.Sprintf("MCP server %q requires sign-in. Run %s to sign in.", s.Name, how)
}

// connectRetrying connects; an HTTP server that failed transiently (connection refused or reset,
// 408, 429, 5xx) is tried again, within ctx.
func (c *conn) connectRetrying(ctx context.Context) (*sdk.ClientSession, *stdioProcess, error) {
	if !c.server.Config.IsHTTP() {
		return c.connect(ctx)
	}
	session, err := retryTransient(ctx, c.server.Name, connectRetryDelays, func(ctx context.Context) (*sdk.ClientSession, error) {
		s, _, err := c.connect(ctx)
		if err != nil && s != nil {
			_ = s.Close()
			s = nil
		}
		return s, err
	})
	return session, nil, err
}

func describeConnectError(err error, ctx context.Context, timeout time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("timed out after %s: %v", timeout, err)
	}
	return err.Error()
}

// watch waits for the session to end; a session that ends while it is current dropped: the state
// says so and the next call reconnects.
func (c *conn) watch(session *sdk.ClientSession, proc *stdioProcess) {
	_ = session.Wait()
	c.mu.Lock()
	if c.session != session {
		c.mu.Unlock()
		return
	}
	c.session, c.proc = nil, nil
	c.state, c.err = StateDisconnected, "Connection closed"
	if proc != nil {
		if tail := strings.TrimSpace(proc.stderr.String()); tail != "" {
			c.err += "\n" + tail
		}
	}
	c.mu.Unlock()
	if proc != nil {
		proc.stopContext(c.env.shutdown)
	}
	c.notify()
}

// connect starts the transport, initializes and lists the tools.
func (c *conn) connect(ctx context.Context) (*sdk.ClientSession, *stdioProcess, error) {
	cfg := &c.server.Config
	client := sdk.NewClient(&sdk.Implementation{Name: "pi", Version: c.env.version}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			c.env.wg.Add(1)
			go func() {
				defer c.env.wg.Done()
				c.refreshTools()
			}()
		},
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			if c.env.log != nil {
				c.env.log(c.server.Name, req.Params)
			}
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			if fn, ok := c.progress.Load(fmt.Sprint(req.Params.ProgressToken)); ok {
				fn.(func(*sdk.ProgressNotificationParams))(req.Params)
			}
		},
	})
	client.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(c.env.cwd)}).String(), Name: filepath.Base(c.env.cwd)})
	var transport sdk.Transport
	var proc *stdioProcess
	if cfg.IsHTTP() {
		headers, err := c.resolveAll(ctx, cfg.Headers, "header")
		if err != nil {
			return nil, nil, err
		}
		transport = &sdk.StreamableClientTransport{
			Endpoint:   cfg.URL,
			HTTPClient: &http.Client{Transport: &headerTransport{conn: c, headers: headers}},
			MaxRetries: 2,
		}
	} else {
		env, err := c.resolveAll(ctx, cfg.Env, "env")
		if err != nil {
			return nil, nil, err
		}
		var pairs []string
		for k, v := range env {
			pairs = append(pairs, k+"="+v)
		}
		home, _ := config.HomeDir(nil)
		args := make([]string, len(cfg.Args))
		for i, a := range cfg.Args {
			args[i] = config.ExpandTilde(a, home)
		}
		dir := config.ExpandTilde(cfg.Cwd, home)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(c.env.cwd, dir)
		}
		if proc, err = startStdio(config.ExpandTilde(cfg.Command, home), args, dir, pairs); err != nil {
			return nil, nil, err
		}
		transport = proc.transport()
	}
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, proc, err
	}
	init := session.InitializeResult()
	var tools []*sdk.Tool
	if init != nil && init.Capabilities != nil && init.Capabilities.Tools != nil {
		if tools, err = listTools(ctx, session); err != nil {
			return session, proc, fmt.Errorf("list tools: %w", err)
		}
	}
	c.mu.Lock()
	c.tools = tools
	if init != nil {
		c.instructions = strings.TrimSpace(init.Instructions)
		c.hasResources = init.Capabilities != nil && init.Capabilities.Resources != nil
	}
	c.mu.Unlock()
	return session, proc, nil
}

func listTools(ctx context.Context, s *sdk.ClientSession) ([]*sdk.Tool, error) {
	var tools []*sdk.Tool
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// refreshTools re-lists the tools after the server announced a change.
func (c *conn) refreshTools() {
	c.mu.Lock()
	s := c.session
	c.mu.Unlock()
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(c.env.shutdown, c.timeout())
	defer cancel()
	tools, err := listTools(ctx, s)
	c.mu.Lock()
	if c.session != s {
		c.mu.Unlock()
		return
	}
	if err != nil {
		c.err = "Failed to refresh tools: " + err.Error()
	} else {
		c.tools = tools
	}
	c.mu.Unlock()
	c.notify()
}

// resolveAll resolves ${VAR} and !command values; an unresolvable one names the server and key.
func (c *conn) resolveAll(ctx context.Context, values map[string]string, kind string) (map[string]string, error) {
	out := make(map[string]string, len(values))
	for k, v := range values {
		r, err := c.env.resolver.Resolve(ctx, v)
		if err != nil {
			return nil, fmt.Errorf("MCP server %q %s %q: %w", c.server.Name, kind, k, err)
		}
		out[k] = r
	}
	return out, nil
}

// headerTransport adds the configured headers, and an OAuth server's bearer token, to every request.
type headerTransport struct {
	conn    *conn
	headers map[string]string
}

// authRequiredError is a 401 of an OAuth server, or of a server with auth.provider, without a
// usable token: the user must sign in.
type authRequiredError struct{ status int }

func (e *authRequiredError) Error() string { return fmt.Sprintf("HTTP %d: sign-in required", e.status) }

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	cfg := &t.conn.server.Config
	oauth := cfg.UsesOAuth() && t.conn.env.tokenSource != nil
	if cfg.AuthProvider != "" && t.conn.env.providerToken != nil {
		// Missing or unusable credentials send no token: the server's 401 says to sign in.
		if token, err := t.conn.env.providerToken(req.Context(), cfg.AuthProvider); err == nil && token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
	}
	if oauth {
		token, err := t.conn.env.tokenSource(req.Context(), t.conn.status().Server)
		if err != nil {
			return nil, err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
	}
	base := http.DefaultTransport
	if t.conn.env.httpClient != nil && t.conn.env.httpClient.Transport != nil {
		base = t.conn.env.httpClient.Transport
	}
	resp, err := base.RoundTrip(req)
	noteTransient(req, resp, err)
	if err == nil && resp.StatusCode == http.StatusUnauthorized && (cfg.UsesOAuth() || cfg.AuthProvider != "") {
		resp.Body.Close()
		return nil, &authRequiredError{status: resp.StatusCode}
	}
	return resp, err
}

// callTool calls one tool. Progress notifications reach onProgress and reset the timeout; when ctx
// ends the SDK sends notifications/cancelled so the server stops the work.
func (c *conn) callTool(ctx context.Context, tool string, args any, onProgress func(*sdk.ProgressNotificationParams)) (*sdk.CallToolResult, error) {
	session, err := c.client(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timeout := c.timeout()
	timer := time.AfterFunc(timeout, func() {
		cancel(fmt.Errorf("MCP server %q did not answer %s within %s", c.server.Name, tool, timeout))
	})
	defer timer.Stop()
	token := fmt.Sprintf("pi-go-%d", c.progressSeq.Add(1))
	c.progress.Store(token, func(p *sdk.ProgressNotificationParams) {
		timer.Reset(timeout)
		if onProgress != nil {
			onProgress(p)
		}
	})
	defer c.progress.Delete(token)
	params := &sdk.CallToolParams{Name: tool, Arguments: args}
	params.SetProgressToken(token)
	res, err := session.CallTool(ctx, params)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			return nil, cause
		}
		return nil, err
	}
	return res, nil
}

// withSession runs a read-only request with a timeout.
// A transient HTTP failure is tried again once, as pi does for resources.
func (c *conn) withSession(ctx context.Context, run func(ctx context.Context, s *sdk.ClientSession) error) error {
	_, err := retryTransient(ctx, c.server.Name, resourceRetryDelays, func(ctx context.Context) (struct{}, error) {
		session, err := c.client(ctx)
		if err != nil {
			return struct{}{}, err
		}
		ctx, cancel := context.WithTimeout(ctx, c.timeout())
		defer cancel()
		return struct{}{}, run(ctx, session)
	})
	return err
}

// disconnect closes the session and stops the process; the state becomes next.
func (c *conn) disconnect(ctx context.Context, next State) {
	c.mu.Lock()
	session, proc := c.session, c.proc
	c.session, c.proc = nil, nil
	c.state, c.err = next, ""
	if next == StateClosed {
		c.closed = true
	}
	c.mu.Unlock()
	// A stdio server is stopped first: its exit ends the session's reads, which Close waits for.
	if proc != nil {
		proc.stopContext(ctx)
	}
	if session != nil {
		closed := make(chan struct{})
		go func() { _ = session.Close(); close(closed) }()
		select {
		case <-closed:
		case <-ctx.Done():
		}
	}
	c.notify()
}
