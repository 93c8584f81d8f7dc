package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// longRun is the result of one long scripted RPC session of pi-go.
type longRun struct {
	turns       int
	rss         []int64 // VmRSS after each turn's agent_end, bytes
	anon, file  []int64 // its anonymous part (the Go heap, stacks, runtime) and file part (the binary's pages)
	threads     []int64 // the process's threads then
	hwm         int64   // VmHWM at the end
	sessionSize int64
	cpu         time.Duration
	wall        time.Duration
}

// runLongSession drives one pi-go RPC process through turns prompts, each answered by a read tool call
// and then a short text, with a steering message sent while every tenth run is active (its own extra
// answer). The session is saved, as an interactive session is. The process's resident set is read
// from /proc after each run ends.
func runLongSession(ctx context.Context, root, pigo string, turns int) (longRun, error) {
	srv := openaitest.NewServer()
	defer srv.Close()
	srv.SetResponder(func(r *openaitest.Request) openaitest.Response {
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"` // a string, or text parts

			} `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Messages) == 0 {
			return openaitest.ErrorResponse(400, "bench-vs-pi: unreadable request")
		}
		last := body.Messages[len(body.Messages)-1]
		if last.Role == "user" && bytes.Contains(last.Content, []byte("turn ")) {
			return openaitest.ToolCallReply("test-model", "Reading it.",
				openaitest.ToolCallSpec{ID: "call_" + strconv.Itoa(len(body.Messages)), Name: "read", Arguments: `{"path":"hello.txt"}`})
		}
		return openaitest.TextReply("test-model", "The file ", "says hello.")
	})
	w, err := newWorkspace(root)
	if err != nil {
		return longRun{}, err
	}
	if err := os.WriteFile(filepath.Join(w.proj, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		return longRun{}, err
	}
	env, err := w.env("pi-go", modelsJSON(srv.URL), "")
	if err != nil {
		return longRun{}, err
	}
	// The Go runtime's settings reach pi-go, so that their effect on its memory can be measured
	// (GOGC=50, GOMEMLIMIT=24MiB).
	for _, k := range []string{"GOGC", "GOMEMLIMIT", "GODEBUG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	sessionDir := filepath.Join(root, "sessions")
	cmd := exec.CommandContext(ctx, pigo, append(modelArgs, "--mode", "rpc", "--session-dir", sessionDir)...)
	cmd.Dir, cmd.Env = w.proj, env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return longRun{}, err
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		return longRun{}, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return longRun{}, err
	}
	stdout := bufio.NewReaderSize(stdoutPipe, 1<<20)
	res := longRun{turns: turns}
	send := func(v string) error { _, err := io.WriteString(stdin, v+"\n"); return err }
	fail := func(err error) (longRun, error) {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
		return longRun{}, fmt.Errorf("turn %d: %w\nstderr: %s", len(res.rss)+1, err, tail(stderr.Bytes()))
	}
	for t := 1; t <= turns; t++ {
		// A steer that arrives after a run's last request starts a run of its own, which may still be
		// going when the next prompt is sent: that prompt then joins it as a follow-up.
		if err := send(fmt.Sprintf(`{"type":"prompt","message":"turn %d: what does hello.txt say?","streamingBehavior":"followUp"}`, t)); err != nil {
			return fail(err)
		}
		if t%10 == 0 {
			// Sent once the run has started (the prompt's response), so it steers that run.
			if err := waitEvent(stdout, "response"); err != nil {
				return fail(err)
			}
			if err := send(fmt.Sprintf(`{"type":"steer","message":"steering %d: keep it short"}`, t)); err != nil {
				return fail(err)
			}
		}
		if err := waitEvent(stdout, "agent_end"); err != nil {
			return fail(err)
		}
		m, err := procMemory(cmd.Process.Pid)
		if err != nil {
			return fail(err)
		}
		res.rss = append(res.rss, m.rss)
		res.anon = append(res.anon, m.anon)
		res.file = append(res.file, m.file)
		res.threads = append(res.threads, m.threads)
	}
	m, err := procMemory(cmd.Process.Pid)
	if err != nil {
		return fail(err)
	}
	res.hwm = m.hwm
	stdin.Close()
	io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		return longRun{}, fmt.Errorf("pi-go: %w\nstderr: %s", err, tail(stderr.Bytes()))
	}
	res.wall = time.Since(start)
	res.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	files, _ := filepath.Glob(filepath.Join(sessionDir, "*.jsonl"))
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			res.sessionSize += st.Size()
		}
	}
	// Two requests a turn (the tool call, the answer). A steer changes that by one: it is taken with
	// the tool's result (two), before the first request (one: no tool call), or after the answer
	// (three), depending on when it arrives.
	if got := len(srv.Requests()); got < 2*turns-turns/10 || got > 2*turns+turns/10 {
		return longRun{}, fmt.Errorf("the server got %d requests for %d turns, want about %d", got, turns, 2*turns)
	}
	return res, nil
}

// procStatus is what /proc/PID/status says of a process's memory (bytes) and threads.
type procStatus struct {
	rss, anon, file, hwm, threads int64
}

// procMemory reads a process's /proc/PID/status.
func procMemory(pid int) (procStatus, error) {
	var st procStatus
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return st, err
	}
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			st.rss = n * 1024
		case "RssAnon:":
			st.anon = n * 1024
		case "RssFile:":
			st.file = n * 1024
		case "VmHWM:":
			st.hwm = n * 1024
		case "Threads:":
			st.threads = n
		}
	}
	return st, nil
}

// slope is the least-squares slope of ys over their indexes from..len(ys)-1, per index.
func slope(ys []int64, from int) float64 {
	var n, sx, sy, sxx, sxy float64
	for i := from; i < len(ys); i++ {
		x, y := float64(i), float64(ys[i])
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	if n < 2 {
		return 0
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

func printLongRun(w io.Writer, r longRun) {
	from := min(100, len(r.rss)-1)
	fmt.Fprintf(w, "\npi-go --mode rpc, one session of %d turns (a read tool call each, a steer every 10th):\n", r.turns)
	for _, t := range []int{1, 10, 100, 250, 500, 750, 1000} {
		if t <= len(r.rss) {
			fmt.Fprintf(w, "  RSS after turn %4d: %6.1f MB (anonymous %5.1f, file %5.1f; %d threads)\n",
				t, mb(r.rss[t-1]), mb(r.anon[t-1]), mb(r.file[t-1]), r.threads[t-1])
		}
	}
	fmt.Fprintf(w, "  RSS slope after turn %d: %.2f KB/turn (anonymous %.2f, file %.2f; the session file grew %.2f KB/turn); peak RSS %.1f MB\n",
		from, slope(r.rss, from)/1e3, slope(r.anon, from)/1e3, slope(r.file, from)/1e3,
		float64(r.sessionSize)/float64(r.turns)/1e3, mb(r.hwm))
	fmt.Fprintf(w, "  CPU %.2f s (%.2f ms/turn), wall %.2f s\n", r.cpu.Seconds(), r.cpu.Seconds()*1e3/float64(r.turns), r.wall.Seconds())
}
