package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkTUIFirstFrameMCP: the first frame of `pi --provider demo` with no MCP server and with 5
// stdio servers configured (internal/mcp's test server), which connect in the background and must
// not delay it. With PI16 set (and NODE), pi 1.6.0 with the same 5 servers beside it.
func BenchmarkTUIFirstFrameMCP(b *testing.B) {
	server := buildMCPTestServer(b)
	writeServers := func(agentDir string, n int) {
		servers := map[string]any{}
		for i := range n {
			servers[fmt.Sprintf("server-%d", i)] = map[string]any{"command": server}
		}
		data, _ := json.Marshal(map[string]any{"mcpServers": servers})
		if err := os.WriteFile(filepath.Join(agentDir, "mcp.json"), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	type target struct {
		name string
		argv func(agentDir string) []string
	}
	targets := []target{
		{"pi-go-no-servers", func(string) []string { return []string{piBinary, "--provider", "demo"} }},
		{"pi-go-5-servers", func(agentDir string) []string {
			writeServers(agentDir, 5)
			return []string{piBinary, "--provider", "demo"}
		}},
	}
	if pi16 := os.Getenv("PI16"); pi16 != "" {
		node := os.Getenv("NODE")
		if node == "" {
			node = "node"
		}
		for _, n := range []int{0, 5} {
			targets = append(targets, target{fmt.Sprintf("pi-1.6.0-%d-servers", n), func(agentDir string) []string {
				models := `{"providers":{"bench":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"none","models":[{"id":"test-model"}]}}}`
				if err := os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o644); err != nil {
					b.Fatal(err)
				}
				writeServers(agentDir, n)
				return []string{node, pi16, "--provider", "bench", "--model", "test-model"}
			}})
		}
	}
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			root := b.TempDir()
			dir, agent := filepath.Join(root, frameDirName), filepath.Join(root, "agent")
			for _, d := range []string{dir, agent} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					b.Fatal(err)
				}
			}
			env := []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + agent,
				"TERM=xterm-256color", "COLORTERM=truecolor", "LANG=C.UTF-8"}
			argv := tg.argv(agent)
			one := func() frameRun {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				r, err := runToFirstFrame(ctx, argv, dir, env, frameMarker, "\x04")
				if err != nil {
					b.Fatal(err)
				}
				return r
			}
			one()
			var first time.Duration
			var rss int64
			b.ResetTimer()
			for range b.N {
				r := one()
				first += r.firstFrame
				rss = max(rss, r.peakRSS)
			}
			b.StopTimer()
			b.ReportMetric(float64(first.Nanoseconds())/float64(b.N)/1e6, "first-frame-ms/op")
			b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
		})
	}
}
