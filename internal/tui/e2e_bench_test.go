package tui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider/openai"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/internal/tui/screen"
)

// Process-level benchmarks: the test binary runs as pi (runE2EHelper) in a tmux pane or on a pipe,
// and the figures are read from /proc: CPU time (utime+stime, 10 ms resolution) and resident memory.

const e2ePidEnv = "PI_TUI_E2E_PIDFILE"

// procCPU is the process's user+system CPU time.
func procCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	// Fields after the command (which may hold spaces) start after the last ')'.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// procRSS is the process's resident memory in bytes.
func procRSS(tb testing.TB, pid int) int64 {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}

// tuiModes are the two modes the benchmarks measure.
var tuiModes = []string{TUIModeRegular, TUIModeFullscreen}

// e2ePane starts the helper in a 120x40 tmux pane against srv, in mode, and returns the pane and the
// pid.
func e2ePane(tb testing.TB, srv *openaitest.Server, mode string) (*tmuxPane, int) {
	tb.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		tb.Skip("tmux is not installed")
	}
	dir := tb.TempDir()
	pidFile := filepath.Join(dir, "pid")
	p := &tmuxPane{tb: tb, socket: fmt.Sprintf("pi-tui-bench-%d-%d", os.Getpid(), time.Now().UnixNano())}
	cmd := fmt.Sprintf("env %s=1 %s=%s %s=%s %s=%s %s=%s %s -test.run='^$'", e2eHelperEnv, e2eURLEnv, srv.URL, e2eDirEnv, dir,
		e2ePidEnv, pidFile, e2eModeEnv, mode, os.Args[0])
	p.run("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", cmd)
	tb.Cleanup(func() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	p.waitFor("the editor", p.screen, contains(e2eModel))
	data, err := os.ReadFile(pidFile)
	if err != nil {
		tb.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return p, pid
}

// burstBody is one answer of n one-character deltas: prose with paragraph breaks, ending in a marker.
func burstBody(n int) []byte {
	prose := "The quick brown fox jumps over the lazy dog while the terminal keeps up with every delta. "
	var text strings.Builder
	for text.Len() < n-8 {
		text.WriteString(prose)
		if text.Len()%700 < len(prose) {
			text.WriteString("\n\n")
		}
	}
	s := text.String()[:n-8] + " THE-END"
	c := openaitest.NewChunks(e2eModel)
	var b bytes.Buffer
	b.WriteString(c.Role())
	for _, r := range s {
		b.WriteString(c.Text(string(r)))
	}
	b.WriteString(c.Finish("stop"))
	b.WriteString(c.Usage(10, n, 0))
	b.WriteString(openaitest.Done())
	return b.Bytes()
}

// BenchmarkBurst sends one answer of 20,000 (and 200,000) one-character deltas at full speed to pi
// in a 120x40 tmux pane and reports the CPU time pi spent from Enter until the answer's last
// characters were on screen (cpu-ms), the wall time (wall-ms), then the resident memory of the idle
// UI after that answer (rss-MB).
func BenchmarkBurst(b *testing.B) {
	for _, mode := range tuiModes {
		for _, n := range []int{20000, 200000} {
			b.Run(fmt.Sprintf("mode=%s/deltas=%d", mode, n), func(b *testing.B) { benchBurst(b, mode, n) })
		}
	}
}

func benchBurst(b *testing.B, mode string, n int) {
	body := burstBody(n)
	var cpu, wall time.Duration
	var rss int64
	for i := 0; i < b.N; i++ {
		srv := openaitest.Start(b)
		srv.Enqueue(openaitest.Response{Raw: body})
		p, pid := e2ePane(b, srv, mode)
		before := procCPU(b, pid)
		start := time.Now()
		p.run("send-keys", "-t", "e2e", "go", "Enter")
		p.waitFor("the end of the answer", p.screen, contains("THE-END"))
		wall += time.Since(start)
		cpu += procCPU(b, pid) - before
		p.waitFor("the run to end", p.screen, func(s string) bool { return !strings.Contains(s, "Working...") })
		rss += procRSS(b, pid)
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms")
	b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "wall-ms")
	b.ReportMetric(float64(rss)/float64(b.N)/(1<<20), "rss-MB")
}

// BenchmarkIdleCPU reports the CPU time the idle UI uses over 10 seconds after one answer, and its
// resident memory then.
func BenchmarkIdleCPU(b *testing.B) {
	for _, mode := range tuiModes {
		b.Run("mode="+mode, func(b *testing.B) { benchIdleCPU(b, mode) })
	}
}

func benchIdleCPU(b *testing.B, mode string) {
	var total time.Duration
	var rss int64
	for i := 0; i < b.N; i++ {
		srv := openaitest.Start(b)
		srv.Enqueue(openaitest.TextReply(e2eModel, "A short ", "answer."))
		p, pid := e2ePane(b, srv, mode)
		p.run("send-keys", "-t", "e2e", "hi", "Enter")
		p.waitFor("the answer", p.screen, func(s string) bool {
			return strings.Contains(s, "answer.") && !strings.Contains(s, "Working...")
		})
		before := procCPU(b, pid)
		time.Sleep(10 * time.Second) // the measured interval itself
		total += procCPU(b, pid) - before
		rss += procRSS(b, pid)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "cpu-ms/10s")
	b.ReportMetric(float64(rss)/float64(b.N)/(1<<20), "rss-MB")
}

// BenchmarkStartupToFirstFrame runs pi with a pipe as its terminal and reports the wall time from
// starting the process until the first frame (the footer) has been written.
func BenchmarkStartupToFirstFrame(b *testing.B) {
	dir := b.TempDir()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), e2eHelperEnv+"=1", e2eURLEnv+"=http://127.0.0.1:1/v1", e2eDirEnv+"="+dir)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		var seen bytes.Buffer
		buf := make([]byte, 4096)
		for !bytes.Contains(seen.Bytes(), []byte(e2eModel)) {
			n, err := stdout.Read(buf)
			seen.Write(buf[:n])
			if err != nil {
				b.Fatalf("no frame: %v\n%s", err, seen.Bytes())
			}
		}
		elapsed := time.Since(start)
		total += elapsed
		_, _ = stdin.Write([]byte{4}) // Ctrl+D
		stdin.Close()
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "first-frame-ms")
}

// BenchmarkEscapeAbort measures Escape during a stream from the real openai provider (a scripted
// server that has sent part of the answer and holds the rest): from the key until the session is
// idle again, the HTTP stream closed and the partial message recorded (abort-ms).
func BenchmarkEscapeAbort(b *testing.B) {
	srv := openaitest.Start(b)
	model := *testModel
	model.BaseURL = srv.URL
	p := openai.New(openai.Config{})
	sess := newTestSessionWith(b, newScript(), nil, func(o *harness.Options) {
		o.Stream, o.Model = p.Stream, &model
	})
	m := newModel(context.Background(), sess, Options{Out: io.Discard}, 120, 40, screen.OpenTerminal(nil, io.Discard))
	defer m.shutdown()
	c := openaitest.NewChunks(model.ID)
	var total time.Duration
	for i := 0; i < b.N; i++ {
		gate := make(chan struct{})
		srv.Enqueue(openaitest.Response{Events: []string{c.Role(), c.Text("partial"), c.Text(" never")}, Gate: gate})
		streaming := make(chan struct{})
		var once sync.Once
		unsub := sess.Subscribe(func(ev harness.Event) {
			if ev.Type == string(loop.EventMessageUpdate) {
				once.Do(func() { close(streaming) })
			}
		})
		done := make(chan error, 1)
		go func() { done <- sess.Prompt(context.Background(), "go", nil, harness.BehaviorNone) }()
		gate <- struct{}{}
		gate <- struct{}{}
		<-streaming
		start := time.Now()
		if cmd := m.escape(); cmd != nil {
			cmd()
		}
		total += time.Since(start)
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		unsub()
		close(gate)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "abort-ms")
}
