package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// buildMCPTestServer builds internal/mcp's stdio test server into a temp dir.
func buildMCPTestServer(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcp-server")
	build := exec.Command("go", "build", "-o", bin, "../../internal/mcp/testdata/server")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("building the MCP test server: %v", err)
	}
	return bin
}

// writeMCPConfig writes the agent's mcp.json with the given servers.
func (p *project) writeMCPConfig(servers map[string]any) {
	p.t.Helper()
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(filepath.Join(p.agentDir, "mcp.json"), data, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func TestMCPToolSearchThenToolCallThroughTheBinary(t *testing.T) {
	server := buildMCPTestServer(t)
	p := newProject(t)
	p.writeMCPConfig(map[string]any{"local": map[string]any{"command": server}})
	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "call_1", Name: "tool_search", Arguments: `{"query":"echo text"}`}),
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "call_2", Name: "mcp__local__echo", Arguments: `{"text":"from the MCP server"}`}),
		openaitest.TextReply("test-model", "All done."),
	)
	r := p.run("", append(p.baseArgs(), "-p", "echo something through MCP")...)
	if r.code != 0 || r.stdout != "All done.\n" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	first := requestTools(t, p, 1)
	if !slices.Contains(first, "tool_search") || slices.Contains(first, "mcp__local__echo") {
		t.Fatalf("first request tools: %v", first)
	}
	if second := requestTools(t, p, 2); !slices.Contains(second, "mcp__local__echo") {
		t.Fatalf("second request does not declare the loaded tool: %v", second)
	}
	msgs := requestMessages(t, p.server, 2)
	if got := contentText(msgs[len(msgs)-1]["content"]); !strings.HasPrefix(got, "Loaded ") || !strings.Contains(got, "- mcp__local__echo: Echo the given text back unchanged") {
		t.Fatalf("tool_search result: %q", got)
	}
	msgs = requestMessages(t, p.server, 3)
	if got := contentText(msgs[len(msgs)-1]["content"]); got != "from the MCP server" {
		t.Fatalf("MCP tool result: %q", got)
	}

	// --no-mcp: no server, no tool_search.
	p.server.Enqueue(openaitest.TextReply("test-model", "ok"))
	r = p.run("", append(p.baseArgs(), "--no-mcp", "-p", "hi")...)
	if r.code != 0 {
		t.Fatalf("--no-mcp: exit %d stderr %s", r.code, r.stderr)
	}
	if tools := requestTools(t, p, 4); slices.Contains(tools, "tool_search") {
		t.Fatalf("--no-mcp declared %v", tools)
	}
}

func TestMCPConfigErrorsAreReportedAndDoNotStopPi(t *testing.T) {
	p := newProject(t)
	p.writeMCPConfig(map[string]any{"old": map[string]any{"type": "sse", "url": "https://example.invalid/sse"}})
	p.server.Enqueue(openaitest.TextReply("test-model", "fine"))
	r := p.run("", append(p.baseArgs(), "-p", "hi")...)
	want := fmt.Sprintf(`MCP: %s: server "old": legacy SSE transport is not supported`, filepath.Join(p.agentDir, "mcp.json"))
	if r.code != 0 || r.stdout != "fine\n" || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}
