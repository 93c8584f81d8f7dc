package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/mcp/mcptest"
)

// BenchmarkToolSearch500: one tool_search over 500 tools of a connected server (494 synthetic tools
// plus the test server's 6), as the model calls it: rank every searchable tool that is not active.
func BenchmarkToolSearch500(b *testing.B) {
	server := mcptest.New(mcptest.Options{ExtraTools: 494})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	b.Cleanup(srv.Close) // after the manager's Close (cleanups run last first): it waits for open streams
	m := newBenchManager(b, `"many": {"url": "`+srv.URL+`"}`)
	ts := NewToolset(m)
	if n := len(ts.Tools()); n != 500 {
		b.Fatalf("%d tools", n)
	}
	search := ts.StaticTools()[0]
	args := json.RawMessage(`{"query": "search widget archiving", "limit": 8}`)
	b.ResetTimer()
	for range b.N {
		// No agent is attached, so nothing is loaded and every search ranks all 500.
		res, err := search.Execute(context.Background(), loop.ToolCall{Args: args}, nil)
		if err != nil || !strings.HasPrefix(res.Content[0].Text, "Loaded 8 tools") {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkConnectedServerMemory: the heap pi-go keeps per connected stdio server (client session,
// tool list, process bookkeeping), measured over 10 servers of internal/mcp's test server.
func BenchmarkConnectedServerMemory(b *testing.B) {
	const servers = 10
	for range b.N {
		var entries []string
		for i := range servers {
			entries = append(entries, stdioServer("s"+string(rune('a'+i))))
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m := newBenchManager(b, entries...)
		runtime.GC()
		runtime.ReadMemStats(&after)
		for _, st := range m.Statuses() {
			if st.State != StateConnected {
				b.Fatalf("%s: %s %s", st.Server.Name, st.State, st.Error)
			}
		}
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/servers/1024, "heap-KiB/server")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = m.Close(ctx)
		cancel()
	}
}

func newBenchManager(b *testing.B, entries ...string) *Manager {
	b.Helper()
	agent := b.TempDir()
	if err := writeConfig(agent, `{"mcpServers": {`+strings.Join(entries, ",")+`}}`); err != nil {
		b.Fatal(err)
	}
	m := NewManager(Load(agent, b.TempDir(), false), Options{AgentDir: agent, Cwd: b.TempDir()})
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = m.Close(ctx)
	})
	m.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m.Wait(ctx)
	return m
}
