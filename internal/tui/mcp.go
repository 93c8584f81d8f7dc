package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/mcp"
	"github.com/pi-go/pi-go/internal/tui/picker"
)

// /mcp lists the MCP servers (those that need attention first) with their state, tool count,
// exposure and source; choosing one offers its tools, sign-in or sign-out, reconnect, enable or
// disable, and exposure. `/mcp reconnect|login|logout|enable|disable|tools <server>` and
// `/mcp exposure <server> <mode>` do the same without the pickers.

// mcpPickMsg is a choice in the /mcp pickers: a server (action ""), or an action on it.
type mcpPickMsg struct {
	server string
	action string
	arg    string
}

func mcpNeedsAttention(st mcp.Status) bool {
	return st.Server.Config.Enabled && st.State != mcp.StateConnected && st.State != mcp.StateConnecting
}

func mcpSummary(st mcp.Status) string {
	state := string(st.State)
	switch st.State {
	case mcp.StateConnected:
		state = fmt.Sprintf("connected, %d tools", len(st.Tools))
	case mcp.StateNeedsAuth:
		state = "needs sign-in"
	}
	source := string(st.Server.Scope)
	if st.Server.Override != "" {
		source += ", project override"
	}
	return fmt.Sprintf("%s · %s · %s", state, st.Server.Config.ServerExposure(), source)
}

func (m *model) cmdMCP(arg string) tea.Cmd {
	mgr := m.opts.MCP
	fields := strings.Fields(arg)
	if len(fields) == 0 {
		statuses := mgr.Statuses()
		if len(statuses) == 0 {
			m.addStatus("No MCP servers configured. Add them with pi mcp add, then /reload or restart pi.")
			return nil
		}
		slices.SortStableFunc(statuses, func(a, b mcp.Status) int {
			switch x, y := mcpNeedsAttention(a), mcpNeedsAttention(b); {
			case x && !y:
				return -1
			case y && !x:
				return 1
			}
			return 0
		})
		for _, line := range mgr.Overridden() {
			m.addStatus("overridden: " + line)
		}
		var items []picker.Item
		for _, st := range statuses {
			items = append(items, picker.Item{Label: st.Server.Name, Detail: mcpSummary(st), Value: st.Server.Name})
		}
		m.sel = picker.NewList(m.r, "MCP servers", items, func(it picker.Item) tea.Msg { return mcpPickMsg{server: it.Value.(string)} })
		return nil
	}
	action, rest := fields[0], fields[1:]
	if len(rest) == 0 {
		m.addError("Usage: /mcp [tools|reconnect|login|logout|enable|disable <server> | exposure <server> <mode>]")
		return nil
	}
	msg := mcpPickMsg{server: rest[0], action: action}
	if len(rest) > 1 {
		msg.arg = rest[1]
	}
	return m.mcpPicked(msg)
}

// mcpPicked applies a choice of the /mcp pickers.
func (m *model) mcpPicked(msg mcpPickMsg) tea.Cmd {
	mgr := m.opts.MCP
	st, err := mgr.Status(msg.server)
	if err != nil {
		m.addError(err.Error())
		return nil
	}
	switch msg.action {
	case "":
		m.openMCPActions(st)
	case "tools":
		m.showMCPServer(st)
	case "reconnect":
		m.addStatus(fmt.Sprintf("Reconnecting MCP server %q…", msg.server))
		ctx := m.ctx // quitting ends a reconnect that hangs, and shutdown waits for it (op)
		return m.op(func() tea.Msg {
			err := mgr.Reconnect(ctx, msg.server)
			return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
				if err != nil {
					m.addError(err.Error())
					return nil
				}
				st, _ := mgr.Status(msg.server)
				m.addStatus(fmt.Sprintf("MCP server %q: %s", msg.server, mcpSummary(st)))
				return nil
			}}
		})
	case "login":
		return m.mcpLogin(st)
	case "logout":
		return m.mcpLogout(st)
	case "enable", "disable":
		if err := mgr.SetEnabled(msg.server, msg.action == "enable"); err != nil {
			m.addError(err.Error())
			return nil
		}
		m.addStatus(fmt.Sprintf("MCP server %q %sd.", msg.server, msg.action))
	case "exposure":
		e := mcp.Exposure(msg.arg)
		if !slices.Contains(mcp.Exposures(), e) {
			m.addError(`exposure must be one of "codemode", "deferred", "direct", "hidden"`)
			return nil
		}
		if err := mgr.SetExposure(msg.server, e); err != nil {
			m.addError(err.Error())
			return nil
		}
		m.addStatus(fmt.Sprintf("MCP server %q exposure: %s.", msg.server, e))
	default:
		m.addError(fmt.Sprintf("Unknown /mcp action %q", msg.action))
	}
	return nil
}

// openMCPActions offers what can be done with one server.
func (m *model) openMCPActions(st mcp.Status) {
	name := st.Server.Name
	items := []picker.Item{{Label: "Show tools and details", Value: mcpPickMsg{server: name, action: "tools"}}}
	if st.Server.Config.Enabled && st.Server.Config.UsesOAuth() {
		if st.State == mcp.StateNeedsAuth {
			items = append(items, picker.Item{Label: "Sign in", Detail: "shows the authorization page's URL", Value: mcpPickMsg{server: name, action: "login"}})
		} else {
			items = append(items, picker.Item{Label: "Sign out", Value: mcpPickMsg{server: name, action: "logout"}})
		}
	}
	if st.Server.Config.Enabled {
		items = append(items, picker.Item{Label: "Reconnect", Value: mcpPickMsg{server: name, action: "reconnect"}},
			picker.Item{Label: "Disable", Value: mcpPickMsg{server: name, action: "disable"}})
	} else {
		items = append(items, picker.Item{Label: "Enable", Value: mcpPickMsg{server: name, action: "enable"}})
	}
	for _, e := range mcp.Exposures() {
		it := picker.Item{Label: "Exposure: " + string(e), Value: mcpPickMsg{server: name, action: "exposure", arg: string(e)}}
		if e == st.Server.Config.ServerExposure() {
			it.Detail = "current" // not Mark: the cursor starts on the first action
		}
		items = append(items, it)
	}
	m.sel = picker.NewList(m.r, "MCP server "+name+" ("+mcpSummary(st)+")", items, func(it picker.Item) tea.Msg { return it.Value.(mcpPickMsg) })
}

// showMCPServer prints a server's details: transport, source, error, tools with their exposure.
func (m *model) showMCPServer(st mcp.Status) {
	s := st.Server
	lines := []string{fmt.Sprintf("MCP server %s: %s", s.Name, mcpSummary(st))}
	if s.Config.IsHTTP() {
		lines = append(lines, "  "+s.Config.URL)
	} else {
		lines = append(lines, "  "+strings.Join(append([]string{s.Config.Command}, s.Config.Args...), " "))
	}
	if s.Scope == mcp.ScopeExtension {
		lines = append(lines, "  registered by extension: "+s.Source, "  enable, disable and exposure apply to this session only")
	} else {
		lines = append(lines, "  source: "+s.Source)
	}
	if s.Override != "" {
		lines = append(lines, "  project override: "+s.Override)
	}
	if st.Error != "" {
		lines = append(lines, "  "+strings.ReplaceAll(st.Error, "\n", "\n  "))
	}
	for _, t := range st.Tools {
		line := fmt.Sprintf("  %s [%s]", mcp.ToolName(s.Name, t.Name, nil), s.Config.ToolExposureOf(t.Name))
		if d := strings.TrimSpace(t.Description); d != "" {
			first, _, _ := strings.Cut(d, "\n")
			line += " " + first
		}
		lines = append(lines, line)
	}
	if st.HasResources {
		lines = append(lines, "  offers resources")
	}
	// A block of its own, not a status line: the next status line (the next /mcp change) would
	// replace it.
	text, r := strings.Join(lines, "\n"), m.r
	m.addBlock(func(w int) []string { return r.StatusNotice(text, w) })
}
