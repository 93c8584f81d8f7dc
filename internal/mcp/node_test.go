package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// The npm reference servers, as `make deps` installs them into the test cache; the Makefile names
// the same version.
const referenceServersVersion = "2026.8.31"

// referenceServers finds Node and the reference servers' package directory: the test cache that
// `make deps` fills (PI_GO_TEST_CACHE, default $HOME/.cache/pi-go-test), Node also on /opt/pi and
// PATH. Without them the test is skipped with what was tried, or fails under PI_GO_REQUIRE_NODE=1.
func referenceServers(t *testing.T) (node, modules string) {
	t.Helper()
	cache := os.Getenv("PI_GO_TEST_CACHE")
	if cache == "" {
		if home, err := os.UserHomeDir(); err == nil {
			cache = filepath.Join(home, ".cache", "pi-go-test")
		}
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	nodePath := filepath.Join("node_modules", "node-"+runtime.GOOS+"-"+arch, "bin", "node")
	candidates := []string{filepath.Join(cache, "node-22.23.5", nodePath), filepath.Join("/opt/pi/node22", nodePath)}
	if p, err := exec.LookPath("node"); err == nil {
		candidates = append(candidates, p)
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			node = c
			break
		}
	}
	modules = filepath.Join(cache, "mcp-servers-"+referenceServersVersion, "node_modules", "@modelcontextprotocol")
	_, err := os.Stat(filepath.Join(modules, "server-everything", "dist", "index.js"))
	if node == "" || err != nil {
		msg := "Node and the MCP reference servers " + referenceServersVersion + " not found (run `make deps`); tried " + strings.Join(candidates, ", ") + " and " + modules
		if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, modules
}

func nodeServer(name, node, script string, args ...string) string {
	data, _ := json.Marshal(map[string]any{"command": node, "args": append([]string{script}, args...)})
	return `"` + name + `": ` + string(data)
}

func TestReferenceServersFromNPM(t *testing.T) {
	node, modules := referenceServers(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("reference servers work\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The filesystem server serves the client's roots (pi-go offers the session's directory) in place
	// of its command-line directories, as it does for pi.
	m := newTestManagerIn(t, root,
		nodeServer("fs", node, filepath.Join(modules, "server-filesystem", "dist", "index.js"), root),
		nodeServer("everything", node, filepath.Join(modules, "server-everything", "dist", "index.js"), "stdio"))
	wait(t, m)
	for _, name := range []string{"fs", "everything"} {
		if st, _ := m.Status(name); st.State != StateConnected {
			t.Fatalf("%s: %+v", name, st)
		}
	}
	ts := NewToolset(m)
	agent := &fakeAgent{}
	agent.SetTools(ts.StaticTools())
	ts.Attach(agent)
	search := find(agent.Tools(), ToolSearchName)
	res := call(t, search, `{"query": "read text file contents", "limit": 3}`)
	if !strings.Contains(res.Content[0].Text, "mcp__fs__read_text_file") {
		t.Fatalf("tool_search: %s", res.Content[0].Text)
	}
	read := find(agent.Tools(), "mcp__fs__read_text_file")
	res = call(t, read, `{"path": `+strconvQuote(filepath.Join(root, "notes.txt"))+`}`)
	if res.IsError || !strings.Contains(textOf(res.Content), "reference servers work") {
		t.Fatalf("read_text_file: %+v", res)
	}

	tools := map[string]*Tool{}
	for _, tool := range ts.Tools() {
		tools[tool.ToolName()] = tool
	}
	if res := call(t, tools["echo"], `{"message": "hi"}`); res.Content[0].Text != "Echo: hi" {
		t.Fatalf("echo: %+v", res.Content)
	}
	img := call(t, tools["get-tiny-image"], `{}`)
	if !slices.ContainsFunc(img.Content, func(c provider.Content) bool { return c.Type == provider.ContentImage && c.MimeType == "image/png" }) {
		t.Fatalf("get-tiny-image: %+v", img.Content)
	}
	sc := call(t, tools["get-structured-content"], `{"location": "Chicago"}`)
	if s, ok := sc.StructuredContent.(map[string]any)["structuredContent"]; !ok || s == nil {
		t.Fatalf("get-structured-content: %+v", sc.StructuredContent)
	}
	done, err := tools["trigger-long-running-operation"].Execute(context.Background(), loop.ToolCall{Args: json.RawMessage(`{"duration": 0.2, "steps": 2}`)}, func(loop.ToolResult) {})
	if err != nil || done.IsError {
		t.Fatalf("long-running: %v %+v", err, done)
	}
	// Resources of the reference server: listed with their server, read as text.
	list := call(t, find(agent.Tools(), listResourcesTool), `{"server": "everything"}`)
	if text := list.Content[0].Text; !strings.HasPrefix(text, `{"server":"everything","resources":[{"server":"everything",`) || !strings.Contains(text, `"uri":"demo://resource/static/document/architecture.md"`) {
		t.Fatalf("list_mcp_resources: %.300s", list.Content[0].Text)
	}
	doc := call(t, find(agent.Tools(), readResourceTool), `{"server": "everything", "uri": "demo://resource/static/document/architecture.md"}`)
	if len(textOf(doc.Content)) < 100 {
		t.Fatalf("read_mcp_resource: %+v", doc.Content)
	}
}

func strconvQuote(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}
