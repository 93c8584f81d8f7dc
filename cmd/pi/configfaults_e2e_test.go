package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
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
