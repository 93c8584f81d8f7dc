package shell

import "syscall"

// sysProcAttr starts the shell as the leader of a new session: its own process group (killed as a
// whole on abort and timeout) and no controlling terminal, so nothing it runs can open /dev/tty and
// wait for keys there. Pdeathsig kills the shell when pi-go dies without cleaning up (SIGKILL, a
// crash). The kernel sends it when the thread that forked the child exits, not the process; run
// therefore starts the shell from a goroutine locked to its thread until the shell is gone.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
