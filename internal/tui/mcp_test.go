package tui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-go/pi-go/internal/mcp"
	"github.com/pi-go/pi-go/internal/mcp/mcptest"
)

// /mcp lists the servers, shows one's tools and changes its enabled state and exposure in mcp.json.
func TestMCPCommandInspectsAndChangesServers(t *testing.T) {
	server := mcptest.New(mcptest.Options{})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(srv.Close)
	agent := t.TempDir()
	file := filepath.Join(agent, "mcp.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers": {"remote": {"url": "`+srv.URL+`"}, "off": {"command": "x", "enabled": false}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m := mcp.NewManager(mcp.Load(agent, t.TempDir(), false), mcp.Options{AgentDir: agent, Cwd: t.TempDir()})
	m.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		m.Close(ctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	m.Wait(ctx)
	cancel()

	u := startUI(t, newTestSession(t, newScript(), nil), Options{MCP: m})
	u.typeText("/mcp")
	u.key(tea.KeyEnter)
	u.waitScreen("the server list", contains("MCP servers", "remote", "connected, 6 tools · codemode · global", "off", "disabled"))
	u.key(tea.KeyEnter)
	u.waitScreen("the actions", contains("Show tools and details", "Reconnect", "Disable", "Exposure: codemode current"))
	u.key(tea.KeyEnter)
	u.waitAll("the tools", contains("mcp__remote__echo [codemode] Echo the given text back unchanged", "offers resources"))
	u.typeText("/mcp exposure remote direct")
	u.key(tea.KeyEnter)
	u.waitAll("the exposure change, under the details", contains("mcp__remote__echo [codemode]", `MCP server "remote" exposure: direct.`))
	u.typeText("/mcp disable remote")
	u.key(tea.KeyEnter)
	u.waitAll("the disable", contains(`MCP server "remote" disabled.`))
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), `"exposure": "direct"`) || !strings.Contains(string(data), `"enabled": false`) {
		t.Fatalf("mcp.json:\n%s", data)
	}
	if st, _ := m.Status("remote"); st.State != mcp.StateDisabled {
		t.Fatalf("state = %s", st.State)
	}
}
