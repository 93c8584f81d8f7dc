package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/tools/shell"
)

func bashMkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// bashShellOutput is what the command prints when run directly.
func bashShellOutput(dir, command string) (string, error) {
	cmd := exec.Command("/bin/bash", "-c", command)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestBashHugeOutputStaysBounded streams 72 MB through the tool: the heap stays small, and the spill
// file keeps the end of the output within its limit, saying what it dropped.
func TestBashHugeOutputStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("72 MB of output")
	}
	const size = 72 * 1024 * 1024
	// spoolLimit is the full-output file's bound (tools/shell's spool; the notice below says 32.0MB).
	const spoolLimit = 32 << 20
	const line = "0123456789abcdefghijklmnopqrstuvwxyz\n"
	var peak uint64
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	dir := shell.NewOutputDir(t.TempDir())
	t.Cleanup(func() { dir.Close() })
	res, err := NewBash(t.TempDir(), shell.Options{OutputDir: dir}).Execute(bashTestContext(t),
		loop.ToolCall{Args: json.RawMessage(`{"command":"yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 75497472"}`)},
		func(loop.ToolResult) { sample() })
	sample()
	if err != nil {
		t.Fatal(err)
	}
	d, ok := res.Details.(*BashDetails)
	if !ok || d.FullOutputPath == "" {
		t.Fatalf("details %v", res.Details)
	}
	if d.Truncation.TotalBytes != size || d.Truncation.TotalLines != size/len(line)+1 {
		t.Fatalf("totals %d bytes %d lines", d.Truncation.TotalBytes, d.Truncation.TotalLines)
	}
	data, err := os.ReadFile(d.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > spoolLimit {
		t.Fatalf("spill file has %d bytes, limit %d", len(data), spoolLimit)
	}
	header, body, _ := strings.Cut(string(data), "\n")
	m := regexp.MustCompile(`^\[pi-go: this file keeps only the end of the output \(limit 32\.0MB\): the first (\S+) \((\d+) lines\) were dropped; what follows starts at line (\d+)\]$`).FindStringSubmatch(header)
	if m == nil {
		t.Fatalf("header %q", header)
	}
	dropped, _ := strconv.Atoi(m[2])
	if from, _ := strconv.Atoi(m[3]); from != dropped+1 || len(body) != size-dropped*len(line) {
		t.Fatalf("header %q, then %d bytes", header, len(body))
	}
	if len(body) < spoolLimit/2-len(line) {
		t.Fatalf("the file keeps only %d bytes of the output", len(body))
	}
	whole := strings.Repeat(line, len(body)/len(line)+1)[:len(body)]
	if body != whole {
		t.Fatal("the file's body is not the end of the output")
	}
	if text := bashText(res); !strings.Contains(text, "Full output: "+d.FullOutputPath+" (the first "+m[1]+" were dropped to keep the file under 32.0MB") {
		t.Fatalf("notice: %q", text[max(0, len(text)-300):])
	}
	if peak > 64<<20 {
		t.Fatalf("heap peaked at %d MB", peak>>20)
	}
	t.Logf("heap peak %d MB; %s", peak>>20, header)
}

// TestBashAbortedResult: an aborted command's result is its output so far and pi's status line.
func TestBashAbortedResult(t *testing.T) {
	ctx, cancel := context.WithCancel(bashTestContext(t))
	defer cancel()
	res, err := NewBash(t.TempDir(), shell.Options{}).Execute(ctx,
		loop.ToolCall{Args: json.RawMessage(`{"command":"echo started; sleep 300"}`)},
		func(r loop.ToolResult) {
			if strings.Contains(bashText(r), "started") {
				cancel()
			}
		})
	if err == nil || err.Error() != "started\n\n\nCommand aborted" {
		t.Fatalf("result %q, error %v", bashText(res), err)
	}
}
