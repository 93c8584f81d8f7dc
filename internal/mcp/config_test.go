package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeConfig writes an mcp.json into agentDir.
func writeConfig(agentDir, text string) error {
	return os.WriteFile(UserFile(agentDir), []byte(text), 0o644)
}

func errorTexts(c *Config) []string {
	var out []string
	for _, e := range c.Errors {
		out = append(out, e.Error())
	}
	return out
}

func TestLoadUserAndTrustedProject(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	writeFile(t, UserFile(agent), `{
  "mcpServers": {
    "fs": {"command": "npx", "args": ["-y", "server-filesystem", "."], "env": {"KEY": "${TOKEN}"}},
    "docs": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}, "description": "Docs", "timeout": 5},
    "internal": {"command": "internal-tools", "exposure": "codemode-deferred", "toolExposure": {"get_*": "direct", "get_secret": "hidden", "*": "deferred"}}
  }
}`)
	writeFile(t, ProjectFile(cwd), `{"mcpServers": {"internal": {"enabled": false, "exposure": "direct"}, "fs": {"url": "http://127.0.0.1:9/mcp"}}}`)

	untrusted := Load(agent, cwd, false)
	if len(untrusted.Errors) != 0 || len(untrusted.Servers) != 3 {
		t.Fatalf("untrusted: %v %d", untrusted.Errors, len(untrusted.Servers))
	}
	if fs := untrusted.Server("fs"); fs.Config.Command != "npx" || fs.Scope != ScopeGlobal || fs.Config.Env["KEY"] != "${TOKEN}" {
		t.Fatalf("fs = %+v", fs)
	}
	internal := untrusted.Server("internal")
	if internal.Config.ServerExposure() != ExposureCodemode {
		t.Fatalf("alias not resolved: %q", internal.Config.Exposure)
	}
	for tool, want := range map[string]Exposure{"get_secret": ExposureHidden, "get_x": ExposureDirect, "list": ExposureDeferred} {
		if got := internal.Config.ToolExposureOf(tool); got != want {
			t.Errorf("ToolExposureOf(%s) = %s, want %s", tool, got, want)
		}
	}
	docs := untrusted.Server("docs")
	if !docs.Config.IsHTTP() || docs.Config.UsesOAuth() || docs.Config.Timeout != 5 || docs.Config.Description != "Docs" {
		t.Fatalf("docs = %+v", docs.Config)
	}

	trusted := Load(agent, cwd, true)
	if len(trusted.Errors) != 0 {
		t.Fatal(trusted.Errors)
	}
	fs := trusted.Server("fs")
	if fs.Config.URL != "http://127.0.0.1:9/mcp" || fs.Config.Command != "" || fs.Scope != ScopeProject || fs.Source != ProjectFile(cwd) {
		t.Fatalf("project entry did not replace the user's: %+v", fs)
	}
	internal = trusted.Server("internal")
	if internal.Config.Enabled || internal.Config.ServerExposure() != ExposureDirect || internal.Config.Command != "internal-tools" || internal.Override != ProjectFile(cwd) || internal.Source != UserFile(agent) {
		t.Fatalf("override = %+v", internal)
	}
	if got := internal.Config.ToolExposureOf("get_secret"); got != ExposureHidden {
		t.Fatalf("override lost toolExposure: %s", got)
	}
}

func TestLoadReportsInvalidEntriesAndKeepsTheRest(t *testing.T) {
	agent, cwd := t.TempDir(), t.TempDir()
	writeFile(t, UserFile(agent), `{"mcpServers": {
  "good": {"command": "ok"},
  "bad name": {"command": "x"},
  "sse": {"type": "sse", "url": "https://x/sse"},
  "neither": {"args": []},
  "badargs": {"command": "x", "args": "a b"},
  "badexp": {"command": "x", "exposure": "sometimes"},
  "badtool": {"command": "x", "toolExposure": {"a": "never"}},
  "badurl": {"url": "ftp://x"},
  "badtimeout": {"command": "x", "timeout": 0},
  "my-srv": {"command": "x"},
  "my_srv": {"command": "y"},
  "cimd": {"url": "https://x", "oauth": {"clientRegistration": "cimd", "clientId": "c"}}
}}`)
	writeFile(t, ProjectFile(cwd), `{"mcpServers": {"ghost": {"enabled": true}, "good": {"enabled": false, "command2": 1}, "auth": {"url": "https://x", "auth": {"provider": "github"}}}}`)
	c := Load(agent, cwd, true)
	if len(c.Servers) != 2 || c.Server("good") == nil || c.Server("my-srv") == nil {
		t.Fatalf("servers: %+v", c.Servers)
	}
	want := []string{
		`mcp.json: invalid server name "bad name"`,
		`server "sse": legacy SSE transport is not supported`,
		`server "neither" needs either "command" (stdio) or "url" (streamable HTTP)`,
		`server "badargs": args must be an array of strings`,
		`server "badexp": exposure must be one of "codemode", "deferred", "direct", "hidden"`,
		`server "badtool": toolExposure "a" must be one of`,
		`server "badurl": url must be an http or https URL`,
		`server "badtimeout": timeout must be a positive number of seconds`,
		`server "my_srv" conflicts with "my-srv"`,
		`server "cimd": oauth.clientRegistration "cimd" cannot be combined`,
		`.pi/mcp.json: server "ghost" needs "command" or "url", or a global server to override`,
		`.pi/mcp.json: server "good": an override can only set enabled, exposure, toolExposure`,
		`.pi/mcp.json: server "auth": auth is only allowed in the global mcp.json`,
	}
	got := strings.Join(errorTexts(c), "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing error %q in:\n%s", w, got)
		}
	}
	if len(c.Errors) != len(want) {
		t.Errorf("%d errors, want %d:\n%s", len(c.Errors), len(want), got)
	}
}

func TestLoadBadFiles(t *testing.T) {
	for _, text := range []string{`{"mcpServers": [`, `[]`, `{"mcpServers": []}`} {
		agent := t.TempDir()
		writeFile(t, UserFile(agent), text)
		c := Load(agent, t.TempDir(), false)
		if len(c.Errors) != 1 || !strings.HasPrefix(c.Errors[0].Error(), UserFile(agent)+": ") {
			t.Errorf("%s: %v", text, c.Errors)
		}
	}
	agent := t.TempDir()
	writeFile(t, UserFile(agent), "\ufeff{\"autoEnableCodemode\": false}")
	if c := Load(agent, t.TempDir(), false); len(c.Errors) != 0 || c.AutoEnableCodemode == nil || *c.AutoEnableCodemode {
		t.Errorf("BOM file: %v", c.Errors)
	}
}

func TestEditKeepsOtherContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	writeFile(t, path, "{\n    \"other\": {\"x\": [1, 2]},\n    \"mcpServers\": {\n        \"a\": {\"command\": \"a\", \"exposure\": \"direct\", \"custom\": \"<&>\"},\n        \"b\": {\"url\": \"https://b\"}\n    }\n}\n")
	disabled, codemode := false, ExposureCodemode
	if err := UpdateServer(path, "a", ServerPatch{Enabled: &disabled, Exposure: &codemode}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := AddServer(path, "c", []byte(`{"command":"c","args":["--x"]}`)); err != nil {
		t.Fatal(err)
	}
	if removed, err := RemoveServer(path, "b"); err != nil || !removed {
		t.Fatal(removed, err)
	}
	data, _ := os.ReadFile(path)
	want := `{
    "other": {
        "x": [
            1,
            2
        ]
    },
    "mcpServers": {
        "a": {
            "command": "a",
            "custom": "<&>",
            "enabled": false
        },
        "c": {
            "command": "c",
            "args": [
                "--x"
            ]
        }
    }
}
`
	if string(data) != want {
		t.Fatalf("got:\n%s", data)
	}
	// An override keeps defaults, which replace the user's values.
	project := filepath.Join(t.TempDir(), "mcp.json")
	enabled := true
	if err := UpdateServer(project, "a", ServerPatch{Enabled: &enabled, Exposure: &codemode}, true); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(project)
	if string(data) != "{\n  \"mcpServers\": {\n    \"a\": {\n      \"enabled\": true,\n      \"exposure\": \"codemode\"\n    }\n  }\n}\n" {
		t.Fatalf("override:\n%s", data)
	}
	if err := UpdateServer(project, "zzz", ServerPatch{Enabled: &enabled}, false); err == nil || !strings.Contains(err.Error(), `does not define MCP server "zzz"`) {
		t.Fatal(err)
	}
}

func TestToolName(t *testing.T) {
	if got := ToolName("dev-radius", "get.item", nil); got != "mcp__dev_radius__get_item" {
		t.Fatal(got)
	}
	if got := ToolName("s", "café😀", nil); got != "mcp__s__caf___" {
		t.Fatal(got)
	}
	long := ToolName("server", strings.Repeat("x", 80), nil)
	if len(long) != 64 || !strings.HasPrefix(long, "mcp__server__xxx") {
		t.Fatal(long)
	}
	taken := ToolName("s", "a-b", func(string) bool { return true })
	if taken == "mcp__s__a_b" || !strings.HasPrefix(taken, "mcp__s__a_b_") {
		t.Fatal(taken)
	}
}
