package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/mcp/mcptest"
)

func newMCPTestEnv(t *testing.T) (*mcpEnv, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errb bytes.Buffer
	root := t.TempDir()
	e := &mcpEnv{agentDir: filepath.Join(root, "agent"), cwd: filepath.Join(root, "proj"), out: &out, err: &errb}
	os.MkdirAll(e.cwd, 0o755)
	return e, &out, &errb
}

func TestMCPAddRemoveKeepOtherContent(t *testing.T) {
	e, out, errb := newMCPTestEnv(t)
	path := filepath.Join(e.agentDir, "mcp.json")
	os.MkdirAll(e.agentDir, 0o755)
	os.WriteFile(path, []byte("{\n    \"autoEnableCodemode\": false,\n    \"mcpServers\": {\"keep\": {\"command\": \"k\", \"custom\": 1}}\n}\n"), 0o644)
	if code := runMCP(context.Background(), e, []string{"add", "fs", "--env", "KEY=${TOKEN}", "--", "npx", "-y", "server-filesystem", "--flag"}); code != 0 {
		t.Fatalf("add: %d %s", code, errb)
	}
	if code := runMCP(context.Background(), e, []string{"add", "docs", "--url", "https://example.com/mcp?a=1&b=2", "--bearer-token-env-var", "DOCS_TOKEN", "--description", "Docs", "--exposure", "direct"}); code != 0 {
		t.Fatalf("add url: %d %s", code, errb)
	}
	data, _ := os.ReadFile(path)
	var cfg struct {
		AutoEnableCodemode *bool                      `json:"autoEnableCodemode"`
		MCPServers         map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil || cfg.AutoEnableCodemode == nil || len(cfg.MCPServers) != 3 {
		t.Fatalf("%s", data)
	}
	if got := string(cfg.MCPServers["fs"]); !strings.Contains(got, `"command": "npx"`) || !strings.Contains(got, `"--flag"`) || !strings.Contains(got, `"KEY": "${TOKEN}"`) {
		t.Fatalf("fs = %s", got)
	}
	if got := string(cfg.MCPServers["docs"]); !strings.Contains(got, `"Authorization": "Bearer ${DOCS_TOKEN}"`) || !strings.Contains(got, `"exposure": "direct"`) ||
		!strings.Contains(got, `"url": "https://example.com/mcp?a=1&b=2"`) { // & as JSON.stringify writes it, not \u0026
		t.Fatalf("docs = %s", got)
	}
	if !strings.Contains(string(data), "    \"mcpServers\"") || !strings.Contains(out.String(), `Added global MCP server "fs" in `+path+".") {
		t.Fatalf("indent or message:\n%s\n%s", data, out)
	}
	if code := runMCP(context.Background(), e, []string{"remove", "fs"}); code != 0 || !strings.Contains(out.String(), `Removed global MCP server "fs"`) {
		t.Fatalf("remove: %d %s", code, errb)
	}
	errb.Reset()
	if code := runMCP(context.Background(), e, []string{"remove", "fs"}); code != 1 || !strings.Contains(errb.String(), `No global MCP server named "fs" in `) {
		t.Fatalf("remove again: %d %s", code, errb)
	}
	errb.Reset()
	for args, want := range map[string]string{
		"add x --url https://x --env A=B": "--env only applies to stdio servers.",
		"add x --header A=B -- cmd":       "--header only applies to HTTP servers (--url).",
		"add x --bogus 1 -- cmd":          "Unknown option --bogus.",
		"add x":                           "Usage: pi mcp add <server>",
		"add bad/name -- cmd":             `invalid server name "bad/name"`,
		"add x --exposure loud -- cmd":    `server "x": exposure must be one of`,
		"frob":                            `Unknown mcp command "frob".`,
		"logout nothere":                  `No MCP server named "nothere".`,
		"login keep":                      `MCP server "keep" does not use OAuth.`,
		"list extra":                      "Usage: pi mcp list [--json]",
	} {
		errb.Reset()
		if code := runMCP(context.Background(), e, strings.Fields(args)); code != 1 || !strings.Contains(errb.String(), want) {
			t.Errorf("%s: %d %q", args, code, errb.String())
		}
	}
}

func TestMCPListConnectsAndLoginSignsIn(t *testing.T) {
	server := buildMCPTestServer(t)
	e, out, errb := newMCPTestEnv(t)
	if code := runMCP(context.Background(), e, []string{"add", "local", "--", server}); code != 0 {
		t.Fatal(errb)
	}
	if code := runMCP(context.Background(), e, []string{"add", "broken", "--", server, "-fail"}); code != 0 {
		t.Fatal(errb)
	}
	out.Reset()
	code := runMCP(context.Background(), e, []string{"list"})
	text := out.String()
	if code != 1 || !strings.Contains(text, "local: connected, 6 tools (codemode, global)\n  "+server+"\n  tools: add, echo, fail, image, slow, spawn\n  offers resources\n") ||
		!strings.Contains(text, "broken: failed (codemode, global)") || !strings.Contains(text, "fatal: the test server was told to fail") {
		t.Fatalf("list: %d\n%s", code, text)
	}
	runMCP(context.Background(), e, []string{"remove", "broken"})
	out.Reset()
	if code := runMCP(context.Background(), e, []string{"list", "--json"}); code != 0 {
		t.Fatalf("list --json: %d %s %s", code, out, errb)
	}
	var report struct {
		Servers []mcpReport `json:"servers"`
		Errors  []string    `json:"errors"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil || len(report.Servers) != 1 || report.Servers[0].State != "connected" || len(report.Servers[0].Tools) != 6 {
		t.Fatalf("%v %s", err, out)
	}

	// login against a local authorization server: the "browser" follows the URL.
	a := mcptest.NewAuthServer(t)
	runMCP(context.Background(), e, []string{"add", "remote", "--url", a.MCPURL})
	e.openURL = func(u string) {
		go func() {
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
	}
	out.Reset()
	if code := runMCP(context.Background(), e, []string{"login", "remote", "--timeout", "30"}); code != 0 {
		t.Fatalf("login: %d %s %s", code, out, errb)
	}
	if !strings.Contains(out.String(), `Signed in to MCP server "remote" (6 tools).`) || strings.Contains(out.String(), "access-") {
		t.Fatalf("login output: %s", out)
	}
	out.Reset()
	if code := runMCP(context.Background(), e, []string{"login", "remote"}); code != 0 || !strings.Contains(out.String(), `Already signed in to MCP server "remote"`) {
		t.Fatalf("second login: %d %s %s", code, out, errb)
	}
	out.Reset()
	if code := runMCP(context.Background(), e, []string{"logout", "remote"}); code != 0 || !strings.Contains(out.String(), `Signed out of MCP server "remote".`) {
		t.Fatalf("logout: %d %s", code, out)
	}
}
