package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// program is one of the two programs under test: how to start it, and the environment that gives it
// its own home and agent directory (no user configuration is read).
type program struct {
	name string
	argv []string // the binary, or node and pi's cli.js
	env  []string
}

// sample is what one run cost, as GNU time measured it.
type sample struct {
	wall time.Duration
	cpu  time.Duration // user + system
	rss  int64         // peak resident set, bytes
	// anon: the anonymous part of the resident set (RssAnon), where a row measures it (the idle TUI):
	// memory of the process's own, against file pages shared with other processes and the page cache.
	anon int64
	out  int64 // bytes written to stdout
	// cut: the run was stopped at a time limit before it finished (its figures are lower bounds).
	cut bool
}

// gnuTime is GNU time: the runs are started through it because Linux charges a process the peak
// resident set of the address space it was forked from, so a child forked straight from this driver
// (which holds the scripted streams) would report the driver's peak instead of its own.
const gnuTime = "/usr/bin/time"

// driver talks to a running program over stdin and stdout and returns once it has nothing more to say;
// it must close stdin and may leave stdout unread (the rest is drained).
type driver func(stdin io.WriteCloser, stdout *bufio.Reader) error

// measure runs p once with args in dir, driven by drive, and fails unless it exits 0.
func measure(ctx context.Context, p program, dir string, args []string, drive driver) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	timeOut, err := os.CreateTemp("", "bench-vs-pi-time-*")
	if err != nil {
		return sample{}, err
	}
	timeOut.Close()
	defer os.Remove(timeOut.Name())
	argv := append([]string{"-f", "%e %U %S %M", "-o", timeOut.Name()}, p.argv...)
	cmd := exec.CommandContext(ctx, gnuTime, append(argv, args...)...)
	cmd.Dir, cmd.Env = dir, p.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return sample{}, err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		return sample{}, err
	}
	defer stdoutR.Close()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdoutW, &stderr
	if err := cmd.Start(); err != nil {
		stdoutW.Close()
		return sample{}, err
	}
	stdoutW.Close()
	// stdout is read in large chunks, as a program consuming a JSON stream would, so the reader is
	// never what limits the writer.
	counted := &countingReader{r: stdoutR}
	out := bufio.NewReaderSize(counted, 1<<20)
	driveErr := drive(stdin, out)
	stdin.Close()
	if _, err := io.Copy(io.Discard, out); err != nil && driveErr == nil {
		driveErr = err
	}
	waitErr := cmd.Wait()
	if err := errors.Join(driveErr, waitErr); err != nil {
		return sample{}, fmt.Errorf("%s %s: %w\nstderr: %s", p.name, strings.Join(args, " "), err, tail(stderr.Bytes()))
	}
	data, err := os.ReadFile(timeOut.Name())
	if err != nil {
		return sample{}, err
	}
	return parseTime(data, counted.n)
}

// parseTime reads GNU time's "%e %U %S %M" line (seconds, seconds, seconds, kilobytes).
func parseTime(data []byte, out int64) (sample, error) {
	f := strings.Fields(string(data))
	if len(f) < 4 {
		return sample{}, fmt.Errorf("%s printed %q, want \"wall user sys maxrss\"", gnuTime, data)
	}
	var v [4]float64
	for i := range v {
		x, err := strconv.ParseFloat(f[len(f)-4+i], 64)
		if err != nil {
			return sample{}, fmt.Errorf("%s printed %q: %w", gnuTime, data, err)
		}
		v[i] = x
	}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	return sample{wall: sec(v[0]), cpu: sec(v[1] + v[2]), rss: int64(v[3]) * 1024, out: out}, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

// closeStdin is the driver of print and JSON mode: no input, stdout read to its end.
func closeStdin(stdin io.WriteCloser, _ *bufio.Reader) error { return stdin.Close() }

// rpcPrompt is the driver of RPC mode: one prompt, then stdin is closed once the run has ended
// (agent_end), which ends both programs.
func rpcPrompt(message string) driver {
	return func(stdin io.WriteCloser, stdout *bufio.Reader) error {
		cmd := fmt.Sprintf(`{"type":"prompt","id":"1","message":%s}`+"\n", strconv.Quote(message))
		if _, err := io.WriteString(stdin, cmd); err != nil {
			return err
		}
		if err := waitEvent(stdout, "agent_end"); err != nil {
			return err
		}
		return stdin.Close()
	}
}

// waitEvent reads JSON lines until one of the given type, failing on a failed command response.
func waitEvent(r *bufio.Reader, typ string) error {
	want := []byte(`{"type":"` + typ + `"`)
	failed := []byte(`"success":false`)
	start := true // at the start of a line
	for {
		line, err := r.ReadSlice('\n')
		if start && bytes.HasPrefix(line, want) {
			return nil
		}
		if start && bytes.HasPrefix(line, []byte(`{"type":"response"`)) && bytes.Contains(line, failed) {
			return fmt.Errorf("command failed: %s", bytes.TrimSpace(line))
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			start = false
			continue
		case err == io.EOF:
			return fmt.Errorf("stdout ended before %s", typ)
		case err != nil:
			return err
		}
		start = true
	}
}

// workspace is a fresh project directory with its own home and agent directory for each program.
type workspace struct {
	root, proj string
}

func newWorkspace(root string) (workspace, error) {
	w := workspace{root: root, proj: filepath.Join(root, "proj")}
	return w, os.MkdirAll(w.proj, 0o755)
}

// env returns the environment of a program run in w: its own HOME and PI_CODING_AGENT_DIR holding the
// given models.json and settings.json.
func (w workspace) env(name, models, settings string) ([]string, error) {
	home := filepath.Join(w.root, name+"-home")
	agent := filepath.Join(w.root, name+"-agent")
	for _, d := range []string{home, agent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	for file, content := range map[string]string{"models.json": models, "settings.json": settings} {
		if content == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(agent, file), []byte(content), 0o600); err != nil {
			return nil, err
		}
	}
	// PI_OFFLINE: neither program may reach the network (pi 1.6 would check for updates).
	return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + agent, "TERM=dumb", "PI_OFFLINE=1"}, nil
}
