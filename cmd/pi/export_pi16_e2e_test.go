package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/export"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
	"github.com/pi-go/pi-go/internal/session"
)

// pi16Read is what pi 1.6.0's SessionManager read from a file (testdata/export/pi16session.mjs).
type pi16Read struct {
	ID, Cwd, LeafID string
	Entries         int
	Messages        []struct{ Role, Text string }
}

// readWithPi16 loads path with pi 1.6.0's SessionManager, has pi export it as JSONL to out, and
// returns what pi read.
func readWithPi16(t *testing.T, pi pi16Install, path, out string) pi16Read {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pi.node, filepath.Join("testdata", "export", "pi16session.mjs"), path, out)
	cmd.Env = []string{"PI_PKG=" + pi.pkg, "HOME=" + t.TempDir(), "PI_OFFLINE=1", "PI_TELEMETRY=0"}
	stdout, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("pi16session.mjs %s: %v\n%s", path, err, stderr)
	}
	var r pi16Read
	if err := json.Unmarshal(stdout, &r); err != nil {
		t.Fatalf("pi's output %s: %v", stdout, err)
	}
	return r
}

// The JSONL export goes through pi 1.6.0 and back: pi-go's /export file.jsonl of a session with a
// tool run is read by pi's SessionManager as the same conversation, pi's own export of it has the
// same entries byte for byte, and pi-go resumes pi's export, sending the whole history on.
func TestJSONLExportRoundTripsThroughPi16(t *testing.T) {
	pi, missing := findPi16()
	if missing != "" {
		if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
			t.Fatal(missing)
		}
		t.Skip(missing)
	}
	p := newProject(t)
	p.write("greet.txt", "hello from the file\n")
	p.server.Enqueue(
		openaitest.ToolCallReply("test-model", "Reading it.",
			openaitest.ToolCallSpec{ID: "call_1", Name: "read", Arguments: `{"path":"greet.txt"}`}),
		openaitest.TextReply("test-model", "It says **hello**."),
	)
	if r := p.run("", append(p.baseArgs(), "-p", "what does greet.txt say?")...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(p.agentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	m, err := session.Open(files[0], session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	goExport, err := export.JSONLFile(export.FromManager(m), filepath.Join(t.TempDir(), "pi-go-export.jsonl"), "", time.Now())
	id, leaf, entries := m.SessionID(), m.LeafID(), len(m.Entries())
	m.Close()
	if err != nil {
		t.Fatal(err)
	}

	piExport := filepath.Join(t.TempDir(), "pi-export.jsonl")
	got := readWithPi16(t, pi, goExport, piExport)
	if got.ID != id || got.Cwd != p.dir || got.LeafID != leaf || got.Entries != entries {
		t.Fatalf("pi read id %s cwd %s leaf %s, %d entries; want %s %s %s %d", got.ID, got.Cwd, got.LeafID, got.Entries, id, p.dir, leaf, entries)
	}
	var conv []string
	for _, msg := range got.Messages {
		conv = append(conv, msg.Role+": "+msg.Text)
	}
	want := "system: |user: what does greet.txt say?|assistant: Reading it.[read]|toolResult: hello from the file\n|assistant: It says **hello**."
	if strings.Join(conv, "|") != want {
		t.Fatalf("pi's context:\n%s\nwant\n%s", strings.Join(conv, "|"), want)
	}
	goLines, piLines := fileLines(t, goExport), fileLines(t, piExport)
	if strings.Join(goLines[1:], "\n") != strings.Join(piLines[1:], "\n") {
		t.Fatalf("pi's export of pi-go's export differs:\n%s\n---\n%s", strings.Join(goLines, "\n"), strings.Join(piLines, "\n"))
	}

	// Back: pi-go resumes pi's export; the next request carries the conversation.
	p.server.Enqueue(openaitest.TextReply("test-model", "Still hello."))
	if r := p.run("", append(p.baseArgs(), "--session", piExport, "-p", "and now?")...); r.code != 0 || r.stdout != "Still hello.\n" {
		t.Fatalf("resume pi's export: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	msgs := requestMessages(t, p.server, 3)
	var texts []string
	for _, msg := range msgs[1:] {
		texts = append(texts, msg["role"].(string)+": "+contentText(msg["content"]))
	}
	if joined := strings.Join(texts, "|"); !strings.HasPrefix(joined, "user: what does greet.txt say?|assistant: Reading it.|tool: hello from the file") ||
		!strings.HasSuffix(joined, "assistant: It says **hello**.|user: and now?") {
		t.Fatalf("request after resuming pi's export: %s", joined)
	}
}

func fileLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}
