package shell

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// awaitExit blocks until the shell exits without reaping it: the zombie leader keeps its process
// group id reserved, so signalling the group stays safe until the caller reaps it with cmd.Wait. It
// reports false (not reaped).
func awaitExit(cmd *exec.Cmd) (reaped bool) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return false
		}
	}
}

// awaitGroupGone waits, at most max, until no live (non-zombie) process of group pgid remains.
// The group was sent SIGKILL; this closes the window in which a killed process has not run yet.
func awaitGroupGone(pgid int, max time.Duration) {
	deadline := time.Now().Add(max)
	for _, pid := range groupMembers(pgid) {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // already gone
		}
		left := time.Until(deadline)
		if left < 0 {
			left = 0
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			_, err := unix.Poll(fds, int(left/time.Millisecond))
			if err != unix.EINTR {
				break
			}
		}
		unix.Close(fd)
	}
}

// groupMembers lists the live processes whose process group is pgid, from /proc.
func groupMembers(pgid int) []int {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer dir.Close()
	names, _ := dir.Readdirnames(-1)
	var pids []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if group, state, ok := procStat(pid); ok && group == pgid && state != 'Z' && state != 'X' {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat reads the process group and state of pid from /proc/<pid>/stat.
func procStat(pid int) (pgrp int, state byte, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name is in parentheses and may contain spaces: fields start after the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(string(fields[2]))
	if err != nil {
		return 0, 0, false
	}
	return pgrp, fields[0][0], true
}
