package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A stdio server runs in its own process group, so stopping it also stops what a wrapper (npx, uvx,
// a shell script) started. Stopping follows pi: close stdin, give the server stdinGrace to exit,
// then SIGTERM the group, then after killGrace SIGKILL it. On Linux the child also gets SIGKILL when
// pi-go dies without closing it (Pdeathsig), and the manager's Close runs on every orderly exit,
// SIGHUP included.
const (
	stdinGrace = 500 * time.Millisecond
	killGrace  = 2 * time.Second
	// stderrTailBytes is how much of a server's stderr /mcp shows after it fails.
	stderrTailBytes = 2000
)

// stdioProcess is a running stdio server.
type stdioProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *tailBuffer
	exited chan struct{} // closed once Wait returned
	once   sync.Once
}

// startStdio starts command with args in dir, the environment being pi-go's plus env.
func startStdio(command string, args []string, dir string, env []string) (*stdioProcess, error) {
	cmd := exec.Command(command, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = processGroupAttr()
	p := &stdioProcess{cmd: cmd, stderr: &tailBuffer{max: stderrTailBytes}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", command, err)
	}
	go func() {
		// The owner is the process itself: Wait returns when it exits (and its stderr is drained).
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// transport speaks newline-delimited JSON-RPC over the process's pipes.
func (p *stdioProcess) transport() sdk.Transport {
	return &sdk.IOTransport{Reader: p.stdout, Writer: p.stdin}
}

// stop ends the server and every process of its group; it returns once the server has exited.
func (p *stdioProcess) stop() {
	p.once.Do(func() {
		_ = p.stdin.Close()
		pid := p.cmd.Process.Pid
		select {
		case <-p.exited:
		case <-time.After(stdinGrace):
			signalGroup(pid, sigTerm)
			select {
			case <-p.exited:
			case <-time.After(killGrace):
				signalGroup(pid, sigKill)
				<-p.exited
			}
		}
		// Children of the server that ignored stdin closing would otherwise outlive it.
		signalGroup(pid, sigKill)
	})
}

// stopContext is stop bounded by ctx: a caller that must not wait (shutdown on a signal) gives up
// waiting, though the kill signals are still sent.
func (p *stdioProcess) stopContext(ctx context.Context) {
	done := make(chan struct{})
	go func() { p.stop(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		signalGroup(p.cmd.Process.Pid, sigKill)
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
