package session

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// textGen makes code-like text: mostly ASCII, with quotes, tabs and newlines (escaped in JSON) and
// some non-ASCII.
type textGen struct{ r *rand.Rand }

var benchWords = strings.Fields(`func main() { return err != nil if := range for _, v fmt.Println("hello") x.y = z
	// comment the of to and a in is it that for package import struct type interface map[string]int
	ok total += n; "quoted" 'c' path/to/file.go:42 error: failed café naïve 日本 → ✓`)

func (g textGen) text(n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		b.WriteString(benchWords[g.r.Intn(len(benchWords))])
		switch g.r.Intn(10) {
		case 0:
			b.WriteString("\n\t")
		case 1:
			b.WriteByte('\n')
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// writeBenchSession writes a session of the given number of turns (about 10 KB each, 50 MB for 5,000 turns: a prompt, an
// assistant message with thinking and a tool call, a tool result, a final answer) through a Manager,
// with a compaction every compactEvery turns (0: never). It returns the file's path.
func writeBenchSession(tb testing.TB, dir string, turns, compactEvery int, seed int64) string {
	tb.Helper()
	g := textGen{rand.New(rand.NewSource(seed))}
	s := Create("/home/me/proj", dir)
	defer s.Close()
	check := func(_ string, err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	check(s.AppendModelChange("openai", "gpt-4o"))
	check(s.AppendThinkingLevelChange("medium"))
	ts := int64(1746093600000)
	var keep string
	for t := 0; t < turns; t++ {
		ts += 1000
		u := provider.NewUserMessage(g.text(300))
		u.Timestamp = ts
		id, err := s.AppendMessage(u)
		check(id, err)
		if compactEvery > 0 && t%compactEvery == compactEvery-10 {
			keep = id
		}
		args, _ := provider.MarshalJS(map[string]string{"path": "src/main.go", "oldText": g.text(600), "newText": g.text(600)})
		check(s.AppendMessage(&provider.AssistantMessage{
			Content: []provider.Content{
				{Type: provider.ContentThinking, Thinking: g.text(800), ThinkingSignature: "reasoning_content"},
				provider.TextContent(g.text(200)),
				provider.ToolCallContent(fmt.Sprintf("call_%d", t), "edit", args),
			},
			API: provider.APIOpenAICompletions, Provider: "openai", Model: "gpt-4o",
			Usage:      provider.Usage{Input: 1000 + t, Output: 300, TotalTokens: 1300 + t},
			StopReason: provider.StopReasonToolUse, Timestamp: ts + 100,
		}))
		check(s.AppendMessage(&provider.ToolResultMessage{
			ToolCallID: fmt.Sprintf("call_%d", t), ToolName: "edit",
			Content: []provider.Content{provider.TextContent(g.text(4700))}, Timestamp: ts + 200,
		}))
		check(s.AppendMessage(&provider.AssistantMessage{
			Content: []provider.Content{provider.TextContent(g.text(900))},
			API:     provider.APIOpenAICompletions, Provider: "openai", Model: "gpt-4o",
			Usage:      provider.Usage{Input: 2000 + t, Output: 250, TotalTokens: 2250 + t},
			StopReason: provider.StopReasonStop, Timestamp: ts + 300,
		}))
		if compactEvery > 0 && t%compactEvery == compactEvery-1 {
			check(s.AppendCompaction(g.text(3000), keep, 150000, map[string][]string{"readFiles": {"a.go"}, "modifiedFiles": {"b.go"}}, false, nil))
		}
	}
	return s.SessionFile()
}

// benchFile returns a cached generated session (generation takes a second or two).
func benchFile(b *testing.B, name string, turns, compactEvery int) (string, int64) {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "pi-go-session-bench", name)
	if files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(files) == 1 {
		st, err := os.Stat(files[0])
		if err == nil {
			return files[0], st.Size()
		}
	}
	os.RemoveAll(dir)
	path := writeBenchSession(b, dir, turns, compactEvery, 1)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, st.Size()
}

func loadAndBuild(tb testing.TB, path string) Context {
	s, err := Open(path, OpenOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	ctx, err := s.BuildContext()
	if err != nil {
		tb.Fatal(err)
	}
	return ctx
}

func benchmarkLoad(b *testing.B, name string, compactEvery int) {
	path, size := benchFile(b, name, 5000, compactEvery)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	var n int
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		n = len(loadAndBuild(b, path).Messages)
	}
	b.StopTimer()
	// CPU time of the process per op (all threads, GC included): on a busy shared machine it says
	// more than wall time.
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(n), "messages")
	b.ReportMetric(float64(size)/1e6, "file-MB")
	// peak RSS of a fresh process doing the same once
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=loadrss", "SESSION_PATH="+path)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("rss helper: %v", err)
	}
	var kb int64
	var freshMs float64
	if _, err := fmt.Sscan(string(out), &kb, &freshMs); err != nil {
		b.Fatalf("rss helper said %q", out)
	}
	b.ReportMetric(freshMs, "fresh-process-ms")
	b.ReportMetric(float64(kb)/1024, "peak-RSS-MB")
	b.ReportMetric(float64(kb*1024)/float64(size), "peak-RSS/file")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// helperLoadRSS loads a session once, as a resuming pi-go does, keeps its context alive and prints its
// peak RSS in KiB and the time the load took in ms.
func helperLoadRSS(path string) int {
	t0 := time.Now()
	ctx := loadAndBuild(&testing.B{}, path)
	took := time.Since(t0)
	// VmHWM, not getrusage's maxrss: the latter keeps the high-water mark of the forked parent
	// across exec.
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	hwm := ""
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			hwm = strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:")), " kB")
		}
	}
	if os.Getenv("RSS_DEBUG") != "" {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Fprintf(os.Stderr, "heapAlloc=%dMB heapInuse=%dMB heapSys=%dMB nextGC=%dMB numGC=%d totalAlloc=%dMB\n",
			ms.HeapAlloc>>20, ms.HeapInuse>>20, ms.HeapSys>>20, ms.NextGC>>20, ms.NumGC, ms.TotalAlloc>>20)
	}
	fmt.Println(hwm, float64(took.Microseconds())/1000)
	if len(ctx.Messages) == 0 {
		return 1
	}
	return 0
}

// BenchmarkLoadBuildContext50MB: 5,000 turns, no compaction: every message is decoded.
func BenchmarkLoadBuildContext50MB(b *testing.B) { benchmarkLoad(b, "linear-5000", 0) }

// BenchmarkLoadBuildContext50MBCompacted: the same turns with a compaction every 100 turns, as a
// long real session has: only the kept tail is decoded.
func BenchmarkLoadBuildContext50MBCompacted(b *testing.B) { benchmarkLoad(b, "compacted-5000", 100) }

// BenchmarkAppend measures one append (a 2 KB assistant message) without fsync and reports the
// latency percentiles.
func BenchmarkAppend(b *testing.B) {
	dir := b.TempDir()
	s := Create("/proj", dir)
	defer s.Close()
	g := textGen{rand.New(rand.NewSource(2))}
	msgs := make([]provider.Message, 64)
	for i := range msgs {
		msgs[i] = &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(g.text(2000))},
			API: "openai-completions", Provider: "openai", Model: "gpt-4o", StopReason: "stop", Timestamp: 1}
	}
	if _, err := s.AppendMessage(msgs[0]); err != nil { // creates the file
		b.Fatal(err)
	}
	lat := make([]time.Duration, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := s.AppendMessage(msgs[i%len(msgs)]); err != nil {
			b.Fatal(err)
		}
		lat[i] = time.Since(t0)
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkList1000 lists a directory of 1,000 sessions of 2 to 30 turns (20 KB to 300 KB, 145 MB
// in all).
func BenchmarkList1000(b *testing.B) {
	dir := filepath.Join(os.TempDir(), "pi-go-session-bench", "list-1000")
	if files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(files) != 1000 {
		os.RemoveAll(dir)
		template := filepath.Join(os.TempDir(), "pi-go-session-bench", "list-templates")
		os.RemoveAll(template)
		var tmpl []string
		for turns := 2; turns <= 30; turns++ {
			tmpl = append(tmpl, writeBenchSession(b, filepath.Join(template, strconv.Itoa(turns)), turns, 0, int64(turns)))
		}
		r := rand.New(rand.NewSource(3))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 1000; i++ {
			data, err := os.ReadFile(tmpl[r.Intn(len(tmpl))])
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%04d.jsonl", i)), data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		os.RemoveAll(template)
	}
	var total int64
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		st, _ := os.Stat(f)
		total += st.Size()
	}
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		infos, err := List(dir)
		if err != nil || len(infos) != 1000 {
			b.Fatalf("List = %d, %v", len(infos), err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}
