package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The first frame of the interactive TUI, measured as a user sees it: the program runs in a
// pseudo-terminal of 120x40 and the clock stops when the terminal has received the whole first
// frame (the footer, which names the working directory, is its last part). The terminal side answers
// the queries a terminal emulator answers (cursor position, colours), as a real one would.

// frameDirName is the project directory's name, under $HOME; the footer shows it as frameMarker
// (the window title, set before the first frame, has the name without "~/").
const (
	frameDirName = "first-frame-proj"
	frameMarker  = "~/" + frameDirName
)

// ptyPair is a pseudo-terminal: the master end the test reads and writes, the slave end the program
// gets as its terminal.
type ptyPair struct {
	master, slave *os.File
}

func openPTY(rows, cols uint16) (*ptyPair, error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening /dev/ptmx: %w", err)
	}
	master := os.NewFile(uintptr(fd), "/dev/ptmx")
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, fmt.Errorf("unlocking the pty: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		return nil, fmt.Errorf("pty number: %w", err)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, fmt.Errorf("opening the pty's slave: %w", err)
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		master.Close()
		slave.Close()
		return nil, fmt.Errorf("setting the window size: %w", err)
	}
	return &ptyPair{master: master, slave: slave}, nil
}

func (p *ptyPair) Close() {
	p.master.Close()
	p.slave.Close()
}

// terminalReplies are the answers of an xterm-like terminal with a black background to the queries
// programs send at start.
var terminalReplies = []struct{ query, reply string }{
	{"\x1b[6n", "\x1b[1;1R"},                          // cursor position
	{"\x1b]11;?", "\x1b]11;rgb:0000/0000/0000\x1b\\"}, // background colour
	{"\x1b]10;?", "\x1b]10;rgb:ffff/ffff/ffff\x1b\\"}, // foreground colour
	{"\x1b[c", "\x1b[?62;22c"},                        // primary device attributes
	{"\x1b[?u", "\x1b[?0u"},                           // kitty keyboard flags
	{"\x1b[?2026$p", "\x1b[?2026;2$y"},                // synchronized output mode
	{"\x1b[>0q", "\x1bP>|xterm(1)\x1b\\"},             // terminal name and version
	{"\x1b[14t", "\x1b[4;800;1200t"},                  // window size in pixels
	{"\x1b[16t", "\x1b[6;20;10t"},                     // cell size in pixels
}

// frameRun is one run up to its first frame.
type frameRun struct {
	firstFrame time.Duration // from start until the terminal received the first frame
	cpu        time.Duration // user+system time of the whole run (start, first frame, quit)
	peakRSS    int64         // bytes, the program's VmHWM at the first frame
}

// runToFirstFrame starts argv in a pseudo-terminal in dir, answers its terminal queries, waits until
// the output shows marker, then sends quit (the keys that end the program) and waits for its exit.
func runToFirstFrame(ctx context.Context, argv []string, dir string, env []string, marker, quit string) (frameRun, error) {
	pty, err := openPTY(40, 120)
	if err != nil {
		return frameRun{}, err
	}
	defer pty.Close()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pty.slave, pty.slave, pty.slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}

	var (
		mu     sync.Mutex
		out    bytes.Buffer
		seen   = make(chan time.Time, 1)
		closed = make(chan struct{})
	)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return frameRun{}, err
	}
	go func() {
		defer close(closed)
		buf := make([]byte, 64<<10)
		answered := 0 // output before this offset has been searched for queries
		found := false
		for {
			n, err := pty.master.Read(buf)
			if n > 0 {
				mu.Lock()
				out.Write(buf[:n])
				s := out.String()
				mu.Unlock()
				if !found && strings.Contains(s, marker) {
					found = true
					seen <- time.Now()
				}
				answered = answerQueries(pty.master, s, answered)
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		if os.Getenv("PI_FRAME_TRACE") != "" {
			mu.Lock()
			fmt.Fprintf(os.Stderr, "%s output:\n%q\n", argv[0], out.String())
			mu.Unlock()
		}
	}()
	var run frameRun
	select {
	case t := <-seen:
		run.firstFrame = t.Sub(start)
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		mu.Lock()
		defer mu.Unlock()
		return run, fmt.Errorf("no first frame (%q) before the deadline; output:\n%q", marker, tail(out.String(), 2000))
	}
	run.peakRSS = vmHWM(cmd.Process.Pid)
	if _, err := pty.master.WriteString(quit); err != nil {
		return run, err
	}
	err = cmd.Wait()
	pty.slave.Close() // the reader sees the end once the program and the test closed the slave
	<-closed
	if err != nil {
		mu.Lock()
		defer mu.Unlock()
		return run, fmt.Errorf("%v: %v; output:\n%q", argv, err, tail(out.String(), 2000))
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	run.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return run, nil
}

// answerQueries writes the replies to the queries in the output s from offset from on, and returns
// the offset up to which s is answered: a query cut off at the end of s is answered when the rest
// arrives.
func answerQueries(w *os.File, s string, from int) int {
	for i := from; i < len(s); i++ {
		if s[i] != 0x1b {
			continue
		}
		for _, q := range terminalReplies {
			if len(s)-i < len(q.query) && strings.HasPrefix(q.query, s[i:]) {
				return i // the start of a query: wait for the rest
			}
		}
		for _, q := range terminalReplies {
			if strings.HasPrefix(s[i:], q.query) {
				_, _ = w.WriteString(q.reply)
				i += len(q.query) - 1
				break
			}
		}
	}
	return len(s)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// vmHWM is a process's peak resident set so far, from /proc (0 when unreadable).
func vmHWM(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// BenchmarkTUIFirstFrame: `pi --provider demo` (the offline demo model, no configuration) from start
// to its first frame in a 120x40 terminal, then Ctrl+D on the empty editor to quit. With PI16 set
// to pi 1.6.0's dist/cli.js (and NODE to a Node 22 binary when the one on PATH is older), the same
// for pi 1.6.0 with a models.json provider (it contacts no server before a prompt).
func BenchmarkTUIFirstFrame(b *testing.B) {
	type target struct {
		name string
		argv func(agentDir string) []string
		env  []string
	}
	targets := []target{
		{"pi-go", func(string) []string { return []string{piBinary, "--provider", "demo"} }, nil},
		// 200 skills and 200 templates in the agent directory: they are read after the first frame.
		{"pi-go-200-skills-200-templates", func(agentDir string) []string {
			writeManyResources(b, agentDir, 200)
			return []string{piBinary, "--provider", "demo"}
		}, nil},
	}
	// 10 TypeScript extensions in the agent directory: the sidecar starts after the first frame.
	if pi, why := findPi16(); why == "" {
		targets = append(targets, target{"pi-go-10-extensions", func(agentDir string) []string {
			writeExtensions(b, agentDir, 10)
			return []string{piBinary, "--provider", "demo"}
		}, []string{"PI_GO_NODE=" + pi.node, "PI_PACKAGE_DIR=" + pi.pkg}})
		// The same, and --model names a model an extension registers: the start waits for them.
		targets = append(targets, target{"pi-go-10-extensions-model-from-extension", func(agentDir string) []string {
			writeExtensions(b, agentDir, 10)
			writeProviderExtension(b, agentDir)
			return []string{piBinary, "--model", "bench-ext/test-model"}
		}, []string{"PI_GO_NODE=" + pi.node, "PI_PACKAGE_DIR=" + pi.pkg}})
	}
	if pi16 := os.Getenv("PI16"); pi16 != "" {
		node := os.Getenv("NODE")
		if node == "" {
			node = "node"
		}
		targets = append(targets, target{"pi-1.6.0", func(agentDir string) []string {
			models := `{"providers":{"bench":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"none","models":[{"id":"test-model"}]}}}`
			if err := os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o644); err != nil {
				b.Fatal(err)
			}
			return []string{node, pi16, "--provider", "bench", "--model", "test-model"}
		}, nil})
		targets = append(targets, target{"pi-1.6.0-10-extensions-model-from-extension", func(agentDir string) []string {
			writeExtensions(b, agentDir, 10)
			writeProviderExtension(b, agentDir)
			return []string{node, pi16, "--model", "bench-ext/test-model"}
		}, nil})
		targets = append(targets, target{"pi-1.6.0-10-extensions", func(agentDir string) []string {
			writeExtensions(b, agentDir, 10)
			models := `{"providers":{"bench":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"none","models":[{"id":"test-model"}]}}}`
			if err := os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o644); err != nil {
				b.Fatal(err)
			}
			return []string{node, pi16, "--provider", "bench", "--model", "test-model"}
		}, nil})
	}
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			root := b.TempDir()
			dir, agent := filepath.Join(root, frameDirName), filepath.Join(root, "agent")
			for _, d := range []string{dir, agent} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					b.Fatal(err)
				}
			}
			env := []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + agent,
				"TERM=xterm-256color", "COLORTERM=truecolor", "LANG=C.UTF-8"}
			env = append(env, tg.env...)
			argv := tg.argv(agent)
			one := func() frameRun {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				r, err := runToFirstFrame(ctx, argv, dir, env, frameMarker, "\x04")
				if err != nil {
					b.Fatal(err)
				}
				return r
			}
			one() // page cache, first session directory
			var first, cpu time.Duration
			var rss int64
			b.ResetTimer()
			for range b.N {
				r := one()
				first += r.firstFrame
				cpu += r.cpu
				rss = max(rss, r.peakRSS)
			}
			b.StopTimer()
			b.ReportMetric(float64(first.Nanoseconds())/float64(b.N)/1e6, "first-frame-ms/op")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
		})
	}
}

// writeExtensions puts n TypeScript extensions into agentDir/extensions, each with a tool, a command
// and a tool_call handler.
func writeExtensions(tb testing.TB, agentDir string, n int) {
	tb.Helper()
	dir := filepath.Join(agentDir, "extensions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		src := fmt.Sprintf(`import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
export default function (pi: ExtensionAPI) {
	pi.on("tool_call", async (event) => (event.toolName === "bash" && String(event.input.command).includes("forbidden-%[1]d") ? { block: true, reason: "no" } : undefined));
	pi.registerCommand("ext-%[1]d", { description: "Extension %[1]d", handler: async (_args, ctx) => ctx.ui.notify("ext %[1]d", "info") });
	pi.registerTool({
		name: "tool_%[1]d", label: "Tool %[1]d", description: "Tool number %[1]d",
		parameters: { type: "object", properties: { text: { type: "string" } } },
		async execute(_id, params) { return { content: [{ type: "text", text: "tool %[1]d: " + params.text }], details: {} }; },
	});
}
`, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("ext-%02d.ts", i)), []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// writeManyResources puts n skills (SKILL.md with scripts/) and n templates into agentDir.
func writeManyResources(tb testing.TB, agentDir string, n int) {
	tb.Helper()
	for i := range n {
		skill := filepath.Join(agentDir, "skills", fmt.Sprintf("group-%d", i%10), fmt.Sprintf("skill-%03d", i))
		if err := os.MkdirAll(filepath.Join(skill, "scripts"), 0o755); err != nil {
			tb.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: skill-%03d\ndescription: Does task %d. Use when asked for task %d.\nlicense: MIT\n---\nRun scripts/run.py.\n", i, i, i)
		tpl := fmt.Sprintf("---\ndescription: Template %d\nargument-hint: \"<file>\"\n---\nLook at $1.\n", i)
		if err := os.MkdirAll(filepath.Join(agentDir, "prompts"), 0o755); err != nil {
			tb.Fatal(err)
		}
		for path, content := range map[string]string{
			filepath.Join(skill, "SKILL.md"):                                  md,
			filepath.Join(skill, "scripts", "run.py"):                         "print('hi')\n",
			filepath.Join(agentDir, "prompts", fmt.Sprintf("tpl-%03d.md", i)): tpl,
		} {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// The TUI draws its first frame in a bare terminal (one that answers the usual queries) and Ctrl+D
// on the empty editor ends it with status 0: what BenchmarkTUIFirstFrame measures works.
func TestTUIFirstFrameInATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	root := t.TempDir()
	dir, agent := filepath.Join(root, frameDirName), filepath.Join(root, "agent")
	for _, d := range []string{dir, agent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + agent, "TERM=xterm-256color"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := runToFirstFrame(ctx, []string{piBinary, "--provider", "demo"}, dir, env, frameMarker, "\x04")
	if err != nil {
		t.Fatal(err)
	}
	if r.firstFrame <= 0 || r.peakRSS <= 0 {
		t.Fatalf("run %+v", r)
	}
}
