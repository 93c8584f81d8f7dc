package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// ScopeExtension marks a server an extension registered with pi.registerMcpServer; its Source is
// the extension's path.
const ScopeExtension Scope = "extension"

// Registration is one server an extension registered (pi's pi.registerMcpServer(name, config)):
// Config is the mcpServers entry as the extension gave it.
type Registration struct {
	Name          string          `json:"name"`
	Config        json.RawMessage `json:"config"`
	ExtensionPath string          `json:"extensionPath"`
}

// registrationStopTimeout bounds stopping a server whose registration was withdrawn.
const registrationStopTimeout = 5 * time.Second

// SetRegistered makes regs the servers extensions registered, as pi's MCP extension handles
// mcp_servers_change: a server whose name an mcp.json server already uses (up to - and _) is left
// out and listed by Overridden; registrations that were withdrawn or changed their config are
// stopped in the background; new ones join the manager and connect at once when it has started. It returns the
// registrations that are invalid, each naming its extension; the others are applied.
func (m *Manager) SetRegistered(regs []Registration) []error {
	var errs []error
	var overridden []string
	type candidate struct {
		server Server
		config string
	}
	var next []candidate
	for _, r := range regs {
		var entry *jsonx.Object
		if jsonx.IsObject(r.Config) {
			var err error
			if entry, err = jsonx.ParseObject(r.Config); err != nil {
				errs = append(errs, fmt.Errorf("MCP server %q registered by %s: %w", r.Name, r.ExtensionPath, err))
				continue
			}
		}
		cfg, err := validateServer(r.Name, entry)
		if err != nil {
			errs = append(errs, fmt.Errorf("invalid MCP server registered by extension %q: %w", r.ExtensionPath, err))
			continue
		}
		if other := m.configured(r.Name); other != nil {
			overridden = append(overridden, fmt.Sprintf("%q registered by %s is overridden by %q in %s", r.Name, r.ExtensionPath, other.Name, other.Source))
			continue
		}
		next = append(next, candidate{
			server: Server{Name: r.Name, Config: *cfg, Source: r.ExtensionPath, Scope: ScopeExtension, raw: entry},
			config: string(r.Config),
		})
	}

	m.mu.Lock()
	if m.ctx.Err() != nil { // closed: Close cancels under m.mu, so no goroutine is added after it
		m.mu.Unlock()
		return errs
	}
	var kept, removed []*conn
	current := map[string]*conn{}
	for _, c := range m.conns {
		if c.server.Scope != ScopeExtension {
			kept = append(kept, c)
			continue
		}
		current[c.server.Name] = c
	}
	var added []*conn
	for _, n := range next {
		if c := current[n.server.Name]; c != nil && c.registered == n.config && c.server.Source == n.server.Source {
			kept = append(kept, c)
			delete(current, n.server.Name)
			continue
		}
		c := newConn(n.server, m.connEnv())
		c.registered = n.config
		kept = append(kept, c)
		added = append(added, c)
	}
	for _, c := range current {
		removed = append(removed, c)
	}
	m.conns = kept
	m.overridden = overridden
	running := m.running
	m.wg.Add(len(removed))
	m.mu.Unlock()

	// Withdrawn servers stop in the background (Close waits for them): stopping a stdio server can
	// take its SIGTERM grace, and the caller reads the extension's next messages.
	for _, c := range removed {
		go func() {
			defer m.wg.Done()
			// Not m.ctx: Close would cut the stop short and leave the process unreaped.
			ctx, cancel := context.WithTimeout(context.Background(), registrationStopTimeout)
			defer cancel()
			c.disconnect(ctx, StateClosed)
		}()
	}
	if running {
		for _, c := range added {
			c.startConnect()
		}
	}
	m.changed()
	return errs
}

// configured is the mcp.json server whose namespace name shares, or nil: it takes precedence over
// a registration.
func (m *Manager) configured(name string) *Server {
	for i := range m.config.Servers {
		if namespace(m.config.Servers[i].Name) == namespace(name) {
			return &m.config.Servers[i]
		}
	}
	return nil
}

// Overridden describes the registrations left out because an mcp.json server has their name, as
// /mcp lists them.
func (m *Manager) Overridden() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.overridden...)
}
