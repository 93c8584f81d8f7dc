//go:build unix

package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestPruneIsCancellableAndDoesNotBlockSnapshots runs a prune whose git gc hangs (a wrapper around
// git that, for gc, starts a child and waits): a snapshot meanwhile completes, and cancelling the
// prune returns at once and kills gc's whole process group, the child included.
func TestPruneIsCancellableAndDoesNotBlockSnapshots(t *testing.T) {
	requireGit(t)
	realGit, _ := exec.LookPath("git")
	tmp := t.TempDir()
	started := filepath.Join(tmp, "started")
	hold := filepath.Join(tmp, "hold")
	for _, fifo := range []string{started, hold} {
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("no fifos here: %v", err)
		}
	}
	// The child holds the hold fifo open for writing until it dies: its reader then sees EOF.
	wrapper := filepath.Join(tmp, "git")
	script := fmt.Sprintf(`#!/bin/sh
for a in "$@"; do
	if [ "$a" = gc ]; then
		sleep 600 > %q &
		echo started > %q
		wait
		exit 0
	fi
done
exec %q "$@"
`, hold, started, realGit)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	agent := t.TempDir()
	write(t, dir, "a.txt", "one", 0o644)
	ctx := context.Background()
	s, err := Open(ctx, Options{AgentDir: agent, ProjectDir: dir, Git: wrapper})
	if err != nil {
		t.Fatal(err)
	}
	snapshot(t, s, "")

	pruneCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	pruned := make(chan error, 1)
	go func() {
		_, err := s.Prune(pruneCtx, Limits{Git: wrapper})
		pruned <- err
	}()
	// Wait for gc to start (the read blocks until the wrapper writes), then for its child.
	if _, err := os.ReadFile(started); err != nil {
		t.Fatal(err)
	}
	holdR, err := os.Open(hold)
	if err != nil {
		t.Fatal(err)
	}
	defer holdR.Close()

	// gc is running: a snapshot does not wait for it.
	write(t, dir, "a.txt", "two", 0o644)
	cp, err := s.Snapshot(ctx, SnapshotOptions{})
	if err != nil || len(cp.Changes) != 1 {
		t.Fatalf("snapshot during gc: %+v, %v", cp, err)
	}

	cancel()
	select {
	case err := <-pruned:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled prune returned %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a cancelled prune did not return within a minute")
	}
	// The child of gc died with it: the fifo it held reaches EOF.
	eof := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, holdR)
		eof <- err
	}()
	select {
	case err := <-eof:
		if err != nil {
			t.Errorf("hold fifo: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("gc's child outlived the cancelled prune")
	}
}
