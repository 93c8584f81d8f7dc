package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// Process benchmarks: the binary TestMain built, run as a user runs it. Each reports the wall time of a
// run (wall-ms/op, from start to exit; ns/op adds the benchmark's own process handling), its CPU time
// (user+system, cpu-ms/op: what a run costs whatever else the shared machine is doing) and its peak
// resident set (peak-RSS-MB, the largest ru_maxrss of all runs).
// Issue targets: `pi --version` under 10 ms, `pi -p hi --provider demo` under 15 ms (both under 30 MB),
// the TUI's first frame under 30 ms (BenchmarkTUIFirstFrame); `pi -p` and `pi --mode json` on a
// 200,000-delta stream at least 5x faster than pi 0.73.1 (5.5 s, 269 MB for -p).

// procRun is what one run of the binary cost.
type procRun struct {
	wall   time.Duration // from start to exit, without the benchmark's own process overhead
	cpu    time.Duration
	maxRSS int64 // bytes
	out    int64 // bytes written to stdout
}

// procStats accumulates runs and reports them as benchmark metrics.
type procStats struct {
	n      int
	wall   time.Duration
	cpu    time.Duration
	maxRSS int64
	out    int64
}

func (s *procStats) add(r procRun) {
	s.n++
	s.wall += r.wall
	s.cpu += r.cpu
	s.maxRSS = max(s.maxRSS, r.maxRSS)
	s.out += r.out
}

func (s *procStats) report(b *testing.B) {
	if s.n == 0 {
		return
	}
	b.ReportMetric(float64(s.wall.Nanoseconds())/float64(s.n)/1e6, "wall-ms/op")
	b.ReportMetric(float64(s.cpu.Nanoseconds())/float64(s.n)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(s.maxRSS)/(1<<20), "peak-RSS-MB")
}

// countingWriter counts what the child writes to stdout and keeps the first bytes for error messages.
type countingWriter struct {
	n    int64
	head bytes.Buffer
}

func (w *countingWriter) Write(p []byte) (int, error) {
	if w.head.Len() < 4096 {
		w.head.Write(p[:min(len(p), 4096-w.head.Len())])
	}
	w.n += int64(len(p))
	return len(p), nil
}

// benchEnv is a temp home with its own agent dir, so runs read no user configuration.
func benchEnv(b *testing.B) (dir string, env []string) {
	b.Helper()
	root := b.TempDir()
	dir = filepath.Join(root, "proj")
	agent := filepath.Join(root, "agent")
	for _, d := range []string{dir, agent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return dir, []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + agent, "PI_DEMO_DELAY=0"}
}

// spawnerSource is a tiny program that runs a command and reports its rusage on fd 3. The benchmark
// starts pi through it because Linux charges a child the peak RSS of the process it was forked from
// (exec records the old address space's high-water mark): started straight from the test binary, which
// holds the scripted server's 30 MB stream, pi would report the test binary's peak instead of its own.
const spawnerSource = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "spawner:", err)
		os.Exit(125)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Fprintf(os.NewFile(3, "report"), "%d %d %d %d\n", ru.Maxrss, ru.Utime.Nano(), ru.Stime.Nano(), wall.Nanoseconds())
	os.Exit(cmd.ProcessState.ExitCode())
}
`

var spawner = sync.OnceValues(func() (string, error) {
	dir := filepath.Join(filepath.Dir(piBinary), "spawner")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for name, text := range map[string]string{"main.go": spawnerSource, "go.mod": "module spawner\n\ngo 1.21\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	bin := filepath.Join(dir, "spawner")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the spawner: %v\n%s", err, out)
	}
	return bin, nil
})

// runPi runs the binary once (through the spawner) and fails the benchmark unless it exits 0.
func runPi(b *testing.B, dir string, env []string, args ...string) procRun {
	b.Helper()
	spawn, err := spawner()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	report, reportW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer report.Close()
	cmd := exec.CommandContext(ctx, spawn, append([]string{piBinary}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	cmd.ExtraFiles = []*os.File{reportW}
	// stdout is a pipe read in large chunks (as a program consuming the JSON stream would), not
	// through os/exec's 32 KB copy loop, which would make the reader the bottleneck.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	var out countingWriter
	copied := make(chan error, 1)
	go func() {
		_, err := io.CopyBuffer(&out, stdout, make([]byte, 1<<20))
		stdout.Close()
		copied <- err
	}()
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdoutW, &errb
	err = cmd.Run()
	stdoutW.Close()
	reportW.Close()
	if cerr := <-copied; cerr != nil && err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatalf("pi %v: %v\nstderr: %s\nstdout: %s", args, err, errb.Bytes(), out.head.Bytes())
	}
	var maxRSSKB, utime, stime, wall int64
	if _, err := fmt.Fscan(report, &maxRSSKB, &utime, &stime, &wall); err != nil {
		b.Fatalf("reading the spawner's report: %v", err)
	}
	return procRun{wall: time.Duration(wall), cpu: time.Duration(utime + stime), maxRSS: maxRSSKB * 1024, out: out.n}
}

// BenchmarkStartup: `pi --version` and `pi -p hi --provider demo` at full demo speed (a whole run: config,
// model selection, session file, one streamed answer).
func BenchmarkStartup(b *testing.B) {
	cases := []struct {
		name string
		args []string
	}{
		{"version", []string{"--version"}},
		{"demo-print", []string{"--provider", "demo", "-p", "hi"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			dir, env := benchEnv(b)
			runPi(b, dir, env, c.args...) // page cache and first session directory
			var st procStats
			b.ResetTimer()
			for range b.N {
				st.add(runPi(b, dir, env, c.args...))
			}
			b.StopTimer()
			st.report(b)
		})
	}
}

// BenchmarkStream: the answer streams n one-character deltas from the scripted server on 127.0.0.1;
// print mode writes the final answer, JSON mode every event (pi 1.6's message_update line is the delta
// and the usage so far, so the output grows with n: out-MB/op; pi 0.73.1's repeated the whole partial
// message twice in each line, 40 GB for 200,000 deltas).
func BenchmarkStream(b *testing.B) {
	for _, mode := range []string{"print", "json"} {
		for _, n := range []int{20_000, 200_000} {
			b.Run(fmt.Sprintf("%s/%dk", mode, n/1000), func(b *testing.B) {
				srv := openaitest.Start(b)
				srv.SetFallback(openaitest.Response{Raw: openaitest.LongText("test-model", n, "a")})
				dir, env := benchEnv(b)
				args := []string{"--base-url", srv.URL, "--model", "test-model"}
				if mode == "json" {
					args = append(args, "--mode", "json", "hi")
				} else {
					args = append(args, "-p", "hi")
				}
				var st procStats
				b.ResetTimer()
				for range b.N {
					r := runPi(b, dir, env, args...)
					if mode == "print" && r.out != int64(n)+1 {
						b.Fatalf("printed %d bytes, want %d", r.out, n+1)
					}
					st.add(r)
				}
				b.StopTimer()
				st.report(b)
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "deltas/s")
				if mode == "json" {
					b.ReportMetric(float64(st.out)/float64(st.n)/1e6, "out-MB/op")
				}
			})
		}
	}
}

// TestBenchServer is not a test: it serves a long stream for scripts/bench.sh (hyperfine) when
// PI_BENCH_SERVE names a file to write the server's URL to, until SIGINT or SIGTERM. PI_BENCH_DELTAS
// sets the number of deltas (default 200,000).
func TestBenchServer(t *testing.T) {
	urlFile := os.Getenv("PI_BENCH_SERVE")
	if urlFile == "" {
		t.Skip("PI_BENCH_SERVE is not set: nothing to serve")
	}
	n := 200_000
	if s := os.Getenv("PI_BENCH_DELTAS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			t.Fatalf("PI_BENCH_DELTAS=%q: want a positive number", s)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := openaitest.Start(t)
	srv.SetFallback(openaitest.Response{Raw: openaitest.LongText("test-model", n, "a")})
	if err := os.WriteFile(urlFile+".tmp", []byte(srv.URL), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(urlFile+".tmp", urlFile); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
}
