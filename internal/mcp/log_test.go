package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestServerLogLinesAsPiWritesThem(t *testing.T) {
	at := time.Date(2026, 12, 3, 8, 0, 0, 123e6, time.UTC)
	if got := formatLogLine("fs", &sdk.LoggingMessageParams{Level: "warning", Logger: "walker", Data: "line one\nline two"}, at); got != "2026-12-03T08:00:00.123Z [fs] warning walker: line one\n    line two\n" {
		t.Fatalf("%q", got)
	}
	if got := formatLogLine("fs", &sdk.LoggingMessageParams{Data: map[string]any{"n": 1}}, at); got != "2026-12-03T08:00:00.123Z [fs] info {\"n\":1}\n" {
		t.Fatalf("%q", got)
	}
	dir := t.TempDir()
	l := newServerLog(dir)
	l.write("a", &sdk.LoggingMessageParams{Level: "info", Data: "hello"})
	data, _ := os.ReadFile(filepath.Join(dir, "mcp.log"))
	if !strings.HasSuffix(string(data), " [a] info hello\n") {
		t.Fatalf("%q", data)
	}
	// Past 5 MB the file moves to mcp.log.1.
	if err := os.WriteFile(filepath.Join(dir, "mcp.log"), make([]byte, maxLogBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	l.write("a", &sdk.LoggingMessageParams{Level: "info", Data: "after"})
	if info, err := os.Stat(filepath.Join(dir, "mcp.log.1")); err != nil || info.Size() != maxLogBytes+1 {
		t.Fatalf("rotation: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "mcp.log")); !strings.HasSuffix(string(data), " [a] info after\n") || len(data) > 100 {
		t.Fatalf("%q", data)
	}
}
