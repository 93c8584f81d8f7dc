package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// pi16Workspace is the world scripts/interop gives each program (compare/workspace.go), in which the
// runs of testdata/pi16 were recorded: the demo project in root/proj with three files whose times are
// fixed (so `ls -la` prints the same), root/agent as PI_CODING_AGENT_DIR with a models.json naming the
// scripted server as provider "mock", root/home as HOME.
type pi16Workspace struct {
	t                       *testing.T
	root, proj, agent, home string
	srv                     *openaitest.Server
	answers                 int
	stdout, stderr          string // of the last run
}

func newPi16Workspace(t *testing.T) *pi16Workspace {
	t.Helper()
	root := t.TempDir()
	w := &pi16Workspace{t: t, root: root, proj: filepath.Join(root, "proj"), agent: filepath.Join(root, "agent"),
		home: filepath.Join(root, "home"), srv: openaitest.Start(t)}
	files := map[string]string{
		"proj/README.md":   "# Demo project\n\nA tiny project for the tool-call scenario.\n",
		"proj/notes.txt":   "some notes\nmore notes\n",
		"proj/src/main.go": "package main\n\nfunc main() {}\n",
		"agent/models.json": fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"api":"openai-completions","apiKey":"mock-key","models":[`+
			`{"id":"mock-model","cost":{"input":3,"output":15,"cacheRead":0.3,"cacheWrite":3.75}},`+
			`{"id":"mock-reasoner","name":"Mock Reasoner","reasoning":true,"contextWindow":64000,"maxTokens":8000},`+
			`{"id":"mock-vision","input":["text","image"]},`+
			`{"id":"mock-small","contextWindow":20000,"maxTokens":4000}]}}}`, w.srv.URL),
	}
	for rel, content := range files {
		w.write(rel, content)
	}
	if err := os.MkdirAll(w.home, 0o755); err != nil {
		t.Fatal(err)
	}
	fixed := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	for _, p := range []string{"proj/README.md", "proj/notes.txt", "proj/src/main.go", "proj/src", "proj", "."} {
		if err := os.Chtimes(filepath.Join(root, p), fixed, fixed); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// write creates a file under the workspace root.
func (w *pi16Workspace) write(rel, content string) {
	w.t.Helper()
	p := filepath.Join(w.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// script queues answers as the interop scenarios build them (ids chatcmpl-mock00000n).
func (w *pi16Workspace) script(specs ...scenario.Spec) {
	w.t.Helper()
	for _, sp := range specs {
		w.answers++
		resp, _, err := sp.Build("mock-model", w.answers)
		if err != nil {
			w.t.Fatal(err)
		}
		w.srv.Enqueue(resp)
	}
}

// exec starts pi-go in the project with the interop's environment, keeps its output in stdout and
// stderr and returns its exit code.
func (w *pi16Workspace) exec(args ...string) int {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, piBinary, args...)
	cmd.Dir = w.proj
	cmd.Env = []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + w.agent,
		"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "TERM=dumb"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	w.stdout, w.stderr = out.String(), errb.String()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		w.t.Fatalf("running pi: %v", err)
	}
	return 0
}

// run is exec for a run that must succeed; it returns stdout.
func (w *pi16Workspace) run(args ...string) string {
	w.t.Helper()
	if code := w.exec(args...); code != 0 {
		w.t.Fatalf("pi %s: exit %d: %s", strings.Join(args, " "), code, w.stderr)
	}
	return w.stdout
}

// sessionFile is the one session file the runs wrote.
func (w *pi16Workspace) sessionFile() string {
	w.t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.agent, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		w.t.Fatalf("session files %v, want one", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		w.t.Fatal(err)
	}
	return string(data)
}

// requests are the bodies of the requests the scripted server received.
func (w *pi16Workspace) requests() []string {
	var out []string
	for _, r := range w.srv.Requests() {
		out = append(out, string(r.Body))
	}
	return out
}

// readPi16 reads a file of a pi 1.6.0 fixture set (testdata/pi16).
func readPi16(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pi16", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
