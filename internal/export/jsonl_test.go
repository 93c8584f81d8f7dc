package export

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/session"
)

// The JSONL export is the active branch as a session file: pi's header, then the branch's lines
// byte for byte; the side branch is left out, and pi-go reopens it without a warning.
func TestJSONLExportIsTheActiveBranch(t *testing.T) {
	m := openFixture(t, "rich.jsonl")
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, FromManager(m), fixedNow); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	wantHeader := `{"type":"session","version":3,"id":"01a229fb-4335-75f7-a376-84b2698e98db","timestamp":"2026-12-01T12:00:00.000Z","cwd":"/home/user/proj"}`
	if lines[0] != wantHeader {
		t.Fatalf("header %s\nwant   %s", lines[0], wantHeader)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "rich.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(src)), "\n")[1:] {
		if !strings.Contains(l, `"id":"b0000001"`) {
			want = append(want, l)
		}
	}
	if got := lines[1:]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("entries differ:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("line %d is not JSON: %s", i+1, l)
		}
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := session.Open(out, session.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if w := back.Warnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	if back.LeafID() != "a0000015" || len(back.Entries()) != 15 || back.SessionID() != m.SessionID() {
		t.Fatalf("reopened: leaf %s, %d entries, id %s", back.LeafID(), len(back.Entries()), back.SessionID())
	}
}

// Export files are written whole or not at all, at the path asked for (relative to cwd).
func TestJSONLFileWritesWhereAsked(t *testing.T) {
	m := openFixture(t, "rich.jsonl")
	dir := t.TempDir()
	got, err := JSONLFile(FromManager(m), "sub/out.jsonl", dir, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	if got != filepath.Join(dir, "sub", "out.jsonl") {
		t.Fatalf("wrote %s", got)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
	if len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	if name := DefaultJSONLPath(fixedNow); name != "session-2026-12-01T12-00-00-000Z.jsonl" {
		t.Fatalf("default name %s", name)
	}
	if name := DefaultHTMLPath("/x/2026_abc.jsonl"); name != "pi-session-2026_abc.html" {
		t.Fatalf("default HTML name %s", name)
	}
}

// A leaf newer than the entries taken (an export while the agent appends) ends the branch at the
// newest entry taken, rather than leaving no branch at all.
func TestBranchWithALeafNotYetTaken(t *testing.T) {
	src := FromManager(openFixture(t, "rich.jsonl"))
	src.LeafID = "ffffffff"
	if b := src.branch(); len(b) != 15 || b[len(b)-1].ID != "a0000015" {
		t.Fatalf("branch of %d entries", len(b))
	}
}
