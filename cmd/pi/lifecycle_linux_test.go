package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// The end of a session, however it comes (the prompts are done, a signal, the terminal closed,
// SIGKILL): the commands pi started die with it, the session file holds what was said, and the
// full-output files are removed. These tests read /proc and use pidfds, so they are Linux-only.

// lifecycleBound is how long pi may take to end after the fault; it normally takes milliseconds
// (the bash tool gives its commands a second between SIGTERM and SIGKILL).
const lifecycleBound = 10 * time.Second

// sleeperCommand prints more than the bash tool shows (so a full-output file is made), tells the
// test the shell's pid (which becomes sleep's, the leader of its process group) and pi's, and sleeps.
const sleeperCommand = `seq 1 20000; echo $$ $PPID > pid.fifo; exec sleep 300`

// lifecycle is one pi run with a command that reports its pids through a FIFO.
type lifecycle struct {
	*project
	tmp string // TMPDIR of the run: where pi's output directory goes
}

func newLifecycle(t *testing.T) *lifecycle {
	t.Helper()
	l := &lifecycle{project: newProject(t), tmp: t.TempDir()}
	if err := syscall.Mkfifo(filepath.Join(l.dir, "pid.fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *lifecycle) env() []string {
	return []string{
		"HOME=" + filepath.Dir(l.agentDir),
		"PATH=" + os.Getenv("PATH"),
		"PI_CODING_AGENT_DIR=" + l.agentDir,
		"TMPDIR=" + l.tmp,
	}
}

// enqueueSleeper scripts a tool call of sleeperCommand (then a final answer, if the run gets there).
func (l *lifecycle) enqueueSleeper() {
	args, _ := json.Marshal(map[string]string{"command": sleeperCommand})
	l.server.Enqueue(
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "c1", Name: "bash", Arguments: string(args)}),
		openaitest.TextReply("test-model", "done"),
	)
}

// readPids waits until the command has started and returns its shell's pid and pi's.
func (l *lifecycle) readPids() (shell, pi int) {
	l.t.Helper()
	got := make(chan string, 1)
	go func() {
		data, _ := os.ReadFile(filepath.Join(l.dir, "pid.fifo")) // blocks until the shell writes
		got <- string(data)
	}()
	select {
	case s := <-got:
		if _, err := fmt.Sscan(s, &shell, &pi); err != nil {
			l.t.Fatalf("pids %q: %v", s, err)
		}
	case <-time.After(30 * time.Second):
		l.t.Fatal("the command never started")
	}
	l.t.Cleanup(func() { _ = syscall.Kill(-shell, syscall.SIGKILL) })
	return shell, pi
}

// checkAfterExit asserts what must hold once pi is gone: no process of the command's group lives,
// the session file is valid JSONL holding the prompt (unless prompt is ""), and the output directory
// is removed.
func (l *lifecycle) checkAfterExit(shell int, prompt string) {
	l.t.Helper()
	if st := procState(shell); st != 0 && st != 'Z' {
		l.t.Errorf("the command (pid %d) is still running (state %c)", shell, st)
	}
	if alive := groupMembers(shell); len(alive) > 0 {
		l.t.Errorf("processes of the command's group %d still alive: %v", shell, alive)
	}
	if prompt != "" {
		l.checkSession(prompt)
	}
	l.checkNoOutputFiles()
}

func (l *lifecycle) checkSession(prompt string) {
	l.t.Helper()
	files, _ := filepath.Glob(filepath.Join(l.agentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		l.t.Fatalf("session files: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		l.t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		l.t.Errorf("the session file does not end with a newline")
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			l.t.Errorf("session line %d is not JSON: %q", i+1, line)
		}
	}
	if !strings.Contains(string(data), `"text":"`+prompt+`"`) {
		l.t.Errorf("the prompt %q is not in the session:\n%s", prompt, data)
	}
}

func (l *lifecycle) checkNoOutputFiles() {
	l.t.Helper()
	entries, err := os.ReadDir(l.tmp)
	if err != nil {
		l.t.Fatal(err)
	}
	for _, e := range entries {
		l.t.Errorf("left behind in TMPDIR: %s", e.Name())
	}
}

// procState is the state letter of pid in /proc ('Z' for a zombie), 0 when there is no such process.
func procState(pid int) byte {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	fields := bytes.Fields(data[bytes.LastIndexByte(data, ')')+1:])
	return fields[0][0]
}

// groupMembers lists the live (not zombie) processes of process group pgid.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		fields := bytes.Fields(data[bytes.LastIndexByte(data, ')')+1:])
		if len(fields) > 2 && string(fields[2]) == strconv.Itoa(pgid) && fields[0][0] != 'Z' {
			pids = append(pids, pid)
		}
	}
	return pids
}

// openPidfd watches pid's exit (a process need not be our child).
func openPidfd(t *testing.T, pid int) int {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatalf("pidfd of %d: %v", pid, err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// awaitPidfd waits until the process exits, at most d; it returns how long it took, or false.
func awaitPidfd(fd int, d time.Duration) (time.Duration, bool) {
	start := time.Now()
	for {
		left := d - time.Since(start)
		if left <= 0 {
			return 0, false
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(left/time.Millisecond)+1)
		if err == unix.EINTR {
			continue
		}
		return time.Since(start), err == nil && n == 1
	}
}

// TestHangupKillsTheCommandsAndSavesTheSession: SIGHUP (the terminal was closed) ends -p, --mode
// json and --mode rpc as SIGTERM does, while a command runs (the bash tool's, or in RPC the user's
// own through the bash command): exit 129, the command's process group killed, the session saved,
// the full-output files removed.
func TestHangupKillsTheCommandsAndSavesTheSession(t *testing.T) {
	for _, mode := range []string{"print", "json", "rpc", "rpc bash"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			l := newLifecycle(t)
			l.enqueueSleeper()
			args := l.baseArgs()
			switch mode {
			case "print":
				args = append(args, "-p", "sleep please")
			case "json":
				args = append(args, "--mode", "json", "sleep please")
			case "rpc", "rpc bash":
				args = append(args, "--mode", "rpc")
			}
			cmd := exec.Command(piBinary, args...)
			cmd.Dir, cmd.Env = l.dir, l.env()
			// RPC reads commands from stdin; the other modes read piped stdin into the prompt, so
			// theirs is empty (/dev/null).
			var stdin io.WriteCloser
			var err error
			if strings.HasPrefix(mode, "rpc") {
				if stdin, err = cmd.StdinPipe(); err != nil {
					t.Fatal(err)
				}
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			// A process left holding pi's stderr must not keep Wait from returning once pi has exited.
			cmd.WaitDelay = 10 * time.Second
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			prompt := "sleep please"
			switch mode {
			case "rpc":
				if _, err := io.WriteString(stdin, `{"type":"prompt","message":"sleep please"}`+"\n"); err != nil {
					t.Fatal(err)
				}
			case "rpc bash":
				line, _ := json.Marshal(map[string]string{"type": "bash", "command": sleeperCommand})
				if _, err := stdin.Write(append(line, '\n')); err != nil {
					t.Fatal(err)
				}
				prompt = "" // no run, so no session file
			}
			// JSON and RPC report the full-output file in a tool update: it exists while pi runs.
			spool := make(chan string, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				sc.Buffer(nil, 4<<20)
				sent := false
				for sc.Scan() {
					if m := regexp.MustCompile(`"fullOutputPath":"([^"]+)"`).FindSubmatch(sc.Bytes()); m != nil && !sent {
						spool <- string(m[1])
						sent = true
					}
				}
			}()
			shell, pi := l.readPids()
			if pi != cmd.Process.Pid {
				t.Fatalf("the command's parent is %d, pi is %d", pi, cmd.Process.Pid)
			}
			if mode == "json" || mode == "rpc" {
				select {
				case path := <-spool:
					if _, err := os.Stat(path); err != nil {
						t.Fatalf("the full-output file named in the result: %v", err)
					}
					if !strings.HasPrefix(path, l.tmp+"/pi-go-"+strconv.Itoa(pi)+"-") {
						t.Errorf("full-output file %s is not in pi's own directory under TMPDIR", path)
					}
				case <-time.After(30 * time.Second):
					t.Fatal("no tool update named the full-output file")
				}
			}
			start := time.Now()
			if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			err = waitOrDump(t, cmd, &stderr, time.Minute)
			took := time.Since(start)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 129 {
				t.Errorf("SIGHUP: %v, want exit 129; stderr: %s", err, stderr.String())
			}
			t.Logf("SIGHUP to exit: %v", took)
			if took > lifecycleBound {
				t.Errorf("took %v to exit", took)
			}
			l.checkAfterExit(shell, prompt)
		})
	}
}

// TestSIGKILLTakesTheCommandAlong: pi killed outright cannot clean up; the kernel kills the shell it
// started (the parent-death signal), so `sleep 300` does not outlive it.
func TestSIGKILLTakesTheCommandAlong(t *testing.T) {
	l := newLifecycle(t)
	l.enqueueSleeper()
	cmd := exec.Command(piBinary, append(l.baseArgs(), "-p", "sleep please")...)
	cmd.Dir, cmd.Env = l.dir, l.env()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	shell, _ := l.readPids()
	fd := openPidfd(t, shell)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	took, ok := awaitPidfd(fd, lifecycleBound)
	if !ok {
		t.Fatalf("the command (pid %d) outlived pi by %v", shell, lifecycleBound)
	}
	t.Logf("the command ended %v after pi", took)
}

// TestFullOutputFilesLiveAsLongAsTheSession: the truncation notice names a file that exists while the
// session runs, in pi's own directory under TMPDIR, and is gone once pi has exited.
func TestFullOutputFilesLiveAsLongAsTheSession(t *testing.T) {
	l := newLifecycle(t)
	release := make(chan struct{})
	answer := openaitest.TextReply("test-model", "done")
	answer.BeforeHeaders = release
	l.server.Enqueue(
		openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "c1", Name: "bash", Arguments: `{"command":"seq 1 20000"}`}),
		answer,
	)
	done := make(chan result, 1)
	go func() {
		cmd := exec.Command(piBinary, append(l.baseArgs(), "-p", "count")...)
		cmd.Dir, cmd.Env = l.dir, l.env()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		r := result{stdout: out.String(), stderr: errb.String()}
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			r.code = ee.ExitCode()
		} else if err != nil {
			r.code = -1
		}
		done <- r
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := l.server.WaitRequest(ctx, 2)
	if err != nil {
		close(release)
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Full output: (/[^\]\s\\]+)`).FindSubmatch(req.Body)
	if m == nil {
		close(release)
		t.Fatalf("no full-output path in the tool result sent back: %s", req.Body)
	}
	path := string(m[1])
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the file named in the notice does not exist while the session runs: %v", err)
	}
	if !strings.HasPrefix(path, l.tmp+"/pi-go-") {
		t.Errorf("full-output file %s is not in pi's own directory under TMPDIR", path)
	}
	close(release)
	r := <-done
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the full-output file outlived the session: %v", err)
	}
	l.checkNoOutputFiles()
}

// TestRPCShutdownRules: pi 1.6's RPC mode shuts down in order when its input ends or on a first
// SIGTERM; once that has started, the end of the input or a single signal does not cut it short, a
// second signal exits at once. The command of the run ignores SIGTERM (its trap reports it through a
// FIFO), so the orderly shutdown waits out the bash tool's second before SIGKILL: time for the test to
// act while it is under way.
func TestRPCShutdownRules(t *testing.T) {
	const trapCommand = `trap 'echo term > term.fifo' TERM; echo $$ $PPID > pid.fifo; while :; do sleep 0.1; done`
	for _, tc := range []struct {
		name string
		// start starts the shutdown; then one SIGTERM more is sent.
		start    func(cmd *exec.Cmd, stdin io.Closer) error
		wantCode int
		// orderly: the run ended before the exit (its agent_settled is the last record).
		orderly bool
	}{
		{"end of input, then a signal", func(_ *exec.Cmd, stdin io.Closer) error { return stdin.Close() }, 0, true},
		{"a signal, then a second", func(cmd *exec.Cmd, _ io.Closer) error { return cmd.Process.Signal(syscall.SIGTERM) }, 143, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newLifecycle(t)
			if err := syscall.Mkfifo(filepath.Join(l.dir, "term.fifo"), 0o600); err != nil {
				t.Fatal(err)
			}
			args, _ := json.Marshal(map[string]string{"command": trapCommand})
			l.server.Enqueue(openaitest.ToolCallReply("test-model", "", openaitest.ToolCallSpec{ID: "c1", Name: "bash", Arguments: string(args)}))
			cmd := exec.Command(piBinary, append(l.baseArgs(), "--mode", "rpc")...)
			cmd.Dir, cmd.Env = l.dir, l.env()
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			if _, err := io.WriteString(stdin, `{"type":"prompt","message":"trap it"}`+"\n"); err != nil {
				t.Fatal(err)
			}
			shell, _ := l.readPids()
			shellFd := openPidfd(t, shell)

			if err := tc.start(cmd, stdin); err != nil {
				t.Fatal(err)
			}
			// The command got its SIGTERM: the shutdown is under way.
			if _, err := os.ReadFile(filepath.Join(l.dir, "term.fifo")); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.wantCode, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			settled := lines[len(lines)-1] == `{"type":"agent_settled","aborted":true}`
			if settled != tc.orderly {
				t.Errorf("orderly shutdown %v, want %v; last record %s", settled, tc.orderly, lines[len(lines)-1])
			}
			if _, ok := awaitPidfd(shellFd, lifecycleBound); !ok {
				t.Errorf("the command (pid %d) outlived pi", shell)
			}
			l.checkSession("trap it")
		})
	}
}

// waitOrDump waits for cmd (started with a WaitDelay) to exit. If it has not exited within limit, it sends the child SIGQUIT,
// which makes Go print every goroutine's stack to stderr, so that a hang fails with its cause
// instead of using up the package's timeout.
func waitOrDump(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer, limit time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
	}
	_ = cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
	t.Fatalf("pi did not exit within %v; its stderr (goroutine dump):\n%s", limit, stderr.String())
	return nil
}
