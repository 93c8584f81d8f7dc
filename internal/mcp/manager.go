package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-go/pi-go/internal/config"
)

// Options configure a Manager.
type Options struct {
	// AgentDir is ~/.pi/agent (mcp.json, mcp-auth.json, mcp.log); Cwd the session's directory.
	AgentDir string
	Cwd      string
	// ProjectTrusted says whether the project's .pi/mcp.json counts.
	ProjectTrusted bool
	// Resolver resolves ${VAR} and !command values (nil: a resolver over the process environment).
	Resolver *config.ValueResolver
	// Version is pi-go's version, sent in initialize.
	Version string
	// HTTPClient carries HTTP servers' requests (nil: the default transport).
	HTTPClient *http.Client
	// OnChange is called after a server's state or tools changed, from any goroutine.
	OnChange func()
	// Credentials stores OAuth tokens (nil: mcp-auth.json in AgentDir).
	Credentials *CredentialStore
	// ProviderToken is the credential of a /login provider, for servers with auth.provider; read on
	// every request, so the provider's changes apply ("" or nil: none, the server's 401 then says
	// to sign in).
	ProviderToken func(ctx context.Context, provider string) (string, error)
}

// Manager owns the connections of the configured servers. Servers connect in the background; tools
// are listed once connected; a call connects a server that is not (reconnect on demand). Close stops
// every server and waits for every goroutine the manager started.
type Manager struct {
	opts     Options
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []*conn
	config   *Config
	log      *serverLog
	onChange func()
	started  sync.Once
	// running is set once Start ran: servers registered later connect at once. startedCh is
	// closed then.
	running   bool
	startedCh chan struct{}
	// overridden are the registrations an mcp.json server of the same name shadows.
	overridden []string
}

// NewManager builds a manager for cfg (see Load); nothing connects until Start.
func NewManager(cfg *Config, opts Options) *Manager {
	if opts.Resolver == nil {
		opts.Resolver = config.NewValueResolver(nil)
	}
	if opts.Credentials == nil {
		opts.Credentials = NewCredentialStore(opts.AgentDir)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{opts: opts, ctx: ctx, cancel: cancel, config: cfg, log: newServerLog(opts.AgentDir), onChange: opts.OnChange,
		startedCh: make(chan struct{})}
	for _, s := range cfg.Servers {
		m.conns = append(m.conns, newConn(s, m.connEnv()))
	}
	return m
}

func (m *Manager) connEnv() connEnv {
	return connEnv{
		cwd:        m.opts.Cwd,
		resolver:   m.opts.Resolver,
		version:    m.opts.Version,
		httpClient: m.opts.HTTPClient,
		changed:    func(*conn) { m.changed() },
		log:        m.log.write,
		tokenSource: func(ctx context.Context, s Server) (string, error) {
			return m.opts.Credentials.AccessToken(ctx, s, m.opts.HTTPClient)
		},
		providerToken: m.opts.ProviderToken,
		wg:            &m.wg,
		shutdown:      m.ctx,
	}
}

func (m *Manager) changed() {
	m.mu.Lock()
	fn := m.onChange
	m.mu.Unlock()
	if fn != nil {
		fn()
	}
}

// SetOnChange replaces the change callback (the TUI subscribes after the manager was built).
func (m *Manager) SetOnChange(fn func()) { m.mu.Lock(); m.onChange = fn; m.mu.Unlock() }

// Config is the configuration the manager was built from (its Errors are the files' problems).
func (m *Manager) Config() *Config { return m.config }

// Start connects every enabled server in the background and returns at once. Only the first call
// does anything; waiting for servers (Wait, WaitDirect) starts them first, so a prompt sent before
// the TUI's first frame (which starts them) still finds its servers.
func (m *Manager) Start() {
	m.started.Do(func() {
		m.mu.Lock()
		m.running = true
		m.mu.Unlock()
		for _, c := range m.snapshot() {
			c.startConnect()
		}
		close(m.startedCh)
	})
}

func (m *Manager) snapshot() []*conn {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.conns)
}

func (m *Manager) conn(name string) (*conn, error) {
	for _, c := range m.snapshot() {
		if c.server.Name == name {
			return c, nil
		}
	}
	return nil, fmt.Errorf("no MCP server named %q", name)
}

// Statuses lists the servers in configuration order.
func (m *Manager) Statuses() []Status {
	var out []Status
	for _, c := range m.snapshot() {
		out = append(out, c.status())
	}
	return out
}

// Status is one server's status.
func (m *Manager) Status(name string) (Status, error) {
	c, err := m.conn(name)
	if err != nil {
		return Status{}, err
	}
	return c.status(), nil
}

// Wait waits until no enabled server is connecting, or ctx ends (tool_search and the resource tools
// wait for every server, as pi's do).
func (m *Manager) Wait(ctx context.Context) {
	m.Start()
	for _, c := range m.snapshot() {
		if c.waitOpening(ctx) != nil {
			return
		}
	}
}

// WaitDirect waits for the servers with direct tools, at most timeout (pi waits up to 10 seconds
// before a prompt, so the first request can declare them).
func (m *Manager) WaitDirect(ctx context.Context, timeout time.Duration) {
	m.Start()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, c := range m.snapshot() {
		if c.hasDirectTools() && c.waitOpening(ctx) != nil {
			return
		}
	}
}

// Reconnect drops name's connection and connects again, waiting until it is done or ctx ends.
func (m *Manager) Reconnect(ctx context.Context, name string) error {
	c, err := m.conn(name)
	if err != nil {
		return err
	}
	if err := c.waitOpening(ctx); err != nil {
		return err
	}
	c.disconnect(ctx, StateConnecting)
	_, err = c.client(ctx)
	return err
}

// SetEnabled enables or disables a server for this session and saves the change to the file that
// defines it (or that overrides it). Disabling disconnects; enabling connects in the background.
func (m *Manager) SetEnabled(name string, enabled bool) error {
	c, err := m.patchServer(name, ServerPatch{Enabled: &enabled})
	if err != nil {
		return err
	}
	if !enabled {
		c.disconnect(m.ctx, StateDisabled)
		return nil
	}
	c.startConnect()
	return nil
}

// SetExposure changes a server's exposure for this session and saves it.
func (m *Manager) SetExposure(name string, e Exposure) error {
	if _, err := m.patchServer(name, ServerPatch{Exposure: &e}); err != nil {
		return err
	}
	m.changed()
	return nil
}

// patchServer saves patch to the file that defines name (its project override when it has one,
// else its own file) and applies it to this session's config of the server. A server an extension
// registered has no file: the change applies to this session only, as in pi.
func (m *Manager) patchServer(name string, patch ServerPatch) (*conn, error) {
	c, err := m.conn(name)
	if err != nil {
		return nil, err
	}
	// Source and Override never change after Load; Config is read and written under c.mu.
	file := c.server.Source
	if c.server.Override != "" {
		file = c.server.Override
	}
	if c.server.Scope != ScopeExtension {
		if err := UpdateServer(file, name, patch, false); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	if patch.Enabled != nil {
		c.server.Config.Enabled = *patch.Enabled
	}
	if patch.Exposure != nil {
		c.server.Config.Exposure = *patch.Exposure
	}
	c.mu.Unlock()
	return c, nil
}

// Close disconnects every server, stopping stdio servers' process groups, and waits for the
// manager's goroutines, at most until ctx ends.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	m.cancel()
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range m.snapshot() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.disconnect(ctx, StateClosed)
		}()
	}
	wg.Wait()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return errors.New("MCP servers did not stop in time")
	}
}

// CallTool calls a server's tool by its server-side name.
func (m *Manager) CallTool(ctx context.Context, server, tool string, args any, onProgress func(*sdk.ProgressNotificationParams)) (*sdk.CallToolResult, error) {
	c, err := m.conn(server)
	if err != nil {
		return nil, err
	}
	return c.callTool(ctx, tool, args, onProgress)
}

func (c *conn) hasDirectTools() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	cfg := &c.server.Config
	if !cfg.Enabled {
		return false
	}
	if cfg.ServerExposure() == ExposureDirect {
		return true
	}
	for _, r := range cfg.ToolExposure {
		if r.Exposure == ExposureDirect {
			return true
		}
	}
	return false
}

// SignIn signs in to an OAuth server (prompt shows the authorization page) and reconnects it.
func (m *Manager) SignIn(ctx context.Context, name string, prompt SignInPrompt) error {
	c, err := m.conn(name)
	if err != nil {
		return err
	}
	if !c.server.Config.UsesOAuth() {
		return fmt.Errorf("MCP server %q does not use OAuth. Only HTTP servers without an Authorization header do.", name)
	}
	resolve := func(ctx context.Context, v string) (string, error) { return m.opts.Resolver.Resolve(ctx, v) }
	if err := m.opts.Credentials.SignIn(ctx, c.status().Server, m.opts.HTTPClient, resolve, prompt); err != nil {
		return err
	}
	return m.Reconnect(ctx, name)
}

// SignOut deletes a server's stored credentials and disconnects it; it reports whether any were stored.
func (m *Manager) SignOut(ctx context.Context, name string) (bool, error) {
	c, err := m.conn(name)
	if err != nil {
		return false, err
	}
	removed, err := m.opts.Credentials.Remove(name, c.server.Config.URL)
	if err != nil {
		return false, err
	}
	c.disconnect(ctx, StateNeedsAuth)
	return removed, nil
}

// Credentials is the store of OAuth credentials.
func (m *Manager) Credentials() *CredentialStore { return m.opts.Credentials }
