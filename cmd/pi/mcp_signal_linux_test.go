package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// A stdio MCP server and what it started die with pi-go when the terminal goes away (SIGHUP), even
// while a call to it is running.
func TestMCPServersDieWithPiOnSIGHUP(t *testing.T) {
	server := buildMCPTestServer(t)
	p := newProject(t)
	markers := t.TempDir()
	p.writeMCPConfig(map[string]any{"local": map[string]any{"command": server, "args": []string{"-markers", markers}, "exposure": "direct"}})
	p.server.Enqueue(openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "call_1", Name: "mcp__local__spawn", Arguments: `{}`}))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, piBinary, append(p.baseArgs(), "--mode", "json", "spawn a child")...)
	cmd.Dir = p.dir
	cmd.Env = []string{"HOME=" + filepath.Dir(p.agentDir), "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + p.agentDir}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The spawn tool's progress update says the child runs.
	scanner := bufio.NewScanner(stdout)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	seen := false
	for !seen && scanner.Scan() {
		var ev struct {
			Type     string `json:"type"`
			ToolName string `json:"toolName"`
		}
		if json.Unmarshal(scanner.Bytes(), &ev) == nil && ev.Type == "tool_execution_update" && ev.ToolName == "mcp__local__spawn" {
			seen = true
		}
	}
	if !seen {
		t.Fatalf("no progress from the spawn tool (pi exited: %v)", cmd.Wait())
	}
	data, err := os.ReadFile(filepath.Join(markers, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	childExit := openPidfd(t, child) // before the signal: the child is alive, its pid not reused
	t0 := time.Now()
	t.Logf("spawned after %s", time.Since(start))
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }() // ends when pi exits
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 129 {
		t.Fatalf("pi exit: %v", err)
	}
	t.Logf("pi exited %s after SIGHUP", time.Since(t0))
	if _, ok := awaitPidfd(childExit, 30*time.Second); !ok {
		t.Fatalf("the MCP server's child %d outlived pi", child)
	}
}
