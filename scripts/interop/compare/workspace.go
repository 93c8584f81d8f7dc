package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// program is how to start one of the two agents: pi ("node …/cli.js") or pi-go (the built binary).
type program struct {
	name string
	argv []string
	// settles: the program ends a run with agent_settled after agent_end (pi >= 0.80), so an RPC
	// client waits for that event before its next command (probed at start, see probeSettles).
	settles bool
}

// probeSettles runs prog once in --mode json and reports whether its run ended with agent_settled.
func (c *checker) probeSettles(prog program) (bool, error) {
	w, err := newWorkspace(filepath.Join(c.out, "probe", prog.name), prog, "")
	if err != nil {
		return false, err
	}
	defer w.close()
	w.script(scenario.Spec{Text: "Hello."})
	res, err := w.run("--mode", "json", "--no-session", "--model", "mock/mock-model", "hi")
	if err != nil {
		return false, err
	}
	events, err := parseLines([]byte(res.stdout))
	if err != nil || res.code != 0 {
		return false, fmt.Errorf("--mode json exit %d, %v: %s", res.code, err, res.stderr)
	}
	for _, e := range events {
		if e.Str("type") == "agent_settled" {
			return true, nil
		}
	}
	return false, nil
}

// workspace is one program's world for one check: a project directory, its own agent dir and HOME,
// and its own scripted server. Both programs get identical workspaces under different roots.
type workspace struct {
	prog  program
	root  string
	proj  string
	agent string
	home  string
	srv   *openaitest.Server
	// extraEnv is added to the programs' environment.
	extraEnv []string

	mu    sync.Mutex
	n     int
	gates []chan struct{}
}

// fixedTime is the mtime of every project file, so `ls -la` prints the same in both workspaces.
var fixedTime = time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)

// newWorkspace creates root/{proj,agent,home} with the demo project, a scripted server and a
// models.json naming it as provider "mock" (models mock-model, mock-reasoner, mock-vision and mock-small). With proj set, that
// existing project directory is used instead of a new one.
func newWorkspace(root string, prog program, proj string) (*workspace, error) {
	w := &workspace{prog: prog, root: root, proj: proj, agent: filepath.Join(root, "agent"), home: filepath.Join(root, "home")}
	if w.proj == "" {
		w.proj = filepath.Join(root, "proj")
	}
	if err := os.RemoveAll(root); err != nil {
		return nil, err
	}
	for _, d := range []string{w.agent, w.home, filepath.Join(w.proj, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if proj == "" {
		files := map[string]string{
			"README.md":   "# Demo project\n\nA tiny project for the tool-call scenario.\n",
			"notes.txt":   "some notes\nmore notes\n",
			"src/main.go": "package main\n\nfunc main() {}\n",
		}
		for rel, content := range files {
			if err := os.WriteFile(filepath.Join(w.proj, rel), []byte(content), 0o644); err != nil {
				return nil, err
			}
		}
		for _, p := range []string{"README.md", "notes.txt", "src/main.go", "src", "."} {
			os.Chtimes(filepath.Join(w.proj, p), fixedTime, fixedTime)
		}
		os.Chtimes(root, fixedTime, fixedTime)
	}
	w.srv = openaitest.NewServer()
	models := fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"api":"openai-completions","apiKey":"mock-key","models":[`+
		`{"id":"mock-model","cost":{"input":3,"output":15,"cacheRead":0.3,"cacheWrite":3.75}},`+
		`{"id":"mock-reasoner","name":"Mock Reasoner","reasoning":true,"contextWindow":64000,"maxTokens":8000},`+
		`{"id":"mock-vision","input":["text","image"]},`+
		`{"id":"mock-small","contextWindow":20000,"maxTokens":4000}]}}}`, w.srv.URL)
	if err := os.WriteFile(filepath.Join(w.agent, "models.json"), []byte(models), 0o644); err != nil {
		w.srv.Close()
		return nil, err
	}
	return w, nil
}

func (w *workspace) close() { w.srv.Close() }

// script queues answers on the workspace's server.
func (w *workspace) script(specs ...scenario.Spec) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, sp := range specs {
		w.n++
		resp, gate, err := sp.Build("mock-model", w.n)
		if err != nil {
			panic(err) // the scenarios are written in this program
		}
		if gate != nil {
			w.gates = append(w.gates, gate)
		}
		w.srv.Enqueue(resp)
	}
}

// release lets the oldest held answer finish.
func (w *workspace) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.gates) > 0 {
		close(w.gates[0])
		w.gates = w.gates[1:]
	}
}

// headers returns the recorded requests' headers.
func (w *workspace) headers() []http.Header {
	var out []http.Header
	for _, r := range w.srv.Requests() {
		out = append(out, r.Header)
	}
	return out
}

// requests returns the recorded request bodies, parsed, and saves them as root/requests/NNN.json.
func (w *workspace) requests() []*Obj {
	var out []*Obj
	dir := filepath.Join(w.root, "requests")
	os.MkdirAll(dir, 0o755)
	for i, r := range w.srv.Requests() {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d.json", i+1)), r.Body, 0o644)
		v, err := parseJSON(r.Body)
		if o, ok := v.(*Obj); ok && err == nil {
			out = append(out, o)
		}
	}
	return out
}

func (w *workspace) env() []string {
	return append([]string{
		"HOME=" + w.home,
		"PATH=" + os.Getenv("PATH"),
		"PI_CODING_AGENT_DIR=" + w.agent,
		"PI_OFFLINE=1",
		"PI_SKIP_VERSION_CHECK=1",
		"PI_TELEMETRY=0",
		"TERM=dumb",
	}, w.extraEnv...)
}

type result struct {
	stdout, stderr string
	code           int
}

// run starts the program in the project directory with stdin from /dev/null and waits (60 s limit).
func (w *workspace) run(args ...string) (result, error) { return w.runStdin("", args...) }

// runStdin is run with stdin piped from the given text ("" is /dev/null).
func (w *workspace) runStdin(stdin string, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	argv := append(append([]string(nil), w.prog.argv...), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = w.proj
	cmd.Env = w.env()
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.code = ee.ExitCode()
		err = nil
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("%s %s: timed out", w.prog.name, strings.Join(args, " "))
	}
	return res, err
}

// sessionFiles lists every *.jsonl under the agent dir's sessions folder.
func (w *workspace) sessionFiles() []string {
	var out []string
	filepath.WalkDir(filepath.Join(w.agent, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// record is one line of an RPC transcript.
type record struct {
	In  bool
	Msg *Obj
	Raw string
}

// rpcProc is a program running in --mode rpc.
type rpcProc struct {
	w      *workspace
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan record
	stderr bytes.Buffer
	log    []record
	nextID int
}

func (w *workspace) startRPC(args ...string) (*rpcProc, error) {
	argv := append(append([]string(nil), w.prog.argv...), append([]string{"--mode", "rpc"}, args...)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = w.proj
	cmd.Env = w.env()
	p := &rpcProc{w: w, cmd: cmd, lines: make(chan record, 4096)}
	cmd.Stderr = &p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.stdin = stdin
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := sc.Text()
			v, err := parseJSON([]byte(line))
			o, _ := v.(*Obj)
			if err != nil || o == nil {
				o = &Obj{M: map[string]any{}}
				o.Set("type", "<unparsable stdout line>")
				o.Set("line", line)
			}
			p.lines <- record{Msg: o, Raw: line}
		}
	}()
	return p, nil
}

// send writes one command; an id "c<N>" is added unless the command has one.
func (p *rpcProc) send(cmd map[string]any) string {
	id, _ := cmd["id"].(string)
	if id == "" {
		p.nextID++
		id = fmt.Sprintf("c%d", p.nextID)
		cmd["id"] = id
	}
	b, _ := json.Marshal(cmd)
	v, _ := parseJSON(b)
	p.log = append(p.log, record{In: true, Msg: v.(*Obj), Raw: string(b)})
	p.stdin.Write(append(b, '\n'))
	return id
}

// sendRaw writes one line as is (e.g. one that is no JSON), recorded in the transcript.
func (p *rpcProc) sendRaw(line string) {
	p.log = append(p.log, record{In: true, Raw: line})
	p.stdin.Write([]byte(line + "\n"))
}

// until reads output lines (recording each) until one satisfies match.
func (p *rpcProc) until(what string, match func(*Obj) bool) (*Obj, error) {
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case r, ok := <-p.lines:
			if !ok {
				return nil, fmt.Errorf("%s: output ended while waiting for %s; stderr: %s", p.w.prog.name, what, p.stderr.String())
			}
			p.log = append(p.log, r)
			if match(r.Msg) {
				return r.Msg, nil
			}
		case <-timeout.C:
			return nil, fmt.Errorf("%s: timed out waiting for %s", p.w.prog.name, what)
		}
	}
}

// call sends a command and waits for its response: the one with its id, or one without an id for
// the same command (pi 0.73.1 answers an unknown command so, and so does pi-go today).
func (p *rpcProc) call(cmd map[string]any) (*Obj, error) {
	id := p.send(cmd)
	typ, _ := cmd["type"].(string)
	return p.until("response to "+id, func(o *Obj) bool {
		return o.Str("type") == "response" && (o.Str("id") == id || o.Get("id") == nil && o.Str("command") == typ)
	})
}

// idle waits until the run started last is over: agent_settled for a program that sends it (pi 1.6:
// retries, compaction and queued messages are done), else agent_end.
func (p *rpcProc) idle() error {
	_, err := p.event(p.idleType())
	return err
}

// idleType is the event idle waits for.
func (p *rpcProc) idleType() string {
	if p.w.prog.settles {
		return "agent_settled"
	}
	return "agent_end"
}

// event waits for the next event of the given type.
func (p *rpcProc) event(typ string) (*Obj, error) {
	return p.until(typ, func(o *Obj) bool { return o.Str("type") == typ })
}

// finish closes stdin, drains the output and waits for the process.
func (p *rpcProc) finish() (int, error) {
	p.stdin.Close()
	for r := range p.lines {
		p.log = append(p.log, r)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), nil
		}
		return 0, err
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		<-done
		return -1, fmt.Errorf("%s did not exit after stdin closed", p.w.prog.name)
	}
}

// save writes the transcript so far to root/rpc-transcript.txt and stderr to root/rpc-stderr.txt.
func (p *rpcProc) save() {
	var lines []string
	for _, r := range p.log {
		dir := "out"
		if r.In {
			dir = "in "
		}
		lines = append(lines, dir+" "+r.Raw)
	}
	writeTranscript(filepath.Join(p.w.root, "rpc-transcript.txt"), lines)
	os.WriteFile(filepath.Join(p.w.root, "rpc-stderr.txt"), p.stderr.Bytes(), 0o644)
}
