package session

// Crash safety and the single-writer lock, with real processes: the test binary re-executes itself
// as a helper (TestMain) that writes a session until it is SIGKILLed, or holds a session's lock.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

const helperEnv = "PI_GO_SESSION_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "writer":
		os.Exit(helperWriter(os.Getenv("SESSION_PATH")))
	case "holder":
		os.Exit(helperHolder(os.Getenv("SESSION_PATH")))
	case "loadrss":
		os.Exit(helperLoadRSS(os.Getenv("SESSION_PATH")))
	}
	os.Exit(m.Run())
}

// helperWriter appends large entries forever, announcing each write on stdout.
func helperWriter(path string) int {
	s, err := Open(path, OpenOptions{Cwd: "/crash"})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	// say when a write starts, so the parent's SIGKILL tends to land inside write(2)
	s.writeFn = func(f *os.File, p []byte) (int, error) {
		fmt.Println("writing")
		return f.Write(p)
	}
	r := rand.New(rand.NewSource(int64(os.Getpid())))
	text := strings.Repeat("crash-safe 日本語 \"quoted\"\n", 1<<13) // ~256 KB
	for n := 0; ; n++ {
		size := 1 + r.Intn(len(text)-1)
		var msg provider.Message
		if n%2 == 0 {
			msg = userMsg(text[:size])
		} else {
			msg = assistantMsg(text[:size])
		}
		if _, err := s.AppendMessage(msg); err != nil {
			fmt.Println("error", err)
			return 1
		}
	}
}

// helperHolder opens a session, says so, waits for stdin to close, then appends and exits.
func helperHolder(path string) int {
	s, err := Open(path, OpenOptions{Cwd: "/holder"})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin)
	if _, err := s.AppendMessage(assistantMsg("holder's last word")); err != nil {
		fmt.Println("error", err)
		return 1
	}
	if err := s.Close(); err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("done")
	return 0
}

func startHelper(t *testing.T, mode, path string) (*exec.Cmd, *bufio.Scanner, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "SESSION_PATH="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return cmd, sc, stdin
}

func TestSIGKILLedWriterLeavesLoadableFile(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "crash.jsonl")
	r := rand.New(rand.NewSource(42))
	rounds, torn := 40, 0
	var checked []byte // the file as the last round left it, every line checked
	for round := 0; round < rounds; round++ {
		cmd, sc, stdin := startHelper(t, "writer", path)
		want := 1 + r.Intn(3)
		for seen := 0; seen < want; {
			if !sc.Scan() {
				t.Fatalf("helper stopped: %v", sc.Err())
			}
			if line := sc.Text(); strings.HasPrefix(line, "error") {
				t.Fatalf("helper: %s", line)
			}
			seen++
		}
		// the helper is inside (or just before, or just after) a write: kill it there
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		stdin.Close()

		before, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// what survives is every complete line; a torn tail goes to a sidecar
		complete := before[:bytes.LastIndexByte(before, '\n')+1]
		tail := before[len(complete):]
		sidecarsBefore := len(sidecars(t, path))
		s, err := Open(path, OpenOptions{})
		if err != nil {
			t.Fatalf("round %d: open after kill: %v", round, err)
		}
		if s.SessionFile() != path {
			t.Fatalf("round %d: the killed session was not resumed: %v", round, s.Warnings())
		}
		opened := must(os.ReadFile(path))
		if len(tail) > 0 && !json.Valid(tail) {
			torn++
			eq(t, string(opened), string(complete), fmt.Sprintf("round %d: file after open", round))
			side := sidecars(t, path)
			eq(t, len(side), sidecarsBefore+1, fmt.Sprintf("round %d: sidecars", round))
			var moved bool
			for _, f := range side {
				moved = moved || bytes.Equal(must(os.ReadFile(f)), tail)
			}
			if !moved {
				t.Fatalf("round %d: no sidecar holds the torn %d bytes", round, len(tail))
			}
		} else {
			eq(t, string(opened), string(before), fmt.Sprintf("round %d: file after open", round))
			opened = complete
			if len(tail) > 0 {
				opened = append(append([]byte(nil), before...), '\n')
			}
		}
		if _, err := s.BuildContext(); err != nil {
			t.Fatalf("round %d: context: %v", round, err)
		}
		n := len(s.Entries())
		if _, err := s.AppendMessage(assistantMsg(fmt.Sprint("after kill ", round))); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		after := must(os.ReadFile(path))
		if !bytes.HasPrefix(after, opened) {
			t.Fatalf("round %d: existing bytes changed", round)
		}
		// every line is valid JSON: what earlier rounds checked is unchanged, the rest is checked now
		if !bytes.HasPrefix(after, checked) {
			t.Fatalf("round %d: lines of earlier rounds changed", round)
		}
		validJSONL(t, after[len(checked):], fmt.Sprintf("round %d: file after the next open and an append", round))
		checked = after
		// reload: the appended entry is there and follows the entries that loaded before
		s2, err := Open(path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, len(s2.Entries()), n+1, "entries after append")
		eq(t, len(s2.Warnings()), 0, "warnings after the repair")
		s2.Close()
	}
	t.Logf("%d rounds, %d killed mid-line", rounds, torn)
	validJSONL(t, must(os.ReadFile(path)), "the file at the end")
	eq(t, len(sidecars(t, path)), torn, "one sidecar per torn line")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Every prefix of a valid file (every place a crash can cut it) loads, and the next append is valid.
func TestEveryTornPrefixLoadsAndAppends(t *testing.T) {
	dir := t.TempDir()
	src := Create("/proj", dir)
	ok := mustAppend(t)
	ok(src.AppendModelChange("openai", "gpt-4o"))
	ok(src.AppendMessage(userMsg("héllo wörld 日本")))
	ok(src.AppendMessage(assistantMsg("ünïcödé \u2028 reply")))
	ok(src.AppendLabelChange(src.Entries()[1].ID, "l"))
	ok(src.AppendMessage(userMsg("last")))
	full := must(os.ReadFile(src.SessionFile()))
	src.Close()
	headerEnd := bytes.IndexByte(full, '\n') + 1
	for cut := 0; cut <= len(full); cut++ {
		path := filepath.Join(dir, fmt.Sprintf("cut-%d.jsonl", cut))
		prefix := full[:cut]
		if err := os.WriteFile(path, prefix, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(path, OpenOptions{Cwd: "/proj"})
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		complete := bytes.Count(prefix, []byte("\n"))
		wantEntries := complete - 1
		if cut > 0 && prefix[cut-1] != '\n' && json.Valid(prefix[bytes.LastIndexByte(prefix, '\n')+1:]) {
			wantEntries++ // cut just before a newline: the last line is complete
		}
		if cut < headerEnd-1 {
			wantEntries = 0
		}
		if got := len(s.Entries()); got != max(wantEntries, 0) {
			t.Fatalf("cut %d: %d entries, want %d (%v)", cut, got, wantEntries, s.Warnings())
		}
		if _, err := s.AppendMessage(assistantMsg("next")); err != nil {
			t.Fatal(err)
		}
		written := s.SessionFile()
		s.Close()
		after := must(os.ReadFile(written))
		if written == path {
			kept := prefix
			if side := sidecars(t, path); len(side) > 0 {
				// a torn tail after the header: cut off, byte for byte in its sidecar
				kept = prefix[:bytes.LastIndexByte(prefix, '\n')+1]
				eq(t, len(side), 1, fmt.Sprintf("cut %d: sidecars", cut))
				eq(t, string(must(os.ReadFile(side[0]))), string(prefix[len(kept):]), fmt.Sprintf("cut %d: sidecar", cut))
				os.Remove(side[0])
			}
			if !bytes.HasPrefix(after, kept) {
				t.Fatalf("cut %d: prefix changed", cut)
			}
			validJSONL(t, after, fmt.Sprintf("cut %d: file after open and append", cut))
		} else {
			// no readable header: left alone, new session beside it
			if got := must(os.ReadFile(path)); !bytes.Equal(got, prefix) {
				t.Fatalf("cut %d: unreadable file modified", cut)
			}
			eq(t, len(sidecars(t, path)), 0, fmt.Sprintf("cut %d: sidecars of a file without a header", cut))
			os.Remove(written)
			validJSONL(t, after, fmt.Sprintf("cut %d: new session beside it", cut))
		}
		os.Remove(path)
	}
}

func TestSecondProcessGetsLockError(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "shared.jsonl")
	s := Create("/proj", dir)
	ok := mustAppend(t)
	ok(s.AppendMessage(userMsg("q")))
	ok(s.AppendMessage(assistantMsg("a")))
	must(0, os.Rename(s.SessionFile(), path))
	s.Close()
	before := must(os.ReadFile(path))

	cmd, sc, stdin := startHelper(t, "holder", path)
	if !sc.Scan() || sc.Text() != "locked" {
		t.Fatalf("holder: %q %v", sc.Text(), sc.Err())
	}
	_, err := Open(path, OpenOptions{})
	var le *LockError
	if !errors.Is(err, ErrLocked) || !errors.As(err, &le) || le.Path != path || !strings.Contains(err.Error(), path) {
		t.Fatalf("second open = %v", err)
	}
	eq(t, string(must(os.ReadFile(path))), string(before), "file untouched by the refused open")
	stdin.Close()
	if !sc.Scan() || sc.Text() != "done" {
		t.Fatalf("holder: %q %v", sc.Text(), sc.Err())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatalf("open after the holder exited: %v", err)
	}
	defer s2.Close()
	ctx, _ := s2.BuildContext()
	eqSlice(t, texts(t, ctx), []string{"q", "a", "holder's last word"}, "nothing lost")
}

func TestLockIsPerOpenFileInOneProcessToo(t *testing.T) {
	dir := t.TempDir()
	s := Create("/proj", dir)
	ok := mustAppend(t)
	ok(s.AppendMessage(userMsg("q")))
	ok(s.AppendMessage(assistantMsg("a")))
	if _, err := Open(s.SessionFile(), OpenOptions{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("open of a file being written = %v", err)
	}
	s.Close()
	s2, err := Open(s.SessionFile(), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
}
