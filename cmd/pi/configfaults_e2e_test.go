package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// SIGTERM while models.json is being read ends pi at once with 143, however long the read would
// take (here: a named pipe nobody writes, so the read never ends on its own).
func TestSIGTERMDuringModelsJSONLoadExits(t *testing.T) {
	p := newProject(t)
	fifo := filepath.Join(p.agentDir, "models.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, piBinary, "--list-models")
	cmd.Dir = p.dir
	cmd.Env = []string{"HOME=" + filepath.Dir(p.agentDir), "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + p.agentDir}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// opening the pipe for writing returns once pi has opened it for reading: pi is loading
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 143 {
			t.Fatalf("exit = %v, want 143; stdout %q stderr %q", err, out.String(), errb.String())
		}
	case <-time.After(20 * time.Second):
		w.Close() // let the read end, so the process can be reaped
		<-exited
		t.Fatalf("pi went on reading models.json after SIGTERM; stdout %q stderr %q", out.String(), errb.String())
	}
}

// A failing !command apiKey stops the request with an error naming the provider, the file, the key
// and the exit status; the command line (here holding a token) and its output appear nowhere.
func TestFailingAPIKeyCommandNeverShowsTheCommand(t *testing.T) {
	p := newProject(t)
	const secret = "sk-live-SECRET-0a1b2c3d4e5f"
	models := `{"providers": {"acme": {"baseUrl": "` + p.server.URL + `", "api": "openai-completions",
		"apiKey": "!printf ` + secret + `; echo ` + secret + ` >&2; exit 7", "models": [{"id": "m"}]}}}`
	modelsPath := filepath.Join(p.agentDir, "models.json")
	if err := os.WriteFile(modelsPath, []byte(models), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range [][]string{{"-p", "hi"}, {"--mode", "json", "hi"}} {
		r := p.run("", append([]string{"--provider", "acme", "--model", "m"}, mode...)...)
		if r.code == 0 && mode[0] == "-p" { // --mode json's exit code is issue 21 item 8
			t.Errorf("%v: exit 0", mode)
		}
		all := r.stdout + r.stderr
		if strings.Contains(all, "SECRET") || strings.Contains(all, "printf") {
			t.Errorf("%v: the command shows:\nstdout %s\nstderr %s", mode, r.stdout, r.stderr)
		}
		for _, want := range []string{`provider \"acme\"`, "providers.acme.apiKey", "exit status 7"} {
			if mode[0] == "-p" {
				want = strings.ReplaceAll(want, `\"`, `"`)
			}
			if !strings.Contains(all, want) {
				t.Errorf("%v: output does not say %s:\nstdout %s\nstderr %s", mode, want, r.stdout, r.stderr)
			}
		}
	}
	if n := len(p.server.Requests()); n != 0 {
		t.Errorf("%d requests sent without a key", n)
	}
}

// settings.json and auth.json values of the wrong type are named on stderr by file and key; the
// run goes on with the defaults, and neither file is rewritten.
func TestWrongConfigTypesAreNamed(t *testing.T) {
	p := newProject(t)
	settings := `{"compaction": {"enabled": "yes"}, "retry": 5, "defaultThinkingLevel": 3}`
	auth := `{"acme": {"type": "api_key", "key": 123}}`
	settingsPath := filepath.Join(p.agentDir, "settings.json")
	authPath := filepath.Join(p.agentDir, "auth.json")
	for path, text := range map[string]string{settingsPath: settings, authPath: auth} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p.server.Enqueue(openaitest.TextReply("test-model", "fine"))
	r := p.run("", append(p.baseArgs(), "-p", "hi")...)
	if r.code != 0 || r.stdout != "fine\n" {
		t.Fatalf("exit %d stdout %q: %s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		settingsPath + ": compaction.enabled: expected a boolean, got a string",
		settingsPath + ": retry: expected an object, got a number",
		settingsPath + ": defaultThinkingLevel: expected a string, got a number",
		authPath + ": acme.key: expected a string, got a number",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
	for path, text := range map[string]string{settingsPath: settings, authPath: auth} {
		if data, _ := os.ReadFile(path); string(data) != text {
			t.Errorf("%s was rewritten: %s", path, data)
		}
	}
}
