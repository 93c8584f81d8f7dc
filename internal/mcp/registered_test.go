//go:build unix

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-go/pi-go/internal/mcp/mcptest"
)

func registration(name, path string, entry map[string]any) Registration {
	data, _ := json.Marshal(entry)
	return Registration{Name: name, Config: data, ExtensionPath: path}
}

func TestRegisteredServersJoinTheManager(t *testing.T) {
	m := newTestManager(t, stdioServer("local"))
	errs := m.SetRegistered([]Registration{
		registration("ext-tools", "/ext/a.ts", map[string]any{"command": testServerBin, "exposure": "direct"}),
		registration("local", "/ext/b.ts", map[string]any{"command": testServerBin}),
		registration("bad", "/ext/c.ts", map[string]any{"url": "ftp://x"}),
	})
	if len(errs) != 1 || errs[0].Error() != `invalid MCP server registered by extension "/ext/c.ts": server "bad": url must be an http or https URL` {
		t.Fatalf("errors = %v", errs)
	}
	if o := m.Overridden(); len(o) != 1 || !strings.HasPrefix(o[0], `"local" registered by /ext/b.ts is overridden by "local" in `) {
		t.Fatalf("overridden = %q", o)
	}
	wait(t, m) // the manager had started: the registered server connects at once
	st, err := m.Status("ext-tools")
	if err != nil || st.State != StateConnected || st.Server.Scope != ScopeExtension || st.Server.Source != "/ext/a.ts" {
		t.Fatalf("ext-tools = %+v %v", st, err)
	}
	res, err := m.CallTool(context.Background(), "ext-tools", "echo", map[string]any{"text": "registered"}, nil)
	if err != nil || res.Content[0].(*sdk.TextContent).Text != "registered" {
		t.Fatal(err, res)
	}
	ts := NewToolset(m)
	var names []string
	for _, tool := range ts.Tools() {
		if tool.exposure == ExposureDirect {
			names = append(names, tool.name)
		}
	}
	if !strings.Contains(strings.Join(names, " "), "mcp__ext_tools__echo") {
		t.Fatalf("direct tools = %v", names)
	}
	// pi.getAllTools() reports the hints the server declared.
	for _, tool := range ts.Tools() {
		if tool.name == "mcp__ext_tools__echo" && fmt.Sprint(tool.Annotations()) != "map[openWorldHint:false readOnlyHint:true]" {
			t.Fatalf("annotations = %v", tool.Annotations())
		}
		if tool.name == "mcp__ext_tools__add" && tool.Annotations() != nil {
			t.Fatalf("add's annotations = %v", tool.Annotations())
		}
	}

	// Exposure changes apply to the session only: no file is written for a registered server.
	if err := m.SetExposure("ext-tools", ExposureHidden); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Status("ext-tools"); st.Server.Config.Exposure != ExposureHidden {
		t.Fatalf("exposure = %v", st.Server.Config.Exposure)
	}

	// The same registration again keeps the connection; withdrawing it stops the server.
	c, _ := m.conn("ext-tools")
	c.mu.Lock()
	pid := c.proc.cmd.Process.Pid
	c.mu.Unlock()
	m.SetRegistered([]Registration{registration("ext-tools", "/ext/a.ts", map[string]any{"command": testServerBin, "exposure": "direct"})})
	if again, _ := m.conn("ext-tools"); again != c {
		t.Fatal("an unchanged registration replaced the connection")
	}
	m.SetRegistered(nil)
	if _, err := m.Status("ext-tools"); err == nil {
		t.Fatal("the withdrawn server is still listed")
	}
	if len(m.Overridden()) != 0 {
		t.Fatalf("overridden = %q", m.Overridden())
	}
	// The withdrawn server stops in the background; Close waits for it.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("the withdrawn server's process %d still runs", pid)
	}
}

func TestServersRegisteredBeforeStartWaitForIt(t *testing.T) {
	agent := t.TempDir()
	m := NewManager(Load(agent, t.TempDir(), false), Options{AgentDir: agent, Cwd: t.TempDir(), Version: "test"})
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	m.SetRegistered([]Registration{registration("later", "/ext/a.ts", map[string]any{"command": testServerBin})})
	if st, _ := m.Status("later"); st.State != StateConnecting {
		t.Fatalf("before Start: %+v", st)
	}
	if tools := NewToolset(m).StaticTools(); len(tools) == 0 || tools[0].Definition().Name != ToolSearchName {
		t.Fatalf("static tools = %v", tools)
	}
	wait(t, m) // Wait starts the manager
	if st, _ := m.Status("later"); st.State != StateConnected {
		t.Fatalf("after Start: %+v", st)
	}
}

// Once the started servers settled, the report names those that need sign-in or failed, as pi's.
func TestAttentionReportAfterStartup(t *testing.T) {
	a := mcptest.NewAuthServer(t).MCPURL
	agent := t.TempDir()
	writeFile(t, UserFile(agent), `{"mcpServers": {`+stdioServer("ok")+`,`+stdioServer("broken", "-fail")+`,"protected": {"url": "`+a+`"}, "off": {"command": "x", "enabled": false}}}`)
	m := NewManager(Load(agent, t.TempDir(), false), Options{AgentDir: agent, Cwd: t.TempDir(), Version: "test"})
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	reports := make(chan string, 1)
	m.ReportWhenSettled(func(r string) { reports <- r })
	m.Start()
	select {
	case r := <-reports:
		want := "MCP servers need attention:\n  broken: failed: fatal: the test server was told to fail\n  protected: needs sign-in\nRun /mcp to fix."
		if !strings.HasPrefix(r, "MCP servers need attention:\n  broken: failed: ") || !strings.HasSuffix(r, "\n  protected: needs sign-in\nRun /mcp to fix.") {
			t.Fatalf("report:\n%s\nwant like:\n%s", r, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no report")
	}
}
