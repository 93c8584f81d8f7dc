package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-go/pi-go/internal/mcp/mcptest"
)

// testServerBin is the stdio test server (testdata/server), built once by TestMain.
var testServerBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pi-go-mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testServerBin = filepath.Join(dir, "server")
	if runtime.GOOS == "windows" {
		testServerBin += ".exe"
	}
	build := exec.Command("go", "build", "-o", testServerBin, "./testdata/server")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the test server:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// stdioServer is a config entry running the test server with args.
func stdioServer(name string, args ...string) string {
	entry := map[string]any{"command": testServerBin}
	if len(args) > 0 {
		entry["args"] = args
	}
	data, _ := json.Marshal(entry)
	return fmt.Sprintf("%q: %s", name, data)
}

// newTestManager writes an mcp.json with entries and returns a started manager, closed at cleanup.
func newTestManager(t *testing.T, entries ...string) *Manager {
	t.Helper()
	return newTestManagerIn(t, t.TempDir(), entries...)
}

// newTestManagerIn is newTestManager for a session in cwd (the root the client offers servers).
func newTestManagerIn(t *testing.T, cwd string, entries ...string) *Manager {
	t.Helper()
	agent := t.TempDir()
	writeFile(t, UserFile(agent), `{"mcpServers": {`+strings.Join(entries, ",")+`}}`)
	cfg := Load(agent, t.TempDir(), false)
	if len(cfg.Errors) > 0 {
		t.Fatal(cfg.Errors)
	}
	m := NewManager(cfg, Options{AgentDir: agent, Cwd: cwd, Version: "test"})
	m.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return m
}

func wait(t *testing.T, m *Manager) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m.Wait(ctx)
	if ctx.Err() != nil {
		t.Fatal("servers still connecting")
	}
}

func TestStdioServerConnectsAndCalls(t *testing.T) {
	m := newTestManager(t, stdioServer("local"))
	wait(t, m)
	st, _ := m.Status("local")
	if st.State != StateConnected || len(st.Tools) != 6 || !st.HasResources || !strings.HasPrefix(st.Instructions, "Test tools for pi-go.") {
		t.Fatalf("status = %+v", st)
	}
	res, err := m.CallTool(context.Background(), "local", "echo", map[string]any{"text": "hi"}, nil)
	if err != nil || len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != "hi" {
		t.Fatalf("echo: %v %+v", err, res)
	}
}

func TestFailingServerShowsStderrAndRetriesOnDemand(t *testing.T) {
	m := newTestManager(t, stdioServer("broken", "-fail"), `"missing": {"command": "/nonexistent/pi-go-mcp"}`, `"env": {"command": "x", "env": {"K": "${PI_GO_TEST_SURELY_UNSET}"}}`)
	wait(t, m)
	st, _ := m.Status("broken")
	if st.State != StateFailed || !strings.Contains(st.Error, "fatal: the test server was told to fail") {
		t.Fatalf("broken = %+v", st)
	}
	st, _ = m.Status("missing")
	if st.State != StateFailed || !strings.Contains(st.Error, "/nonexistent/pi-go-mcp") {
		t.Fatalf("missing = %+v", st)
	}
	st, _ = m.Status("env")
	if st.State != StateFailed || !strings.Contains(st.Error, `MCP server "env" env "K": environment variable PI_GO_TEST_SURELY_UNSET is not set`) {
		t.Fatalf("env = %+v", st)
	}
	// A call tries again and reports why it failed.
	if _, err := m.CallTool(context.Background(), "broken", "echo", nil, nil); err == nil || !strings.Contains(err.Error(), `MCP server "broken" failed to connect`) {
		t.Fatal(err)
	}
}

func TestHangingServerTimesOut(t *testing.T) {
	m := newTestManager(t, `"hang": {"command": `+strconv.Quote(testServerBin)+`, "args": ["-hang"], "timeout": 0.3}`)
	wait(t, m)
	st, _ := m.Status("hang")
	if st.State != StateFailed || !strings.Contains(st.Error, "timed out after 300ms") {
		t.Fatalf("hang = %+v", st)
	}
}

func TestDisabledServerDoesNotStart(t *testing.T) {
	m := newTestManager(t, `"off": {"command": `+strconv.Quote(testServerBin)+`, "enabled": false}`)
	if st, _ := m.Status("off"); st.State != StateDisabled {
		t.Fatalf("off = %+v", st)
	}
	if _, err := m.CallTool(context.Background(), "off", "echo", nil, nil); err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Fatal(err)
	}
	if err := m.SetEnabled("off", true); err != nil {
		t.Fatal(err)
	}
	wait(t, m)
	if st, _ := m.Status("off"); st.State != StateConnected {
		t.Fatalf("after enable: %+v", st)
	}
	data, _ := os.ReadFile(m.Config().Server("off").Source)
	if strings.Contains(string(data), "enabled") {
		t.Fatalf("enabling kept the default in the file: %s", data)
	}
}

func TestHTTPServerHeadersProgressAndCancellation(t *testing.T) {
	cancelled := make(chan struct{}, 1)
	server := mcptest.New(mcptest.Options{OnCancelled: func() { cancelled <- struct{}{} }})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "secret-value" {
			http.Error(w, "no key", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("PI_GO_TEST_MCP_KEY", "secret-value")
	m := newTestManager(t, `"remote": {"url": "`+srv.URL+`", "headers": {"X-Api-Key": "${PI_GO_TEST_MCP_KEY}"}}`)
	wait(t, m)
	if st, _ := m.Status("remote"); st.State != StateConnected {
		t.Fatalf("remote = %+v", st)
	}
	res, err := m.CallTool(context.Background(), "remote", "echo", map[string]any{"text": "over http"}, nil)
	if err != nil || res.Content[0].(*sdk.TextContent).Text != "over http" {
		t.Fatal(err, res)
	}
	// Three progress notifications arrive while the call runs; then Escape (ctx) cancels it.
	ctx, cancel := context.WithCancel(context.Background())
	progress := make(chan string, 3)
	done := make(chan error, 1)
	go func() {
		_, err := m.CallTool(ctx, "remote", "slow", map[string]any{"steps": 3}, func(p *sdk.ProgressNotificationParams) { progress <- p.Message })
		done <- err
	}()
	var got []string
	for len(got) < 3 {
		got = append(got, <-progress)
	}
	if strings.Join(got, ",") != "step 1 of 3,step 2 of 3,step 3 of 3" {
		t.Fatalf("progress = %q", got)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("cancelled call succeeded")
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw notifications/cancelled")
	}
}

func TestReconnectAfterTheServerDied(t *testing.T) {
	m := newTestManager(t, stdioServer("local"))
	wait(t, m)
	c, _ := m.conn("local")
	c.mu.Lock()
	proc := c.proc
	c.mu.Unlock()
	changed := make(chan struct{}, 16)
	m.SetOnChange(func() { changed <- struct{}{} })
	_ = proc.cmd.Process.Kill()
	for {
		<-changed
		if st, _ := m.Status("local"); st.State == StateDisconnected {
			break
		}
	}
	res, err := m.CallTool(context.Background(), "local", "echo", map[string]any{"text": "again"}, nil)
	if err != nil || res.Content[0].(*sdk.TextContent).Text != "again" {
		t.Fatal(err)
	}
	if err := m.Reconnect(context.Background(), "local"); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Status("local"); st.State != StateConnected {
		t.Fatalf("after reconnect: %+v", st)
	}
}
