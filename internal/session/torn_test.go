package session

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validJSONL fails the test unless data is empty or complete lines, each one valid JSON (what jq
// and other strict readers need).
func validJSONL(t *testing.T, data []byte, what string) {
	t.Helper()
	if len(data) == 0 {
		return
	}
	if data[len(data)-1] != '\n' {
		t.Fatalf("%s: does not end in a newline: ...%q", what, data[max(0, len(data)-80):])
	}
	for i, l := range bytes.Split(data[:len(data)-1], []byte("\n")) {
		if !json.Valid(l) {
			t.Fatalf("%s: line %d is not valid JSON: %.80q", what, i+1, l)
		}
	}
}

// sidecars lists the torn-line files beside path.
func sidecars(t *testing.T, path string) []string {
	t.Helper()
	found, err := filepath.Glob(path + tornSuffix + "*")
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// tornSession writes a valid session and returns its path and bytes.
func tornSession(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	s := Create("/proj", dir)
	ok := mustAppend(t)
	ok(s.AppendMessage(userMsg("question")))
	ok(s.AppendMessage(assistantMsg("answer")))
	path := s.SessionFile()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path, must(os.ReadFile(path))
}

func TestTornTailMovesToSidecarAndFileStaysValidJSONL(t *testing.T) {
	path, valid := tornSession(t, t.TempDir())
	fragment := []byte(`{"type":"message","id":"deadbeef","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"half a li`)
	if err := os.WriteFile(path, append(append([]byte(nil), valid...), fragment...), 0o600); err != nil {
		t.Fatal(err)
	}

	s, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, string(must(os.ReadFile(path))), string(valid), "session file after open (the torn tail cut off)")
	side := sidecars(t, path)
	if len(side) != 1 {
		t.Fatalf("sidecars = %v, want one", side)
	}
	eq(t, string(must(os.ReadFile(side[0]))), string(fragment), "sidecar holds the fragment byte for byte")
	if st := must(os.Stat(side[0])); st.Mode().Perm() != 0o600 {
		t.Fatalf("sidecar mode %v, want 0600 like the session", st.Mode().Perm())
	}
	ws := s.Warnings()
	if len(ws) != 1 || ws[0].Line != 4 || !strings.Contains(ws[0].Message, side[0]) || !strings.Contains(ws[0].Message, "interrupted write") {
		t.Fatalf("warnings = %v, want line 4 naming %s", ws, side[0])
	}
	eq(t, len(s.Entries()), 2, "entries")
	mustAppend(t)(s.AppendMessage(userMsg("after the crash")))
	mustAppend(t)(s.AppendMessage(assistantMsg("still here")))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	after := must(os.ReadFile(path))
	if !bytes.HasPrefix(after, valid) {
		t.Fatal("complete lines changed")
	}
	validJSONL(t, after, "session file after appends")

	s2, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	eq(t, len(s2.Warnings()), 0, "warnings on the next open")
	eq(t, len(s2.Entries()), 4, "entries on the next open")
	eq(t, len(sidecars(t, path)), 1, "sidecars after the next open")
}

// A complete last entry that only lacks its newline is no torn line: it stays and is terminated.
func TestUnterminatedCompleteLastLineIsKept(t *testing.T) {
	path, valid := tornSession(t, t.TempDir())
	if err := os.WriteFile(path, valid[:len(valid)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, len(s.Warnings()), 0, "warnings")
	eq(t, len(s.Entries()), 2, "entries")
	eq(t, len(sidecars(t, path)), 0, "sidecars")
	mustAppend(t)(s.AppendMessage(assistantMsg("next")))
	s.Close()
	after := must(os.ReadFile(path))
	if !bytes.HasPrefix(after, valid) {
		t.Fatal("complete lines changed")
	}
	validJSONL(t, after, "session file")
}

// Files without a readable header are never rewritten, torn tail or not: pi 1.6 refuses them, pi-go
// starts a new session beside them.
func TestTornFileWithoutHeaderIsLeftAlone(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"torn-header.jsonl":           `{"type":"session","version":3,"id":"01`,
		"only-garbage.jsonl":          "\x00\x01binary\xff\xfe",
		"garbage-then-torn.jsonl":     "not json\n" + `{"type":"message","id":"a`,
		"entry-then-torn.jsonl":       `{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"x"}}` + "\n{\"type\":",
		"header-not-first-torn.jsonl": "[1,2]\n" + `{"type":"mess`,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(path, OpenOptions{Cwd: "/proj"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.SessionFile() == path {
			t.Fatalf("%s: a file without a header was adopted", name)
		}
		s.Close()
		eq(t, string(must(os.ReadFile(path))), content, name+" untouched")
		eq(t, len(sidecars(t, path)), 0, name+" sidecars")
	}
}

// When the sidecar cannot be written, nothing is cut: the torn line stays (as before) and the
// warning says why.
func TestTornTailStaysWhenTheSidecarCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	path, valid := tornSession(t, dir)
	// a session name so long that the sidecar's name exceeds NAME_MAX (even root cannot create it)
	long := filepath.Join(dir, strings.Repeat("s", 240)+".jsonl")
	must(0, os.Rename(path, long))
	torn := append(append([]byte(nil), valid...), `{"type":"message","id":"x`...)
	must(0, os.WriteFile(long, torn, 0o600))

	s, err := Open(long, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, string(must(os.ReadFile(long))), string(torn), "file untouched")
	ws := s.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0].Message, "stays in the file") || !strings.Contains(ws[0].Message, "file name too long") {
		t.Fatalf("warnings = %v", ws)
	}
	mustAppend(t)(s.AppendMessage(assistantMsg("next")))
	s.Close()
	after := must(os.ReadFile(long))
	if !bytes.HasPrefix(after, append(torn, '\n')) {
		t.Fatal("the torn line was not kept and terminated")
	}
}
