package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/tools/shell"
)

// bashCall runs the tool with the given arguments and collects its updates.
func bashCall(t *testing.T, ctx context.Context, tool loop.Tool, args string) (loop.ToolResult, error, []loop.ToolResult) {
	t.Helper()
	var updates []loop.ToolResult
	res, err := tool.Execute(ctx, loop.ToolCall{ID: "c1", Name: "bash", Args: json.RawMessage(args)},
		func(r loop.ToolResult) { updates = append(updates, r) })
	return res, err, updates
}

func bashText(r loop.ToolResult) string { return provider.TextOf(r.Content, "\n") }

func bashJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := provider.MarshalJS(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func bashTestContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestBashDefinitionMatchesPi(t *testing.T) {
	def := NewBash(t.TempDir(), shell.Options{}).Definition()
	if def.Name != "bash" {
		t.Fatalf("name %q", def.Name)
	}
	want := "Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds."
	if def.Description != want {
		t.Fatalf("description %q", def.Description)
	}
	var schema map[string]any
	if err := json.Unmarshal(def.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
}

func TestBashResults(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "notexec")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cwd     string
		opts    shell.Options
		args    string
		want    string
		wantErr string
		// wantFailed is the text of a result that reports a failed command itself (pi 1.6: a
		// non-zero exit), with its structured content.
		wantFailed string
	}{
		{name: "echo", args: `{"command":"echo hello"}`, want: "hello\n"},
		{name: "no output", args: `{"command":"true"}`, want: "(no output)"},
		{name: "stderr merged", args: `{"command":"echo out; echo err >&2"}`, want: "out\nerr\n"},
		{name: "stdin is empty", args: `{"command":"cat; echo done"}`, want: "done\n"},
		{name: "exit code", args: `{"command":"exit 1"}`, wantFailed: "(no output)\n\nCommand exited with code 1"},
		{name: "exit code with output", args: `{"command":"echo oops; exit 3"}`, wantFailed: "oops\n\n\nCommand exited with code 3"},
		{name: "killed by a signal", args: `{"command":"echo x; kill -9 $$"}`, wantErr: "x\n\n\nCommand terminated without an exit code"},
		{name: "timeout", args: `{"command":"sleep 30","timeout":0.2}`, wantErr: "Command timed out after 0.2 seconds"},
		{name: "timeout with output", args: `{"command":"echo hi; sleep 30","timeout":0.3}`, wantErr: "hi\n\n\nCommand timed out after 0.3 seconds"},
		{name: "null timeout means none", args: `{"command":"echo ok","timeout":null}`, want: "ok\n"},
		{name: "longest timeout", args: `{"command":"echo ok","timeout":2147483.647}`, want: "ok\n"},
		// pi 0.73.1 ran these without a timeout; a huge one used to overflow the duration.
		{name: "zero timeout", args: `{"command":"echo ok","timeout":0}`,
			wantErr: "Invalid timeout: 0. It must be a positive number of seconds; leave it out for no timeout."},
		{name: "negative timeout", args: `{"command":"echo ok","timeout":-5}`,
			wantErr: "Invalid timeout: -5. It must be a positive number of seconds; leave it out for no timeout."},
		{name: "huge timeout", args: `{"command":"echo ok","timeout":1e12}`,
			wantErr: "Invalid timeout: 1000000000000. The maximum is 2147483.647 seconds; leave it out for no timeout."},
		{name: "timeout just over the limit", args: `{"command":"echo ok","timeout":2147483.648}`,
			wantErr: "Invalid timeout: 2147483.648. The maximum is 2147483.647 seconds; leave it out for no timeout."},
		{name: "missing cwd", cwd: filepath.Join(dir, "gone"), args: `{"command":"echo hi"}`,
			wantErr: "Working directory does not exist: " + filepath.Join(dir, "gone") + "\nCannot execute bash commands."},
		{name: "custom shell missing", opts: shell.Options{ShellPath: "/no/such/shell"}, args: `{"command":"echo hi"}`,
			wantErr: "Custom shell path not found: /no/such/shell"},
		{name: "custom shell not executable", opts: shell.Options{ShellPath: notExec}, args: `{"command":"echo hi"}`,
			wantErr: "spawn " + notExec + " EACCES"},
		{name: "custom shell", opts: shell.Options{ShellPath: "/bin/sh"}, args: `{"command":"echo from sh"}`, want: "from sh\n"},
		{name: "prefix", opts: shell.Options{CommandPrefix: "export TEST_VAR=hello"}, args: `{"command":"echo $TEST_VAR"}`, want: "hello\n"},
		{name: "prefix output first", opts: shell.Options{CommandPrefix: "echo prefix"}, args: `{"command":"echo cmd"}`, want: "prefix\ncmd\n"},
		{name: "environment", args: `{"command":"echo $PI_CODING_AGENT $PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT $SSH_ASKPASS_REQUIRE"}`, want: "true cat cat 0 never\n"},
		{name: "no editor", args: `{"command":"for e in \"$GIT_EDITOR\" \"$GIT_SEQUENCE_EDITOR\" \"$EDITOR\" \"$VISUAL\"; do sh -c \"$e \\\"\\$@\\\"\" \"$e\" file 2>&1; echo \"exit $?\"; done"}`,
			want: strings.Repeat("pi-go: no editor here (the command has no terminal): give the text on the command line, e.g. git commit -m \"...\", git merge --no-edit\nexit 1\n", 4)},
		{name: "a missing vi is not found", args: `{"command":"PATH=/nonexistent; vim x"}`,
			wantFailed: "environment: vim: command not found\n\n\nCommand exited with code 127"},
		{name: "prefix overrides the editor", opts: shell.Options{CommandPrefix: "export GIT_EDITOR=true"}, args: `{"command":"echo $GIT_EDITOR"}`, want: "true\n"},
		{name: "extra env wins", opts: shell.Options{Env: []string{"PAGER=less", "PIGO_X=1"}}, args: `{"command":"echo $PAGER $PIGO_X"}`, want: "less 1\n"},
		{name: "bin dir on PATH", opts: shell.Options{BinDir: "/opt/pi-bin"}, args: `{"command":"echo ${PATH%%:*}"}`, want: "/opt/pi-bin\n"},
		{name: "cwd", args: `{"command":"pwd"}`, want: dir + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cwd := tc.cwd
			if cwd == "" {
				cwd = dir
			}
			res, err, _ := bashCall(t, bashTestContext(t), NewBash(cwd, tc.opts), tc.args)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q (result %q)", err, tc.wantErr, bashText(res))
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			want := tc.want
			if tc.wantFailed != "" {
				want = tc.wantFailed
			}
			if got := bashText(res); got != want || res.IsError != (tc.wantFailed != "") {
				t.Fatalf("text %q (isError %v), want %q", got, res.IsError, want)
			}
			if res.Details != nil {
				t.Fatalf("details %v, want none", res.Details)
			}
			if sc, ok := res.StructuredContent.(bashOutput); !ok || sc.Truncated || !strings.HasPrefix(want, sc.Output) {
				t.Fatalf("structured content %+v", res.StructuredContent)
			}
		})
	}
}

func TestBashTimeoutValues(t *testing.T) {
	for _, s := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1, math.Copysign(0, -1), 1e300} {
		if d, err := bashTimeout(&s); err == nil {
			t.Errorf("timeout %v accepted as %v", s, d)
		}
	}
	for s, want := range map[float64]time.Duration{0.5: 500 * time.Millisecond, 2147483.647: bashMaxTimeout} {
		if d, err := bashTimeout(&s); err != nil || d != want {
			t.Errorf("timeout %v: %v, %v", s, d, err)
		}
	}
}

func TestBashKeepsTheUsersAskpassChoice(t *testing.T) {
	t.Setenv("SSH_ASKPASS_REQUIRE", "force")
	res, err, _ := bashCall(t, bashTestContext(t), NewBash(t.TempDir(), shell.Options{}), `{"command":"echo $SSH_ASKPASS_REQUIRE"}`)
	if err != nil || bashText(res) != "force\n" {
		t.Fatalf("%q %v", bashText(res), err)
	}
}

func TestBashUpdatesMatchPiShape(t *testing.T) {
	res, err, updates := bashCall(t, bashTestContext(t), NewBash(t.TempDir(), shell.Options{}), `{"command":"echo one"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(updates) != 2 {
		t.Fatalf("%d updates, want 2", len(updates))
	}
	if got := bashJSON(t, updates[0]); got != `{"content":[]}` {
		t.Fatalf("first update %s", got)
	}
	if got := bashJSON(t, updates[1]); got != `{"content":[{"type":"text","text":"one\n"}],"details":{}}` {
		t.Fatalf("second update %s", got)
	}
	got := regexp.MustCompile(`"wall_time_seconds":[0-9.]+`).ReplaceAllString(bashJSON(t, res), `"wall_time_seconds":0`)
	if got != `{"content":[{"type":"text","text":"one\n"}],"structuredContent":{"output":"one\n","truncated":false,"exit_code":0,"wall_time_seconds":0}}` {
		t.Fatalf("result %s", got)
	}
}

// bash's structured content has the whole output while the model gets its tail: past
// shell.FullOutputMax bytes, its start and end around a note of what is left out, and the path of the
// file with all of it.
func TestBashStructuredContentOfALongOutput(t *testing.T) {
	n := shell.FullOutputMax + 1000
	res, err, _ := bashCall(t, bashTestContext(t), NewBash(t.TempDir(), shell.Options{}),
		fmt.Sprintf(`{"command":"printf 'start'; head -c %d /dev/zero | tr '\\0' 'x'; printf 'end'; exit 2"}`, n))
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := res.StructuredContent.(bashOutput)
	if !ok || !res.IsError || sc.ExitCode != 2 || !sc.Truncated || sc.FullOutputPath == "" {
		t.Fatalf("result %q, structured content %+v", bashText(res), res.StructuredContent)
	}
	half := shell.FullOutputMax / 2
	omitted := n + len("start") + len("end") - 2*half
	want := "start" + strings.Repeat("x", half-5) + fmt.Sprintf("\n\n[... %d bytes omitted ...]\n\n", omitted) + strings.Repeat("x", half-3) + "end"
	if sc.Output != want {
		t.Fatalf("output of %d bytes, want %d: %q … %q", len(sc.Output), len(want), sc.Output[:20], sc.Output[len(sc.Output)-20:])
	}
	if len(bashText(res)) > 60*1024 {
		t.Errorf("the model's text is %d bytes, not the truncated tail", len(bashText(res)))
	}
}

// TestBashStreamsBeforeTheEnd holds the command on a FIFO until the first update has arrived.
func TestBashStreamsBeforeTheEnd(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "gate")
	bashMkfifo(t, fifo)
	tool := NewBash(dir, shell.Options{})
	updates := make(chan string, 16)
	done := make(chan error, 1)
	go func() {
		_, err := tool.Execute(bashTestContext(t), loop.ToolCall{Args: json.RawMessage(`{"command":"echo first; cat gate; echo last"}`)},
			func(r loop.ToolResult) { updates <- bashText(r) })
		done <- err
	}()
	for got := range updates {
		if strings.Contains(got, "first") {
			break
		}
	}
	select {
	case err := <-done:
		t.Fatalf("finished before the gate opened: %v", err)
	default:
	}
	if err := os.WriteFile(fifo, []byte("middle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestBashTruncation(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		command string
		notice  string
		by      string
	}{
		{"lines", "seq 3000", `\[Showing lines 1002-3001 of 3001\. Full output: (\S+)\]$`, "lines"},
		{"bytes", "for i in $(seq 1 700); do printf '%0100d\\n' $i; done",
			`\[Showing lines 195-701 of 701 \(50\.0KB limit\)\. Full output: (\S+)\]$`, "bytes"},
		{"partial line", "head -c 100000 /dev/zero | tr '\\0' a",
			`\[Showing last 50\.0KB of line 1 \(line is 97\.7KB\)\. Full output: (\S+)\]$`, "bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"command": tc.command})
			res, err, _ := bashCall(t, bashTestContext(t), NewBash(dir, shell.Options{}), string(args))
			if err != nil {
				t.Fatal(err)
			}
			text := bashText(res)
			m := regexp.MustCompile(tc.notice).FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("notice missing: %q", text[max(0, len(text)-300):])
			}
			path := m[1]
			t.Cleanup(func() { os.Remove(path) })
			if !strings.HasPrefix(filepath.Base(path), "pi-bash-") || !strings.HasSuffix(path, ".log") {
				t.Fatalf("spill path %q", path)
			}
			full, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := bashShellOutput(dir, tc.command)
			if err != nil {
				t.Fatal(err)
			}
			if string(full) != want {
				t.Fatalf("spill file has %d bytes, want %d", len(full), len(want))
			}
			d, ok := res.Details.(*BashDetails)
			if !ok || d.Truncation == nil || d.FullOutputPath != path || *d.Truncation.TruncatedBy != tc.by {
				t.Fatalf("details %s", bashJSON(t, res.Details))
			}
			if !strings.HasSuffix(want, strings.SplitN(text, "\n\n[Showing", 2)[0]) {
				t.Fatal("shown text is not the tail of the output")
			}
		})
	}
}
