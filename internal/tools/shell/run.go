package shell

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

	"golang.org/x/sys/unix"
)

// Timing of a shell run. pi waits 100 ms for the output pipe after the shell exits (a background job
// may hold it open forever).
const (
	exitGrace = 100 * time.Millisecond
	// killGrace is how long the process group gets between SIGTERM and SIGKILL.
	killGrace = time.Second
	// chunkSize is the size of one pipe read; chunkBuffers of them bound the memory in flight.
	chunkSize    = 64 * 1024
	chunkBuffers = 4
)

// Options configures command execution (the bash tool and the user's own `!` commands).
type Options struct {
	// ShellPath is settings.json shellPath; empty means /bin/bash, else bash on PATH, else sh.
	ShellPath string
	// CommandPrefix is settings.json shellCommandPrefix, run before every command (joined by a newline).
	CommandPrefix string
	// BinDir (pi's ~/.pi/agent/bin) is prepended to PATH when not already on it.
	BinDir string
	// Env holds extra KEY=VALUE variables; they override the inherited environment.
	Env []string
	// SessionEnv, when set, gives the variables describing the agent's session (pi 1.6's
	// PI_SESSION_ID, PI_SESSION_FILE, PI_PROVIDER, PI_MODEL, PI_REASONING_LEVEL), read when each
	// command starts; those variables inherited from pi's own environment are dropped first. The
	// bash tool sets it; the user's ! commands do not, as in pi.
	SessionEnv func() []string
	// OutputDir receives the full-output files of truncated results (nil: the system temp
	// directory, where nothing removes them).
	OutputDir *OutputDir
}

// ErrAborted reports a run cancelled before the shell started.
var ErrAborted = errors.New("aborted")

// Exec resolves the shell, checks the working directory and runs command after opts.CommandPrefix,
// in pi's order of checks (shell first, then cwd). The command runs as run describes; timeout 0 means
// none. onData gets each chunk of merged stdout/stderr on the caller's goroutine (the slice is reused
// afterwards) and returns a delay after which onTick should run (0: none).
func Exec(ctx context.Context, command, cwd string, opts Options, timeout time.Duration,
	onData func([]byte) time.Duration, onTick func()) (Result, error) {
	if opts.CommandPrefix != "" {
		command = opts.CommandPrefix + "\n" + command
	}
	shell, shellArgs, err := resolveShell(opts.ShellPath)
	if err != nil {
		return Result{}, err
	}
	if err := checkCwd(cwd); err != nil {
		return Result{}, err
	}
	if ctx.Err() != nil {
		return Result{}, ErrAborted
	}
	return run(ctx, runSpec{
		shell:   shell,
		args:    append(shellArgs, command),
		dir:     cwd,
		env:     environ(opts.BinDir, opts.Env, opts.SessionEnv),
		timeout: timeout,
		onData:  onData,
		onTick:  onTick,
	})
}

// resolveShell resolves the shell as pi does: the configured shellPath (which must exist), else
// /bin/bash, else bash on PATH, else sh.
func resolveShell(custom string) (shell string, args []string, err error) {
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

// checkCwd returns pi's error when the working directory is missing.
func checkCwd(cwd string) error {
	if _, err := os.Stat(cwd); err != nil {
		return fmt.Errorf("Working directory does not exist: %s\nCannot execute bash commands.", cwd)
	}
	return nil
}

// runSpec is one shell invocation.
type runSpec struct {
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

// Result says how the shell ended. ExitCode is nil when it was killed by a signal.
type Result struct {
	ExitCode *int
	Aborted  bool
	TimedOut bool
}

// run runs the shell in a session and process group of its own (sysProcAttr), with stdin
// from /dev/null and stdout and stderr merged into one pipe. It returns when the shell has exited and
// its output pipe is drained (or, when a background process keeps the pipe open, exitGrace
// later). Abort (ctx) and timeout send SIGTERM to the whole group, SIGKILL after killGrace or once
// the shell is gone, and wait until no process of the group is alive. Callbacks run on the caller's
// goroutine and never after return.
func run(ctx context.Context, spec runSpec) (Result, error) {
	var res Result
	r, w, err := os.Pipe()
	if err != nil {
		return res, err
	}
	cmd := exec.Command(spec.shell, spec.args...)
	cmd.Dir = spec.dir
	cmd.Env = spec.env
	cmd.Stdout = w
	cmd.Stderr = w
	cmd.SysProcAttr = sysProcAttr()
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
		reaped = awaitExit(cmd)
		close(exited)
	}()
	if err := <-started; err != nil {
		r.Close()
		w.Close()
		return res, spawnError(spec.shell, err)
	}
	w.Close()
	pid := cmd.Process.Pid

	chunks := make(chan []byte)
	free := make(chan []byte, chunkBuffers)
	for range chunkBuffers {
		free <- make([]byte, chunkSize)
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
		killC = time.After(killGrace)
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
				graceC = time.After(exitGrace)
			}
		case <-graceC:
			graceC = nil
			shutPipe()
		case <-ctxDone:
			res.Aborted = true
			startKill()
		case <-timeoutC:
			res.TimedOut = true
			startKill()
		case <-killC:
			killC = nil
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			// A process that left the group may still hold the pipe: stop reading soon.
			graceC = time.After(exitGrace)
		}
	}
	if tickTimer != nil {
		tickTimer.Stop()
	}
	shutPipe()
	// An abort that arrives while the pipe drains still counts (pi checks the signal at the end).
	if !killing && ctx.Err() != nil {
		res.Aborted = true
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
		awaitGroupGone(pid, killGrace)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Exited() {
		code := ws.ExitStatus()
		res.ExitCode = &code
	}
	return res, nil
}

// spawnError words a failed start as Node does ("spawn /bin/nosh ENOENT").
func spawnError(shell string, err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if code := unix.ErrnoName(errno); code != "" {
			return fmt.Errorf("spawn %s %s", shell, code)
		}
	}
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("spawn %s ENOENT", shell)
	}
	return fmt.Errorf("spawn %s: %w", shell, err)
}
