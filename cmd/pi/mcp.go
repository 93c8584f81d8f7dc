package main

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/mcp"
)

// mcpCloseTimeout bounds stopping the MCP servers when pi-go exits: a server that ignores stdin and
// SIGTERM is killed with its process group well before this.
const mcpCloseTimeout = 5 * time.Second

// startMCP reads mcp.json (the project's only when trusted) and builds the manager; it returns the
// tools declared from the start (tool_search, the resource tools). The servers are started by
// run (print, json and rpc modes) or by the TUI after its first frame, so starting five processes
// never competes with the first frame. With --no-mcp or --no-tools it does nothing; without a
// configured server it does nothing unless extensions run, which may register servers.
func (a *app) startMCP(cwd string, extensions bool) []loop.Tool {
	if a.opts.NoMCP || a.opts.NoTools {
		return nil
	}
	cfg := mcp.Load(a.paths.Dir, cwd, a.projectTrusted)
	for _, err := range cfg.Errors {
		a.warn("MCP: %v", err)
	}
	if len(cfg.Servers) == 0 && !extensions {
		return nil
	}
	a.mcp = mcp.NewManager(cfg, mcp.Options{AgentDir: a.paths.Dir, Cwd: cwd, ProjectTrusted: a.projectTrusted, Version: version,
		ProviderToken: providerToken(func() *config.Auth { return a.auth })})
	a.mcpTools = mcp.NewToolset(a.mcp)
	if a.sink != nil { // the TUI says once which servers need the user, as pi does
		a.mcp.ReportWhenSettled(func(report string) { a.sink.Warn(errors.New(report)) })
	}
	// --tools keeps MCP tools unless one of its entries names them (mcp__...), as pi does.
	if a.opts.ToolsSet && hasMCPEntry(a.opts.Tools) {
		a.mcpTools.Allowed = toolMatcher(a.opts.Tools)
	}
	return a.mcpTools.StaticTools()
}

func hasMCPEntry(entries []string) bool {
	for _, e := range entries {
		if strings.HasPrefix(strings.TrimLeft(e, "+-"), "mcp__") {
			return true
		}
	}
	return false
}

// setRegisteredMCP connects the MCP servers extensions registered (pi.registerMcpServer), beside
// those of mcp.json, and declares the tools they need (tool_search, the resource tools).
func (a *app) setRegisteredMCP(servers []extensions.MCPServer) {
	if a.mcp == nil {
		return // --no-mcp or --no-tools
	}
	regs := make([]mcp.Registration, len(servers))
	for i, s := range servers {
		regs[i] = mcp.Registration{Name: s.Name, Config: s.Config, ExtensionPath: s.ExtensionPath}
	}
	for _, err := range a.mcp.SetRegistered(regs) {
		a.sessionWarning(err)
	}
	a.mcpTools.ActivateStatic()
}

// mcpSections is the mcp_servers system prompt section's source (nil without MCP).
func (a *app) mcpSections() harness.SectionSource {
	if a.mcp == nil {
		return nil
	}
	return mcp.NewPromptSections(a.mcp)
}

// providerToken reads the credential of a provider for MCP servers with auth.provider: its key
// as a model request would use it (auth.json, models.json, its environment variable).
func providerToken(auth func() *config.Auth) func(ctx context.Context, provider string) (string, error) {
	return func(ctx context.Context, provider string) (string, error) {
		a := auth()
		if a == nil {
			return "", nil
		}
		key, _, err := a.APIKey(ctx, provider)
		if err != nil {
			return "", err
		}
		return key.Reveal(), nil
	}
}

// providerTokenIn is providerToken over the agent directory's auth.json and models.json, read on
// the first request (pi mcp list and login run without a session).
func providerTokenIn(agentDir string) func(ctx context.Context, provider string) (string, error) {
	var once sync.Once
	var auth *config.Auth
	return providerToken(func() *config.Auth {
		once.Do(func() {
			paths := config.AgentPaths{Dir: agentDir}
			file, _ := config.LoadAuthFile(paths.Auth())
			models, _ := config.LoadModelsConfig(paths.Models())
			auth = config.NewAuth(config.AuthOptions{File: file, Models: models})
		})
		return auth
	})
}

// toolMatcher matches names against --tools entries (exact names or * patterns).
func toolMatcher(entries []string) func(string) bool {
	sel := harness.ToolSelection{Tools: entries, ToolsSet: true}
	l := sel.Loadout(nil)
	return l.Allowed
}

// attachMCP lets the MCP tool set change the session's active tools (direct tools, tool_search).
func (a *app) attachMCP(sess *harness.Session) {
	if a.mcpTools != nil {
		a.mcpDetach = a.mcpTools.Attach(sess.Agent())
	}
}

// mcpAvailable are the MCP tools a restored transcript may declare.
func (a *app) mcpAvailable() []loop.Tool {
	if a.mcpTools == nil {
		return nil
	}
	return a.mcpTools.Available()
}

// closeMCP stops every MCP server, stdio servers with their process groups.
func (a *app) closeMCP() {
	if a.mcp == nil {
		return
	}
	if a.mcpDetach != nil {
		a.mcpDetach()
	}
	ctx, cancel := context.WithTimeout(context.Background(), mcpCloseTimeout)
	defer cancel()
	_ = a.mcp.Close(ctx)
}
