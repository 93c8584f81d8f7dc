package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
)

func bashMkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// bashShellOutput is what the command prints when run directly.
func bashShellOutput(dir, command string) (string, error) {
	cmd := exec.Command("/bin/bash", "-c", command)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// bashKillGroupOnCleanup makes sure a test never leaves processes behind.
func bashKillGroupOnCleanup(t *testing.T, pgid int) {
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
}

// TestBashAbortKillsTheWholeGroup aborts a shell whose children (one in the background) keep running,
// and checks in /proc that no process of its group is alive afterwards.
func TestBashAbortKillsTheWholeGroup(t *testing.T) {
	for _, how := range []string{"abort", "timeout"} {
		t.Run(how, func(t *testing.T) {
			ctx, cancel := context.WithCancel(bashTestContext(t))
			defer cancel()
			args := `{"command":"sleep 300 & echo $$ $!; sleep 300; wait"}`
			if how == "timeout" {
				args = `{"command":"sleep 300 & echo $$ $!; sleep 300; wait","timeout":1}`
			}
			var pgid, bg int
			res, err := NewBash(t.TempDir(), BashOptions{}).Execute(ctx, loop.ToolCall{Args: json.RawMessage(args)},
				func(r loop.ToolResult) {
					fields := strings.Fields(bashText(r))
					if len(fields) < 2 || pgid != 0 {
						return
					}
					pgid, _ = strconv.Atoi(fields[0])
					bg, _ = strconv.Atoi(fields[1])
					bashKillGroupOnCleanup(t, pgid)
					if group, _, ok := bashProcStat(bg); !ok || group != pgid {
						t.Errorf("background sleep %d not in group %d before the abort", bg, pgid)
					}
					if how == "abort" {
						cancel()
					}
				})
			want := "Command aborted"
			if how == "timeout" {
				want = "Command timed out after 1 seconds"
			}
			if err == nil || !strings.HasSuffix(err.Error(), "\n\n"+want) {
				t.Fatalf("result %q, error %v", bashText(res), err)
			}
			if pgid == 0 {
				t.Fatal("never saw the shell's pid")
			}
			if alive := bashGroupMembers(pgid); len(alive) > 0 {
				t.Fatalf("processes of group %d still alive: %v", pgid, alive)
			}
		})
	}
}

// TestBashBackgroundJobDoesNotHoldTheResult: a background job that keeps the output pipe open must not
// keep the tool waiting once the shell itself has exited (pi leaves such jobs running).
func TestBashBackgroundJobDoesNotHoldTheResult(t *testing.T) {
	res, err, _ := bashCall(t, bashTestContext(t), NewBash(t.TempDir(), BashOptions{}), `{"command":"sleep 300 & echo $$"}`)
	if err != nil {
		t.Fatal(err)
	}
	pgid, _ := strconv.Atoi(strings.TrimSpace(bashText(res)))
	if pgid == 0 {
		t.Fatalf("text %q", bashText(res))
	}
	bashKillGroupOnCleanup(t, pgid)
}

// TestBashHugeOutputStaysBounded streams 72 MB through the tool: the heap stays small, and the spill
// file keeps the end of the output within its limit, saying what it dropped.
func TestBashHugeOutputStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("72 MB of output")
	}
	const size = 72 * 1024 * 1024
	const line = "0123456789abcdefghijklmnopqrstuvwxyz\n"
	var peak uint64
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	dir := NewOutputDir(t.TempDir())
	t.Cleanup(func() { dir.Close() })
	res, err := NewBash(t.TempDir(), BashOptions{OutputDir: dir}).Execute(bashTestContext(t),
		loop.ToolCall{Args: json.RawMessage(`{"command":"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 75497472"}`)},
		func(loop.ToolResult) { sample() })
	sample()
	if err != nil {
		t.Fatal(err)
	}
	d, ok := res.Details.(*BashDetails)
	if !ok || d.FullOutputPath == "" {
		t.Fatalf("details %v", res.Details)
	}
	if d.Truncation.TotalBytes != size || d.Truncation.TotalLines != size/len(line)+1 {
		t.Fatalf("totals %d bytes %d lines", d.Truncation.TotalBytes, d.Truncation.TotalLines)
	}
	data, err := os.ReadFile(d.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > bashSpoolLimit {
		t.Fatalf("spill file has %d bytes, limit %d", len(data), bashSpoolLimit)
	}
	header, body, _ := strings.Cut(string(data), "\n")
	m := regexp.MustCompile(`^\[pi-go: this file keeps only the end of the output \(limit 32\.0MB\): the first (\S+) \((\d+) lines\) were dropped; what follows starts at line (\d+)\]$`).FindStringSubmatch(header)
	if m == nil {
		t.Fatalf("header %q", header)
	}
	dropped, _ := strconv.Atoi(m[2])
	if from, _ := strconv.Atoi(m[3]); from != dropped+1 || len(body) != size-dropped*len(line) {
		t.Fatalf("header %q, then %d bytes", header, len(body))
	}
	if len(body) < bashSpoolLimit/2-len(line) {
		t.Fatalf("the file keeps only %d bytes of the output", len(body))
	}
	whole := strings.Repeat(line, len(body)/len(line)+1)[:len(body)]
	if body != whole {
		t.Fatal("the file's body is not the end of the output")
	}
	if text := bashText(res); !strings.Contains(text, "Full output: "+d.FullOutputPath+" (the first "+m[1]+" were dropped to keep the file under 32.0MB") {
		t.Fatalf("notice: %q", text[max(0, len(text)-300):])
	}
	if peak > 64<<20 {
		t.Fatalf("heap peaked at %d MB", peak>>20)
	}
	t.Logf("heap peak %d MB; %s", peak>>20, header)
}

// TestBashAbortReturnsWhenAnEscapedProcessHoldsThePipe: a process that left the group (setsid) keeps
// the output pipe open and survives the group kill; the abort must still return.
func TestBashAbortReturnsWhenAnEscapedProcessHoldsThePipe(t *testing.T) {
	ctx, cancel := context.WithCancel(bashTestContext(t))
	defer cancel()
	var escaped int
	_, err := NewBash(t.TempDir(), BashOptions{}).Execute(ctx,
		loop.ToolCall{Args: json.RawMessage(`{"command":"setsid sh -c 'echo $$; exec sleep 300' & sleep 300"}`)},
		func(r loop.ToolResult) {
			if pid, err := strconv.Atoi(strings.TrimSpace(bashText(r))); err == nil && escaped == 0 {
				escaped = pid
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
				cancel()
			}
		})
	if err == nil || !strings.HasSuffix(err.Error(), "Command aborted") {
		t.Fatalf("error %v", err)
	}
	if escaped == 0 {
		t.Fatal("never saw the escaped pid")
	}
	if _, state, ok := bashProcStat(escaped); !ok || state == 'Z' {
		t.Fatal("the escaped process did not survive, so the pipe was not held")
	}
}

// TestBashSurvivesThreadExits: the shell is started with a parent-death signal, which Linux sends when
// the thread that forked it exits. Threads exit whenever a goroutine locked to one ends; while the
// shell runs, such goroutines must not take the forking thread down, and the shell with it.
func TestBashSurvivesThreadExits(t *testing.T) {
	dir := t.TempDir()
	fifo := dir + "/go"
	bashMkfifo(t, fifo)
	released := false
	res, err := NewBash(dir, BashOptions{}).Execute(bashTestContext(t),
		loop.ToolCall{Args: json.RawMessage(`{"command":"echo ready; read line < go; echo \"got $line\""}`)},
		func(r loop.ToolResult) {
			if released || !strings.Contains(bashText(r), "ready") {
				return
			}
			released = true
			// Each goroutine ends locked to its thread, so the runtime ends the thread too.
			var wg sync.WaitGroup
			for range 64 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					runtime.LockOSThread()
				}()
			}
			wg.Wait()
			go func() {
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					_, _ = f.WriteString("x\n")
					f.Close()
				}
			}()
		})
	if err != nil || bashText(res) != "ready\ngot x\n" {
		t.Fatalf("result %q, error %v: the shell did not survive", bashText(res), err)
	}
}
