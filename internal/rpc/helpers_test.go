package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/pi-go/pi-go/internal/resources"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openai"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/internal/session"
)

// waitTimeout bounds every wait for an event; tests never sleep, they wait for what they expect.
const waitTimeout = 15 * time.Second

// record is one line the server wrote.
type record struct {
	raw string
	obj map[string]any
}

func (r record) str(key string) string {
	s, _ := r.obj[key].(string)
	return s
}

func (r record) isResponse(id string) bool {
	return r.obj["type"] == "response" && r.obj["id"] == id
}

// client drives Serve over pipes as an RPC client would.
type client struct {
	t      *testing.T
	w      io.WriteCloser
	mu     sync.Mutex
	recs   []record
	bump   chan struct{} // closed and replaced whenever a record arrives
	done   chan error    // Serve's result
	outEOF chan struct{}
	nextID int
}

// startClient runs Serve on sess with pipes for stdin and stdout.
func startClient(t *testing.T, sess *harness.Session, opts ServeOptions) *client {
	t.Helper()
	if opts.Stderr == nil {
		opts.Stderr = &testLog{t: t}
	}
	return startServing(t, func(in io.Reader, out io.Writer) error {
		return Serve(context.Background(), sess, in, out, opts)
	})
}

// startServer is startClient for a server the test built itself (to reach its internals).
func startServer(t *testing.T, sess *harness.Session, opts ServeOptions) (*client, *server) {
	t.Helper()
	if opts.Stderr == nil {
		opts.Stderr = &testLog{t: t}
	}
	outR, outW := io.Pipe()
	s := newServer(context.Background(), sess, outW, opts)
	c := startServingOn(t, outR, outW, func(in io.Reader, _ io.Writer) error { return s.serve(context.Background(), in) })
	return c, s
}

func startServing(t *testing.T, serve func(in io.Reader, out io.Writer) error) *client {
	t.Helper()
	outR, outW := io.Pipe()
	return startServingOn(t, outR, outW, serve)
}

func startServingOn(t *testing.T, outR *io.PipeReader, outW *io.PipeWriter, serve func(in io.Reader, out io.Writer) error) *client {
	t.Helper()
	inR, inW := io.Pipe()
	c := &client{t: t, w: inW, bump: make(chan struct{}), done: make(chan error, 1), outEOF: make(chan struct{})}
	go func() {
		err := serve(inR, outW)
		outW.Close()
		c.done <- err
	}()
	go c.readOutput(outR)
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(waitTimeout):
			t.Error("Serve did not return after stdin closed")
		}
	})
	return c
}

// readOutput checks that every line is exactly one JSON object and records it.
func (c *client) readOutput(r io.Reader) {
	defer close(c.outEOF)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if line != "" {
				c.t.Errorf("output ended with a partial line %q", line)
			}
			return
		}
		line = strings.TrimSuffix(line, "\n")
		var obj map[string]any
		dec := json.NewDecoder(strings.NewReader(line))
		if err := dec.Decode(&obj); err != nil || dec.More() {
			c.t.Errorf("output line is not one JSON object (%v): %.300q", err, line)
			continue
		}
		c.mu.Lock()
		c.recs = append(c.recs, record{raw: line, obj: obj})
		close(c.bump)
		c.bump = make(chan struct{})
		c.mu.Unlock()
	}
}

type testLog struct {
	t  *testing.T
	mu sync.Mutex
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Logf("stderr: %s", bytes.TrimRight(p, "\n"))
	return len(p), nil
}

// sendLine writes raw bytes followed by LF.
func (c *client) sendLine(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("writing a command: %v", err)
	}
}

// send writes a command with a fresh id and returns the id.
func (c *client) send(cmd map[string]any) string {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprintf("req-%d", c.nextID)
	c.mu.Unlock()
	cmd["id"] = id
	data, err := json.Marshal(cmd)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendLine(string(data))
	return id
}

// call sends a command and waits for its response.
func (c *client) call(cmd map[string]any) record {
	c.t.Helper()
	id := c.send(cmd)
	return c.response(id)
}

// ok calls a command that must succeed and returns its data.
func (c *client) ok(cmd map[string]any) any {
	c.t.Helper()
	r := c.call(cmd)
	if r.obj["success"] != true {
		c.t.Fatalf("%v failed: %s", cmd["type"], r.raw)
	}
	return r.obj["data"]
}

func (c *client) response(id string) record {
	c.t.Helper()
	_, r := c.waitFor(0, func(r record) bool { return r.isResponse(id) })
	return r
}

// waitFor waits for the first record at or after index from that matches, and returns its index.
func (c *client) waitFor(from int, match func(record) bool) (int, record) {
	c.t.Helper()
	deadline := time.After(waitTimeout)
	for {
		c.mu.Lock()
		for i := from; i < len(c.recs); i++ {
			if match(c.recs[i]) {
				r := c.recs[i]
				c.mu.Unlock()
				return i, r
			}
		}
		from = max(from, len(c.recs))
		bump := c.bump
		c.mu.Unlock()
		select {
		case <-bump:
		case <-c.outEOF:
			c.t.Fatalf("output ended before the record was seen; got:\n%s", c.summary())
		case <-deadline:
			c.t.Fatalf("record not seen; got:\n%s", c.summary())
		}
	}
}

func (c *client) waitEvent(from int, typ string) (int, record) {
	c.t.Helper()
	return c.waitFor(from, func(r record) bool { return r.obj["type"] == typ })
}

func (c *client) records() []record {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]record(nil), c.recs...)
}

func (c *client) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.recs)
}

// summary lists the records by kind, for failure messages.
func (c *client) summary() string {
	var b strings.Builder
	for i, r := range c.records() {
		fmt.Fprintf(&b, "%3d %s\n", i, describe(r))
	}
	return b.String()
}

// describe names a record compactly: its type, the role of its message, its delta kind, its id.
func describe(r record) string {
	s := r.str("type")
	if s == "response" {
		return fmt.Sprintf("response %v %v success=%v %v", r.obj["id"], r.obj["command"], r.obj["success"], r.obj["error"])
	}
	if m, ok := r.obj["message"].(map[string]any); ok {
		s += "(" + fmt.Sprint(m["role"]) + ")"
	} else if s == "message_update" {
		s += "(assistant)" // pi 1.6 updates only answers, and no longer writes the message
	}
	if ae, ok := r.obj["assistantMessageEvent"].(map[string]any); ok {
		s += " " + fmt.Sprint(ae["type"])
	}
	return s
}

// closeInput ends stdin and waits for Serve to return.
func (c *client) closeInput() error {
	c.t.Helper()
	c.w.Close()
	select {
	case err := <-c.done:
		c.done <- err
		return err
	case <-time.After(waitTimeout):
		c.t.Fatal("Serve did not return after stdin closed")
		return nil
	}
}

// fixture is a harness session talking to a scripted OpenAI-compatible server.
type fixture struct {
	srv      *openaitest.Server
	sess     *harness.Session
	cwd      string
	agentDir string
	sessDir  string
}

var mockModel = provider.Model{ID: "mock-model", Name: "Mock", API: provider.APIOpenAICompletions, Provider: "mock",
	Input: []string{"text"}, ContextWindow: 1000000, MaxTokens: 32000,
	Compat: &provider.Compat{SupportsDeveloperRole: provider.Ptr(false), SupportsReasoningEffort: provider.Ptr(false)}}

var thinkerModel = provider.Model{ID: "thinker", Name: "Thinker", API: provider.APIOpenAICompletions, Provider: "mock",
	Reasoning: true, Input: []string{"text", "image"}, ContextWindow: 200000, MaxTokens: 8000}

type fixtureOptions struct {
	inMemory bool
	tools    []string
	// cwd and agentDir replace the temp directories; loadResources is the session's LoadResources.
	cwd, agentDir string
	loadResources func() *resources.Set
	// checkpoints turns per-turn snapshots on (a store under agentDir).
	checkpoints bool
}

// writeCompactableSettings makes compaction keep only the newest 8 tokens verbatim, so that a
// compaction of the tests' short conversations has something to summarise.
func writeCompactableSettings(t *testing.T, agentDir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(`{"compaction":{"keepRecentTokens":8}}`), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newFixture(t *testing.T, fo fixtureOptions) *fixture {
	t.Helper()
	f := &fixture{srv: openaitest.Start(t), cwd: fo.cwd, agentDir: fo.agentDir}
	if f.cwd == "" {
		f.cwd = t.TempDir()
	}
	if f.agentDir == "" {
		f.agentDir = t.TempDir()
	}
	writeCompactableSettings(t, f.agentDir)
	f.sessDir = filepath.Join(f.agentDir, "sessions")
	models := []provider.Model{mockModel, thinkerModel}
	for i := range models {
		models[i].BaseURL = f.srv.URL
	}
	registry := provider.NewRegistry(models, nil)
	var store *session.Manager
	if fo.inMemory {
		store = session.InMemory(f.cwd)
	} else {
		store = session.Create(f.cwd, f.sessDir)
	}
	names := fo.tools
	if names == nil {
		names = []string{"read", "bash"}
	}
	tools, warnings := harness.BuildTools(names, harness.ToolOptions{Cwd: f.cwd})
	if len(warnings) > 0 {
		t.Fatal(warnings)
	}
	stream := openai.New(openai.Config{HTTPClient: f.srv.Client()}).Stream
	sess, err := harness.New(withCheckpoints(fo, f, harness.Options{
		Cwd:           f.cwd,
		AgentDir:      f.agentDir,
		Settings:      config.LoadSettings(f.agentDir, f.cwd),
		Store:         store,
		Stream:        stream,
		Models:        registry,
		Model:         registry.Find("mock", "mock-model"),
		Tools:         tools,
		LoadResources: fo.loadResources,
		OnWarning:     func(err error) { t.Logf("harness warning: %v", err) },
		Sleep:         func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	f.sess = sess
	return f
}

// fileEntries reads a session file's entries.
func fileEntries(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad session line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// fileMessages returns the messages of a session file's message entries, in file order.
func fileMessages(t *testing.T, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range fileEntries(t, path) {
		if e["type"] == "message" {
			out = append(out, e["message"].(map[string]any))
		}
	}
	return out
}

// slowText is a streamed answer whose chunks are released one at a time through the returned gate.
func slowText(pieces ...string) (openaitest.Response, chan struct{}) {
	resp := openaitest.TextReply("mock-model", pieces...)
	gate := make(chan struct{})
	resp.Gate = gate
	return resp, gate
}

// release lets n events of a gated response through.
func release(t *testing.T, gate chan struct{}, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		select {
		case gate <- struct{}{}:
		case <-time.After(waitTimeout):
			t.Fatalf("the server did not take event %d of %d", i+1, n)
		}
	}
}

func readFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	return string(data), err
}
