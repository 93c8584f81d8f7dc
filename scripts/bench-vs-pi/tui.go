package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// The TUI targets run each program interactively in a 120x40 tmux pane (tmux 3 is needed) in one of
// the two modes of the tuiMode setting, and read its CPU time and resident set from /proc.

// tuiEnd ends every TUI answer, so that the driver sees on the screen when the whole answer is there.
const tuiEnd = "THE-END"

// tuiTarget: one prompt answered by n one-character deltas of prose. CPU and wall time run from the
// Enter key until the answer's end is on the screen and the program has stopped using CPU (what it
// renders after the stream ended counts); the RSS is the idle program's after the answer.
func tuiTarget(mode string, n int) target {
	return target{
		name: fmt.Sprintf("TUI %s, %s deltas", mode, thousands(n)),
		setup: func(ctx context.Context, root string) (func(context.Context, program, workspace) (sample, error), string, string, func(), error) {
			srv := openaitest.NewServer()
			srv.SetFallback(openaitest.Response{Raw: tuiBurst(n)})
			run := func(ctx context.Context, p program, w workspace) (sample, error) {
				pane, err := startPane(ctx, p, w)
				if err != nil {
					return sample{}, err
				}
				defer pane.close()
				if err := pane.settle(ctx); err != nil {
					return sample{}, err
				}
				before, err := pane.cpu()
				if err != nil {
					return sample{}, err
				}
				start := time.Now()
				if err := pane.tmux("send-keys", "-t", "bench", "hi", "Enter"); err != nil {
					return sample{}, err
				}
				err = pane.waitScreen(ctx, tuiEnd, tuiBurstLimit)
				cut := errors.Is(err, errNotOnScreen)
				if err != nil && !cut {
					return sample{}, err
				}
				wall := time.Since(start)
				if !cut {
					if err := pane.settle(ctx); err != nil {
						return sample{}, err
					}
				}
				after, err := pane.cpu()
				if err != nil {
					return sample{}, err
				}
				st, err := procMemory(pane.pid)
				if err != nil {
					return sample{}, err
				}
				return sample{wall: wall, cpu: after - before, rss: st.rss, cut: cut}, nil
			}
			return run, modelsJSON(srv.URL), tuiSettings(mode), srv.Close, nil
		},
	}
}

// tuiBurstLimit is how long a burst may take: a program still rendering then is stopped, and its
// row shows the figures reached so far as lower bounds.
const tuiBurstLimit = 20 * time.Minute

var errNotOnScreen = errors.New("not on the screen in time")

// tuiIdleTarget: the program started and left alone. CPU is what it uses over tuiIdle once started
// (its start-up excluded); the RSS is its resident set then.
func tuiIdleTarget(mode string) target {
	return target{
		name: fmt.Sprintf("TUI %s, idle %s", mode, tuiIdle),
		setup: func(ctx context.Context, root string) (func(context.Context, program, workspace) (sample, error), string, string, func(), error) {
			srv := openaitest.NewServer()
			run := func(ctx context.Context, p program, w workspace) (sample, error) {
				pane, err := startPane(ctx, p, w)
				if err != nil {
					return sample{}, err
				}
				defer pane.close()
				if err := pane.settle(ctx); err != nil {
					return sample{}, err
				}
				before, err := pane.cpu()
				if err != nil {
					return sample{}, err
				}
				select {
				case <-time.After(tuiIdle): // the measured interval itself
				case <-ctx.Done():
					return sample{}, ctx.Err()
				}
				after, err := pane.cpu()
				if err != nil {
					return sample{}, err
				}
				st, err := procMemory(pane.pid)
				if err != nil {
					return sample{}, err
				}
				return sample{wall: tuiIdle, cpu: after - before, rss: st.rss, anon: st.anon}, nil
			}
			return run, modelsJSON(srv.URL), tuiSettings(mode), srv.Close, nil
		},
	}
}

const tuiIdle = 5 * time.Second

func tuiSettings(mode string) string { return `{"tuiMode":"` + mode + `","quietStartup":true}` }

// tuiBurst is one answer of n one-character deltas: prose with paragraph breaks, ending in tuiEnd.
func tuiBurst(n int) []byte {
	const prose = "The quick brown fox jumps over the lazy dog while the terminal keeps up with every delta. "
	var text strings.Builder
	for text.Len() < n {
		text.WriteString(prose)
		if text.Len()%700 < len(prose) {
			text.WriteString("\n\n")
		}
	}
	s := text.String()[:n-len(tuiEnd)-1] + " " + tuiEnd
	c := openaitest.NewChunks("test-model")
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

var paneSeq atomic.Int64

// pane is a program running in its own tmux server's 120x40 pane.
type pane struct {
	socket string
	pid    int
}

// startPane starts p in a new pane and waits for its editor (the footer names the model).
func startPane(ctx context.Context, p program, w workspace) (*pane, error) {
	if _, err := exec.LookPath("tmux"); err != nil {
		return nil, fmt.Errorf("the TUI targets need tmux: %w", err)
	}
	pn := &pane{socket: fmt.Sprintf("bench-vs-pi-%d-%d", os.Getpid(), paneSeq.Add(1))}
	args := []string{"new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", "-c", w.proj, "env"}
	for _, kv := range p.env {
		if !strings.HasPrefix(kv, "TERM=") { // tmux sets the pane's
			args = append(args, kv)
		}
	}
	args = append(append(args, p.argv...), modelArgs...)
	if err := pn.tmux(args...); err != nil {
		return nil, err
	}
	out, err := exec.CommandContext(ctx, "tmux", "-L", pn.socket, "display-message", "-p", "-t", "bench", "#{pane_pid}").Output()
	if err == nil {
		pn.pid, err = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	if err != nil {
		pn.close()
		return nil, fmt.Errorf("%s: the pane's process: %w", p.name, err)
	}
	if err := pn.waitScreen(ctx, "test-model", 2*time.Minute); err != nil { // the start-up: no lower bound to report
		pn.close()
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	return pn, nil
}

func (pn *pane) tmux(args ...string) error {
	out, err := exec.Command("tmux", append([]string{"-L", pn.socket}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("tmux %s: %w: %s", args[0], err, out)
	}
	return nil
}

func (pn *pane) close() { _ = exec.Command("tmux", "-L", pn.socket, "kill-server").Run() }

func (pn *pane) screen() (string, error) {
	out, err := exec.Command("tmux", "-L", pn.socket, "capture-pane", "-p", "-t", "bench").Output()
	return string(out), err
}

// waitScreen polls the screen until it shows want.
func (pn *pane) waitScreen(ctx context.Context, want string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		s, err := pn.screen()
		if err != nil {
			return fmt.Errorf("capture-pane: %w", err)
		}
		if strings.Contains(s, want) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%q %w (%s); the screen:\n%s", want, errNotOnScreen, limit, s)
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// settle waits until the program has used no CPU for half a second (at most a minute).
func (pn *pane) settle(ctx context.Context) error {
	last, err := pn.cpu()
	if err != nil {
		return err
	}
	quiet := 0
	for deadline := time.Now().Add(time.Minute); quiet < 5 && time.Now().Before(deadline); {
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
		now, err := pn.cpu()
		if err != nil {
			return err
		}
		if now == last {
			quiet++
		} else {
			quiet = 0
		}
		last = now
	}
	return nil
}

// cpu is the program's user + system time (/proc/PID/stat, in clock ticks of 10 ms).
func (pn *pane) cpu() (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pn.pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name (which may hold spaces) start after the last ')'.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pn.pid)
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}
