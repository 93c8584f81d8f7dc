package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/scripts/interop/fixture"
	"github.com/pi-go/pi-go/scripts/interop/scenario"
)

// pi16EventsWorkspace is the world scripts/interop gives each program (compare/workspace.go): a project
// with three files whose times are fixed (so `ls -la` prints the same), an agent dir whose
// models.json names the scripted server as provider "mock", and a HOME of its own.
type pi16EventsWorkspace struct {
	t                     *testing.T
	root, proj, agent     string
	home                  string
	srv                   *openaitest.Server
	answers               int
	stdout, stderr, files string
}

func newPi16EventsWorkspace(t *testing.T) *pi16EventsWorkspace {
	t.Helper()
	root := t.TempDir()
	w := &pi16EventsWorkspace{t: t, root: root, proj: filepath.Join(root, "proj"), agent: filepath.Join(root, "agent"),
		home: filepath.Join(root, "home"), srv: openaitest.Start(t)}
	for _, d := range []string{w.agent, w.home, filepath.Join(w.proj, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"README.md":   "# Demo project\n\nA tiny project for the tool-call scenario.\n",
		"notes.txt":   "some notes\nmore notes\n",
		"src/main.go": "package main\n\nfunc main() {}\n",
	}
	for rel, content := range files {
		if err := os.WriteFile(filepath.Join(w.proj, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fixed := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	for _, p := range []string{"README.md", "notes.txt", "src/main.go", "src", "."} {
		if err := os.Chtimes(filepath.Join(w.proj, p), fixed, fixed); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(root, fixed, fixed); err != nil {
		t.Fatal(err)
	}
	models := fmt.Sprintf(`{"providers":{"mock":{"baseUrl":%q,"api":"openai-completions","apiKey":"mock-key","models":[`+
		`{"id":"mock-model","cost":{"input":3,"output":15,"cacheRead":0.3,"cacheWrite":3.75}},`+
		`{"id":"mock-reasoner","name":"Mock Reasoner","reasoning":true,"contextWindow":64000,"maxTokens":8000},`+
		`{"id":"mock-vision","input":["text","image"]},`+
		`{"id":"mock-small","contextWindow":20000,"maxTokens":4000}]}}}`, w.srv.URL)
	if err := os.WriteFile(filepath.Join(w.agent, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// script queues answers as the interop scenarios build them (ids chatcmpl-mock00000n).
func (w *pi16EventsWorkspace) script(specs ...scenario.Spec) {
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

// run starts pi-go in the project with the interop's environment and returns its exit code.
func (w *pi16EventsWorkspace) run(args ...string) int {
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

// sessionFile is the one session file the run wrote.
func (w *pi16EventsWorkspace) sessionFile() string {
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

// readPi16 reads a file of a pi 1.6.0 fixture set (testdata/pi16).
func readPi16(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pi16", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

var (
	// Times are masked (msTimeRe, isoTimeRe of pi16_transcript_e2e_test.go): pi's own re-recordings
	// differ in the order of times within one millisecond.
	// The usage of a message_update is the streaming message's usage when pi dispatched the event,
	// zero or final depending on timing: only its presence is compared.
	updateUsageRe = regexp.MustCompile(`^\{"type":"message_update","usage":\{.*?\}\},"assistantMessageEvent"`)
	entryIDRe     = regexp.MustCompile(`"(id|parentId)":"[0-9a-f]{8}"`)
)

func maskEventTimes(line string) string {
	line = isoTimeRe.ReplaceAllString(line, `"timestamp":"<iso>"`)
	line = msTimeRe.ReplaceAllString(line, `"timestamp":"<ms>"`)
	return updateUsageRe.ReplaceAllString(line, `{"type":"message_update","usage":"<usage>","assistantMessageEvent"`)
}

// withoutSystemMessages drops role:"system" messages (the system prompt and tool declarations pi 1.6
// keeps in the transcript) from events and session entries: pi16_transcript_e2e_test.go compares them,
// with pi's <docs> section set aside. Entry ids are masked, as the dropped entries shift them.
func withoutSystemMessages(t *testing.T, lines []string) []string {
	t.Helper()
	var out []string
	for _, line := range lines {
		var rec struct {
			Type     string            `json:"type"`
			Message  json.RawMessage   `json:"message"`
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if bytes.HasPrefix(rec.Message, []byte(`{"role":"system"`)) {
			continue
		}
		for _, m := range rec.Messages {
			if bytes.HasPrefix(m, []byte(`{"role":"system"`)) {
				line = strings.Replace(line, string(m)+",", "", 1)
			}
		}
		out = append(out, entryIDRe.ReplaceAllString(line, `"$1":"<id>"`))
	}
	return out
}

// compareLines reports every line of got that differs from want, event by event.
func compareLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	bad := 0
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g == w {
			continue
		}
		if bad++; bad > 5 {
			t.Errorf("%s: more lines differ", what)
			return
		}
		t.Errorf("%s: line %d differs:\n pi-go: %s\n pi:    %s", what, i+1, g, w)
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d lines, pi wrote %d", what, len(got), len(want))
	}
}

func splitLines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

// withoutMiddleUpdates keeps the first and the last of consecutive tool_execution_update events: how
// often a running command's output is reported depends on how it arrives (bash throttles to one
// update per 100 ms).
func withoutMiddleUpdates(lines []string) []string {
	isUpdate := func(i int) bool {
		return i >= 0 && i < len(lines) && strings.HasPrefix(lines[i], `{"type":"tool_execution_update"`)
	}
	var out []string
	for i, l := range lines {
		if isUpdate(i) && isUpdate(i-1) && isUpdate(i+1) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// TestJSONToolRunMatchesPi16 runs the tool run of testdata/pi16/json-tool-run (bash, read, bash, a
// text answer) in --mode json and compares pi-go's stdout with pi 1.6.0's, event by event and byte
// for byte (times masked), and its session file entry by entry.
func TestJSONToolRunMatchesPi16(t *testing.T) {
	w := newPi16EventsWorkspace(t)
	args := func(s string) json.RawMessage { return json.RawMessage(s) }
	w.script(
		scenario.Spec{Text: "Let me look around.", ToolCalls: []scenario.ToolCall{{Name: "bash", Arguments: args(`{"command":"ls -la"}`)}}},
		scenario.Spec{ToolCalls: []scenario.ToolCall{{Name: "read", Arguments: args(`{"path":"README.md"}`)}}},
		scenario.Spec{ToolCalls: []scenario.ToolCall{{Name: "bash", Arguments: args(`{"command":"wc -l notes.txt src/main.go"}`)}}},
		scenario.Spec{Text: "A tiny demo project: a README, notes and a Go main.", Pieces: 4},
	)
	if code := w.run("--mode", "json", "--model", "mock/mock-model", "summarise this project"); code != 0 {
		t.Fatalf("exit %d: %s", code, w.stderr)
	}
	stable := fixture.New(w.root, "").Stabilise([]string{w.stdout, w.sessionFile()})
	gotEvents, gotSession := splitLines(stable[0]), splitLines(stable[1])

	wantEventsText, wantSessionText := readPi16(t, "json-tool-run/events.jsonl"), readPi16(t, "json-tool-run/session.jsonl")
	// `ls -la` shows the owner, group and sizes of the machine that recorded: use this machine's.
	lsCmd := exec.Command("ls", "-la")
	lsCmd.Dir = w.proj
	ls, err := lsCmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	recorded := "total 20\ndrwxr-xr-x 3 root root 4096 Jan  2  2026 .\ndrwxr-xr-x 5 root root 4096 Jan  2  2026 ..\n" +
		"-rw-r--r-- 1 root root   59 Jan  2  2026 README.md\n-rw-r--r-- 1 root root   22 Jan  2  2026 notes.txt\n" +
		"drwxr-xr-x 2 root root 4096 Jan  2  2026 src\n"
	esc := func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }
	for _, text := range []*string{&wantEventsText, &wantSessionText} {
		if !strings.Contains(*text, esc(recorded)) {
			t.Fatal("the fixture's ls -la output is not where the test expects it")
		}
		*text = strings.ReplaceAll(*text, esc(recorded), esc(string(ls)))
	}
	wantEvents, wantSession := splitLines(wantEventsText), splitLines(wantSessionText)

	// System messages are compared in pi16_transcript_e2e_test.go (pi-go has no <docs> section).
	wantEvents, gotEvents = withoutSystemMessages(t, wantEvents), withoutSystemMessages(t, gotEvents)
	wantSession, gotSession = withoutSystemMessages(t, wantSession), withoutSystemMessages(t, gotSession)
	for i := range gotEvents {
		gotEvents[i] = maskEventTimes(gotEvents[i])
	}
	for i := range wantEvents {
		wantEvents[i] = maskEventTimes(wantEvents[i])
	}
	for i := range gotSession {
		gotSession[i] = maskEventTimes(gotSession[i])
	}
	for i := range wantSession {
		wantSession[i] = maskEventTimes(wantSession[i])
	}
	compareLines(t, "events", withoutMiddleUpdates(gotEvents), withoutMiddleUpdates(wantEvents))
	compareLines(t, "session", gotSession, wantSession)
}
