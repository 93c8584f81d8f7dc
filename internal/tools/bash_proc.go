package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// Timing of a shell run. pi waits 100 ms for the output pipe after the shell exits (a background job
// may hold it open forever) and throttles streamed updates to one per 100 ms.
const (
	bashExitGrace      = 100 * time.Millisecond
	bashUpdateInterval = 100 * time.Millisecond
	// bashKillGrace is how long the process group gets between SIGTERM and SIGKILL.
	bashKillGrace = time.Second
	// bashChunkSize is the size of one pipe read; bashChunkBuffers of them bound the memory in flight.
	bashChunkSize    = 64 * 1024
	bashChunkBuffers = 4
)

// bashShell resolves the shell as pi does: the configured shellPath (which must exist), else
// /bin/bash, else bash on PATH, else sh.
func bashShell(custom string) (shell string, args []string, err error) {
	if custom != "" {
		if _, err := os.Stat(custom); err != nil {
			return "", nil, fmt.Errorf("Custom shell path not found: %s", custom)
		}
		return custom, []string{"-c"}, nil
	}
	if _, err := os.Stat("/bin/bash"); err == nil {
		return "/bin/bash", []string{"-c"}, nil
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p, []string{"-c"}, nil
	}
	return "sh", []string{"-c"}, nil
}

// bashCheckCwd returns pi's error when the working directory is missing.
func bashCheckCwd(cwd string) error {
	if _, err := os.Stat(cwd); err != nil {
		return fmt.Errorf("Working directory does not exist: %s\nCannot execute bash commands.", cwd)
	}
	return nil
}

// bashRunSpec is one shell invocation.
type bashRunSpec struct {
	shell string
	args  []string
	dir   string
	env   []string
	// timeout kills the group after this long; 0 means none.
	timeout time.Duration
	// onData receives each chunk of merged stdout/stderr in arrival order, on the caller's goroutine.
	// The slice is reused afterwards. It returns a delay after which onTick should run (0: none).
	onData func(chunk []byte) time.Duration
	onTick func()
}

// bashRunResult says how the shell ended. exitCode is nil when it was killed by a signal.
type bashRunResult struct {
	exitCode *int
	aborted  bool
	timedOut bool
}

// bashRun runs the shell in a session and process group of its own (bashSysProcAttr), with stdin
// from /dev/null and stdout and stderr merged into one pipe. It returns when the shell has exited and
// its output pipe is drained (or, when a background process keeps the pipe open, bashExitGrace
// later). Abort (ctx) and timeout send SIGTERM to the whole group, SIGKILL after bashKillGrace or once
// the shell is gone, and wait until no process of the group is alive. Callbacks run on the caller's
// goroutine and never after return.
func bashRun(ctx context.Context, spec bashRunSpec) (bashRunResult, error) {
	var res bashRunResult
	r, w, err := os.Pipe()
	if err != nil {
		return res, err
	}
	cmd := exec.Command(spec.shell, spec.args...)
	cmd.Dir = spec.dir
	cmd.Env = spec.env
	cmd.Stdout = w
	cmd.Stderr = w
	cmd.SysProcAttr = bashSysProcAttr()
	exited := make(chan struct{})
	var reaped bool
	started := make(chan error, 1)
	go func() {
		// The parent-death signal follows the forking thread: keep it until the shell has exited.
		// Unlocked again before the goroutine ends, the thread lives on (a locked one would exit).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		reaped = bashAwaitExit(cmd)
		close(exited)
	}()
	if err := <-started; err != nil {
		r.Close()
		w.Close()
		return res, bashSpawnError(spec.shell, err)
	}
	w.Close()
	pid := cmd.Process.Pid

	chunks := make(chan []byte)
	free := make(chan []byte, bashChunkBuffers)
	for range bashChunkBuffers {
		free <- make([]byte, bashChunkSize)
	}
	go func() {
		defer close(chunks)
		for {
			buf := <-free
			n, err := r.Read(buf)
			if n > 0 {
				chunks <- buf[:n]
			} else {
				free <- buf
			}
			if err != nil {
				return
			}
		}
	}()

	var (
		timeoutC  <-chan time.Time
		graceC    <-chan time.Time
		killC     <-chan time.Time
		tickC     <-chan time.Time
		tickTimer *time.Timer
		ctxDone   = ctx.Done()
		exitedC   = (<-chan struct{})(exited)
		chunksC   = (<-chan []byte)(chunks)
		killing   bool
		pipeShut  bool
	)
	if spec.timeout > 0 {
		t := time.NewTimer(spec.timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	startKill := func() {
		if killing {
			return
		}
		killing = true
		ctxDone, timeoutC = nil, nil
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		killC = time.After(bashKillGrace)
	}
	shutPipe := func() {
		if !pipeShut {
			pipeShut = true
			r.Close()
		}
	}
	for chunksC != nil || exitedC != nil {
		select {
		case buf, ok := <-chunksC:
			if !ok {
				chunksC = nil
				continue
			}
			if d := spec.onData(buf); d > 0 && tickC == nil {
				tickTimer = time.NewTimer(d)
				tickC = tickTimer.C
			}
			free <- buf[:cap(buf)]
		case <-tickC:
			tickC = nil
			spec.onTick()
		case <-exitedC:
			exitedC = nil
			if chunksC != nil {
				graceC = time.After(bashExitGrace)
			}
		case <-graceC:
			graceC = nil
			shutPipe()
		case <-ctxDone:
			res.aborted = true
			startKill()
		case <-timeoutC:
			res.timedOut = true
			startKill()
		case <-killC:
			killC = nil
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			// A process that left the group may still hold the pipe: stop reading soon.
			graceC = time.After(bashExitGrace)
		}
	}
	if tickTimer != nil {
		tickTimer.Stop()
	}
	shutPipe()
	// An abort that arrives while the pipe drains still counts (pi checks the signal at the end).
	if !killing && ctx.Err() != nil {
		res.aborted = true
		killing = true
		_ = syscall.Kill(-pid, syscall.SIGTERM)
	}
	if killing {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	if !reaped {
		_ = cmd.Wait()
	}
	if killing {
		bashAwaitGroupGone(pid, bashKillGrace)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Exited() {
		code := ws.ExitStatus()
		res.exitCode = &code
	}
	return res, nil
}

// bashSpawnError words a failed start as Node does ("spawn /bin/nosh ENOENT").
func bashSpawnError(shell string, err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if code := lsErrnoCode(errno); code != "" {
			return fmt.Errorf("spawn %s %s", shell, code)
		}
	}
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("spawn %s ENOENT", shell)
	}
	return fmt.Errorf("spawn %s: %w", shell, err)
}
