package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// An extension run by pi 1.6.0's own runner registers MCP servers with pi.registerMcpServer, one
// while loading and one later from a tool; pi-go's MCP manager connects both (the Go stdio test
// server), tool_search finds their tools and the model calls them.
func TestExtensionRegisteredMCPServersThroughTheBinary(t *testing.T) {
	pi := findPiExamples(t, testPiVersion)
	server := buildMCPTestServer(t)
	p := newProject(t)
	p.env = append(p.env, "PI_GO_NODE="+pi.node, "PI_PACKAGE_DIR="+pi.pkg)
	p.write("ext.js", `export default function (pi) {
	pi.registerMcpServer("ext-early", { command: `+strconv.Quote(server)+`, exposure: "deferred" });
	pi.registerTool({
		name: "add_server", label: "Add server", description: "Registers another MCP server",
		parameters: { type: "object", properties: {} },
		async execute() {
			pi.registerMcpServer("ext-late", { command: `+strconv.Quote(server)+`, exposure: "deferred" });
			const hints = JSON.stringify(pi.getAllTools().find((t) => t.name === "read_mcp_resource")?.annotations);
			return { content: [{ type: "text", text: "registered " + pi.getMcpServers().map((s) => s.name).join(",") + " " + hints }] };
		},
	});
}
`)
	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "call_1", Name: "tool_search", Arguments: `{"query":"echo text"}`}),
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "call_2", Name: "mcp__ext_early__echo", Arguments: `{"text":"from a registered server"}`}),
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "call_3", Name: "add_server", Arguments: `{}`}),
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "call_4", Name: "tool_search", Arguments: `{"query":"echo text"}`}),
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "call_5", Name: "mcp__ext_late__echo", Arguments: `{"text":"late"}`}),
		openaitest.TextReply("test-model", "All done."),
	)
	r := p.run("", append(p.baseArgs(), "-e", "ext.js", "-p", "use the registered servers")...)
	if r.code != 0 || r.stdout != "All done.\n" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	if first := requestTools(t, p, 1); !slices.Contains(first, "tool_search") || slices.Contains(first, "mcp__ext_early__echo") {
		t.Fatalf("first request tools: %v", first)
	}
	// The system prompt lists the registered server in pi's mcp_servers section (its summary comes
	// once it connected, which the prompt does not wait for).
	sys := contentText(requestMessages(t, p.server, 1)[0]["content"])
	if !strings.Contains(sys, "<mcp_servers>\nMCP servers whose tools are not declared to you. Load the tools of `tool_search` servers with `tool_search`.\n- mcp__ext_early (tool_search)") {
		t.Fatalf("system prompt: %s", sys)
	}
	msgs := requestMessages(t, p.server, 2)
	if got := contentText(msgs[len(msgs)-1]["content"]); !strings.Contains(got, "- mcp__ext_early__echo: Echo the given text back unchanged") {
		t.Fatalf("tool_search result: %q", got)
	}
	msgs = requestMessages(t, p.server, 3)
	if got := contentText(msgs[len(msgs)-1]["content"]); got != "from a registered server" {
		t.Fatalf("registered server's tool result: %q", got)
	}
	msgs = requestMessages(t, p.server, 4)
	if got := contentText(msgs[len(msgs)-1]["content"]); got != `registered ext-early,ext-late {"readOnlyHint":true}` {
		t.Fatalf("add_server result: %q", got)
	}
	// The server registered during the run connects; tool_search waits for it and loads its tool.
	msgs = requestMessages(t, p.server, 5)
	if got := contentText(msgs[len(msgs)-1]["content"]); !strings.Contains(got, "- mcp__ext_late__echo: ") {
		t.Fatalf("second tool_search result: %q", got)
	}
	msgs = requestMessages(t, p.server, 6)
	if got := contentText(msgs[len(msgs)-1]["content"]); got != "late" {
		t.Fatalf("late server's tool result: %q (stderr %s)", got, r.stderr)
	}
	if strings.Contains(r.stderr, "no loaded extension connects MCP servers") {
		t.Fatalf("pi's runner reported the servers as unconnected: %s", r.stderr)
	}
}
