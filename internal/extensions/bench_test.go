package extensions

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkEventRoundTrip measures one tool_call from pi-go to an extension and back (p50 and p99 of
// the calls), for a protocol process (the test binary) and for pi's runner in the Node sidecar; for
// the sidecar it also reports its resident memory after the calls.
func BenchmarkEventRoundTrip(b *testing.B) {
	b.Run("process", func(b *testing.B) {
		h := fakeProcessHost(b, "ok")
		defer h.Close()
		roundTrips(b, h)
	})
	b.Run("sidecar-pi-1.6.0", func(b *testing.B) {
		pi := findPi(b, "1.6.0")
		dir := b.TempDir()
		src := `export default function (pi) {
	pi.on("tool_call", async (event) => (String(event.input.command).includes("rm -rf") ? { block: true, reason: "no" } : undefined));
}
`
		ext := dir + "/gate.ts"
		if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		script, err := writeScript(dir + "/cache")
		if err != nil {
			b.Fatal(err)
		}
		h := New(Config{Cwd: dir, AgentDir: dir, Mode: "print",
			Sidecar: &Sidecar{Node: pi.node, Script: script, Package: pi.pkg, Extensions: []string{ext}}})
		h.Start()
		defer h.Close()
		roundTrips(b, h)
		if rss := residentKB(h.procs[0].cmd.Process.Pid); rss > 0 {
			b.ReportMetric(float64(rss)/1024, "sidecar-RSS-MB")
		}
	})
}

func roundTrips(b *testing.B, h *Host) {
	ctx := context.Background()
	if err := h.Wait(ctx); err != nil || len(h.procs) != 1 {
		b.Fatalf("start: %v (%d processes)", err, len(h.procs))
	}
	input := json.RawMessage(`{"command":"ls -la"}`)
	for range 50 { // warm up (the sidecar's JIT)
		h.ToolCall(ctx, "bash", "w", input)
	}
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if out := h.ToolCall(ctx, "bash", "c", input); out.Block {
			b.Fatalf("blocked: %+v", out)
		}
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds()), "p99-µs")
}

// residentKB is a process's VmRSS from /proc (0 where there is none).
func residentKB(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}

// fakeProcessHost is a started host of one protocol process: the test binary acting as the fake
// extension kind (PI_GO_FAKE_EXTENSION).
func fakeProcessHost(b *testing.B, kind string) *Host {
	b.Helper()
	b.Setenv("PI_GO_FAKE_EXTENSION", kind)
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	h := New(Config{Cwd: b.TempDir(), Executables: []string{exe}})
	h.Start()
	return h
}
