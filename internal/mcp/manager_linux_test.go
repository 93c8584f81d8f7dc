package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"
)

// processExits waits (at most a generous bound, for a loaded machine) for pid to exit, through a
// pidfd that becomes readable when it does: an exiting process has closed its files a moment before
// it is a zombie, so its state alone would race.
func processExits(t *testing.T, pid int) bool {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return errors.Is(err, unix.ESRCH)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 30_000)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n == 1
	}
}

// running reports whether pid runs (not gone, not a zombie).
func running(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

func TestCloseKillsTheServersProcessGroup(t *testing.T) {
	markers := t.TempDir()
	m := newTestManager(t, stdioServer("spawner", "-markers", markers))
	wait(t, m)
	ctx, cancel := context.WithCancel(context.Background())
	called := make(chan error, 1)
	spawned := make(chan struct{}, 1)
	go func() {
		_, err := m.CallTool(ctx, "spawner", "spawn", nil, func(*sdk.ProgressNotificationParams) {
			select {
			case spawned <- struct{}{}:
			default:
			}
		})
		called <- err
	}()
	// The spawn tool sends its progress notification after it wrote the child's pid, and then
	// blocks until cancelled.
	select {
	case <-spawned:
	case err := <-called:
		t.Fatalf("spawn returned early: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(markers, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(data))
	if !running(pid) {
		t.Fatal("child not running")
	}
	closeCtx, closeCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer closeCancel()
	if err := m.Close(closeCtx); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-called
	if !processExits(t, pid) {
		t.Fatalf("child %d survived Close", pid)
	}
}
