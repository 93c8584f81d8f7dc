package shell

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// killGroupOnCleanup makes sure a test never leaves processes behind.
func killGroupOnCleanup(t *testing.T, pgid int) {
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
}

// TestAbortKillsTheWholeGroup aborts a shell whose children (one in the background) keep running,
// and checks in /proc that no process of its group is alive afterwards.
func TestAbortKillsTheWholeGroup(t *testing.T) {
	for _, how := range []string{"abort", "timeout"} {
		t.Run(how, func(t *testing.T) {
			ctx, cancel := context.WithCancel(testContext(t))
			defer cancel()
			var timeout time.Duration
			if how == "timeout" {
				timeout = time.Second
			}
			var pgid, bg int
			_, res, err := execText(ctx, t.TempDir(), "sleep 300 & echo $$ $!; sleep 300; wait", timeout,
				func(soFar string) {
					fields := strings.Fields(soFar)
					if len(fields) < 2 || pgid != 0 {
						return
					}
					pgid, _ = strconv.Atoi(fields[0])
					bg, _ = strconv.Atoi(fields[1])
					killGroupOnCleanup(t, pgid)
					if group, _, ok := procStat(bg); !ok || group != pgid {
						t.Errorf("background sleep %d not in group %d before the abort", bg, pgid)
					}
					if how == "abort" {
						cancel()
					}
				})
			if err != nil {
				t.Fatal(err)
			}
			if res.Aborted != (how == "abort") || res.TimedOut != (how == "timeout") || res.ExitCode != nil {
				t.Fatalf("result %+v", res)
			}
			if pgid == 0 {
				t.Fatal("never saw the shell's pid")
			}
			if alive := groupMembers(pgid); len(alive) > 0 {
				t.Fatalf("processes of group %d still alive: %v", pgid, alive)
			}
		})
	}
}

// TestBackgroundJobDoesNotHoldTheResult: a background job that keeps the output pipe open must not
// keep the run waiting once the shell itself has exited (pi leaves such jobs running).
func TestBackgroundJobDoesNotHoldTheResult(t *testing.T) {
	text, res, err := execText(testContext(t), t.TempDir(), "sleep 300 & echo $$", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	pgid, _ := strconv.Atoi(strings.TrimSpace(text))
	if pgid == 0 {
		t.Fatalf("text %q", text)
	}
	killGroupOnCleanup(t, pgid)
	if res.ExitCode == nil || *res.ExitCode != 0 || res.Aborted {
		t.Fatalf("result %+v", res)
	}
}

// TestAbortReturnsWhenAnEscapedProcessHoldsThePipe: a process that left the group (setsid) keeps
// the output pipe open and survives the group kill; the abort must still return.
func TestAbortReturnsWhenAnEscapedProcessHoldsThePipe(t *testing.T) {
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	var escaped int
	_, res, err := execText(ctx, t.TempDir(), "setsid sh -c 'echo $$; exec sleep 300' & sleep 300", 0,
		func(soFar string) {
			if pid, err := strconv.Atoi(strings.TrimSpace(soFar)); err == nil && escaped == 0 {
				escaped = pid
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
				cancel()
			}
		})
	if err != nil || !res.Aborted {
		t.Fatalf("result %+v, error %v", res, err)
	}
	if escaped == 0 {
		t.Fatal("never saw the escaped pid")
	}
	if _, state, ok := procStat(escaped); !ok || state == 'Z' {
		t.Fatal("the escaped process did not survive, so the pipe was not held")
	}
}

// TestSurvivesThreadExits: the shell is started with a parent-death signal, which Linux sends when
// the thread that forked it exits. Threads exit whenever a goroutine locked to one ends; while the
// shell runs, such goroutines must not take the forking thread down, and the shell with it.
func TestSurvivesThreadExits(t *testing.T) {
	dir := t.TempDir()
	fifo := dir + "/go"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	released := false
	text, res, err := execText(testContext(t), dir, `echo ready; read line < go; echo "got $line"`, 0,
		func(soFar string) {
			if released || !strings.Contains(soFar, "ready") {
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
	if err != nil || text != "ready\ngot x\n" || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("output %q, result %+v, error %v: the shell did not survive", text, res, err)
	}
}
