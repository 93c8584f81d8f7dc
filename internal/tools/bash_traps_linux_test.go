package tools

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/tools/shell"
)

// The interactive-command traps run in a helper process (this test binary again) that has a
// controlling terminal, as pi-go has in the TUI: a command that managed to reach that terminal would
// prompt there and wait for keys. Each trap must end within seconds with a result that says why.
const (
	bashTrapHelperEnv = "PI_TOOLS_TRAP_HELPER"
	bashTrapDirEnv    = "PI_TOOLS_TRAP_DIR"
	// bashTrapBound is how long a trap may take; the tool's own timeout only ends a hang.
	bashTrapBound       = 10 * time.Second
	bashTrapToolTimeout = 20
)

// bashTrap is one command that would wait for a person.
type bashTrap struct {
	name    string
	needs   []string // programs that must be installed
	command string
	// wantErr says whether the result is an error; want are substrings of the result text.
	wantErr bool
	want    []string
}

func bashTraps(dir string) []bashTrap {
	return []bashTrap{
		{name: "controlling terminal", command: `exec 3<>/dev/tty && echo OPENED`, wantErr: true,
			want: []string{"/dev/tty: No such device or address"}},
		{name: "git commit without a message", needs: []string{"git"},
			command: `cd repo && echo change >> a.txt && git commit -qa`, wantErr: true,
			want: []string{"pi-go: no editor here (the command has no terminal)", "git commit -m", "Please supply the message using either -m or -F option"}},
		{name: "git rebase -i", needs: []string{"git"},
			command: `cd rebase && git rebase -i HEAD~1`, wantErr: true,
			want: []string{"pi-go: no editor here (the command has no terminal)", "There was a problem with the editor"}},
		{name: "git merge without --no-edit", needs: []string{"git"},
			command: `cd merge && git merge -q --edit side`, wantErr: true,
			want: []string{"pi-go: no editor here (the command has no terminal)"}},
		{name: "less", needs: []string{"less"}, command: `less repo/a.txt`, want: []string{"first line"}},
		{name: "git log pager", needs: []string{"git"}, command: `cd repo && git log --format=%s`, want: []string{"initial"}},
		{name: "vim", needs: []string{"vim"}, command: `vim repo/a.txt`, wantErr: true,
			want: []string{"pi-go: vim needs a terminal", "edit or write tool"}},
		{name: "vi", needs: []string{"vi"}, command: `vi repo/a.txt`, wantErr: true,
			want: []string{"pi-go: vi needs a terminal"}},
		{name: "vim in Ex mode still works", needs: []string{"vim"},
			command: `cp repo/a.txt ex.txt && vim -es -c '%s/first/FIRST/' -c wq ex.txt && cat ex.txt`,
			want:    []string{"FIRST line"}},
		{name: "ssh password prompt", needs: []string{"ssh"},
			command: fmt.Sprintf(`ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -p %d nonexistent@127.0.0.1 true`, bashClosedPort()),
			wantErr: true, want: []string{"Connection refused"}},
		{name: "ssh key passphrase prompt", needs: []string{"ssh-keygen"},
			command: `ssh-keygen -y -f key`, wantErr: true, want: []string{"Command exited with code"}},
		{name: "sudo", needs: []string{"sudo"}, command: `sudo -k true`, wantErr: true,
			want: []string{"sudo"}},
	}
}

// bashClosedPort is a local TCP port nothing listens on (one that was just free).
func bashClosedPort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// bashTrapResult is what the helper reports per trap.
type bashTrapResult struct {
	Name    string        `json:"name"`
	Skipped string        `json:"skipped,omitempty"`
	Elapsed time.Duration `json:"elapsed"`
	IsError bool          `json:"isError"`
	Text    string        `json:"text"`
}

func TestBashInteractiveCommandsFailFast(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a helper process on a pseudo-terminal")
	}
	dir := t.TempDir()
	bashTrapSetup(t, dir)
	master, slave := bashOpenPTY(t)
	var helperOut, helperErr bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^TestBashTrapHelper$", "-test.v")
	cmd.Env = append(bashTrapEnv(dir), bashTrapHelperEnv+"=1", bashTrapDirEnv+"="+dir)
	cmd.Stdin = slave
	cmd.Stdout, cmd.Stderr = &helperOut, &helperErr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	// Whatever reaches the terminal is collected: nothing may prompt there.
	var onTerminal bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = io.Copy(&onTerminal, master)
	}()
	err := cmd.Wait()
	master.Close()
	wg.Wait()
	if err != nil {
		t.Fatalf("helper: %v\n%s\n%s", err, helperOut.String(), helperErr.String())
	}
	results := map[string]bashTrapResult{}
	sc := bufio.NewScanner(&helperOut)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r bashTrapResult
		if line := sc.Bytes(); bytes.HasPrefix(line, []byte("{")) && json.Unmarshal(line, &r) == nil {
			results[r.Name] = r
		}
	}
	for _, trap := range bashTraps(dir) {
		t.Run(trap.name, func(t *testing.T) {
			r, ok := results[trap.name]
			switch {
			case !ok:
				t.Fatalf("no result from the helper:\n%s", helperOut.String())
			case r.Skipped != "":
				t.Skip(r.Skipped)
			}
			t.Logf("%v: %q", r.Elapsed.Round(time.Millisecond), r.Text)
			if r.Elapsed > bashTrapBound {
				t.Errorf("took %v (bound %v)", r.Elapsed, bashTrapBound)
			}
			if r.IsError != trap.wantErr {
				t.Errorf("isError %v, want %v", r.IsError, trap.wantErr)
			}
			for _, w := range trap.want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("result lacks %q", w)
				}
			}
		})
	}
	if s := onTerminal.String(); strings.TrimSpace(s) != "" {
		t.Errorf("a command wrote to the controlling terminal: %q", s)
	}
}

// TestBashTrapHelper runs the traps in the helper process and prints one JSON line per trap.
func TestBashTrapHelper(t *testing.T) {
	if os.Getenv(bashTrapHelperEnv) != "1" {
		t.Skip("helper process of TestBashInteractiveCommandsFailFast")
	}
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err != nil {
		t.Fatalf("the helper has no controlling terminal: %v", err)
	} else {
		f.Close()
	}
	dir := os.Getenv(bashTrapDirEnv)
	tool := NewBash(dir, shell.Options{})
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for _, trap := range bashTraps(dir) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := bashTrapResult{Name: trap.name}
			for _, p := range trap.needs {
				if _, err := exec.LookPath(p); err != nil {
					r.Skipped = p + " is not installed"
				}
			}
			if r.Skipped == "" {
				args, _ := json.Marshal(map[string]any{"command": trap.command, "timeout": bashTrapToolTimeout})
				start := time.Now()
				res, err := tool.Execute(bashTestContext(t), loop.ToolCall{Args: args}, nil)
				r.Elapsed = time.Since(start)
				r.IsError, r.Text = res.IsError, bashText(res)
				if err != nil {
					r.IsError, r.Text = true, err.Error()
				}
			}
			line, _ := json.Marshal(r)
			mu.Lock()
			fmt.Printf("%s\n", line)
			mu.Unlock()
		}()
	}
	wg.Wait()
}

// bashTrapEnv is the helper's environment: the user has interactive editors configured, and git
// finds no configuration of the machine or the user.
func bashTrapEnv(dir string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"TERM=xterm",
		"EDITOR=vim", "VISUAL=vim", "GIT_EDITOR=vim",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	}
}

// bashTrapSetup makes the repositories and the key the traps use.
func bashTrapSetup(t *testing.T, dir string) {
	t.Helper()
	run := func(sub string, args ...string) {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = filepath.Join(dir, sub)
		cmd.Env = bashTrapEnv(dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	if _, err := exec.LookPath("git"); err == nil {
		for _, repo := range []string{"repo", "rebase", "merge"} {
			if err := os.MkdirAll(filepath.Join(dir, repo), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, repo, "a.txt"), []byte("first line\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			run(repo, "git", "init", "-q", "-b", "main")
			run(repo, "git", "config", "core.editor", "vim")
			run(repo, "git", "add", "a.txt")
			run(repo, "git", "commit", "-qm", "initial")
		}
		run("rebase", "git", "commit", "-q", "--allow-empty", "-m", "second")
		run("merge", "git", "checkout", "-qb", "side")
		run("merge", "git", "commit", "-q", "--allow-empty", "-m", "on side")
		run("merge", "git", "checkout", "-q", "main")
		run("merge", "git", "commit", "-q", "--allow-empty", "-m", "on main")
	}
	if _, err := exec.LookPath("ssh-keygen"); err == nil {
		run(".", "ssh-keygen", "-q", "-t", "ed25519", "-N", "secret", "-f", "key")
	}
}

// bashOpenPTY opens a pseudo-terminal pair.
func bashOpenPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	return m, s
}
