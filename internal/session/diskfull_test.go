package session

// A full disk, simulated by an injected write that stores part of the data and then fails.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fullDisk writes at most room bytes, then fails like write(2) on a full filesystem.
func fullDisk(room int) func(*os.File, []byte) (int, error) {
	return func(f *os.File, p []byte) (int, error) {
		if len(p) <= room {
			return f.Write(p)
		}
		n, _ := f.Write(p[:room])
		return n, syscall.ENOSPC
	}
}

func TestDiskFullKeepsFileValidAndEntryInMemory(t *testing.T) {
	dir := t.TempDir()
	s := Create("/proj", dir)
	defer s.Close()
	ok := mustAppend(t)
	ok(s.AppendMessage(userMsg("q1")))
	ok(s.AppendMessage(assistantMsg("a1")))
	path := s.SessionFile()
	before := must(os.ReadFile(path))

	s.mu.Lock()
	s.writeFn = fullDisk(10)
	s.mu.Unlock()
	id, err := s.AppendMessage(userMsg("this one does not fit"))
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), path) {
		t.Fatalf("append on a full disk = %v", err)
	}
	if id == "" || s.LeafID() != id {
		t.Fatal("the entry is not kept in the session")
	}
	eq(t, string(must(os.ReadFile(path))), string(before), "partial line removed")
	if err := s.Sync(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("sync with a pending entry on a full disk = %v", err)
	}
	ctx, _ := s.BuildContext()
	eqSlice(t, texts(t, ctx), []string{"q1", "a1", "this one does not fit"}, "context in memory")

	// space again: the pending entry is written first, then the new one, chained as in memory
	s.mu.Lock()
	s.writeFn = nil
	s.mu.Unlock()
	ok(s.AppendMessage(assistantMsg("a2")))
	after := must(os.ReadFile(path))
	if !bytes.HasPrefix(after, before) {
		t.Fatal("existing lines changed")
	}
	lines := strings.Split(strings.TrimSuffix(string(after[len(before):]), "\n"), "\n")
	eq(t, len(lines), 2, "written lines")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("invalid line %q", l)
		}
	}
	s.Close()
	s2, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	ctx, _ = s2.BuildContext()
	eqSlice(t, texts(t, ctx), []string{"q1", "a1", "this one does not fit", "a2"}, "reloaded")
}

func TestDiskFullOnFirstWrite(t *testing.T) {
	dir := t.TempDir()
	s := Create("/proj", dir)
	defer s.Close()
	s.writeFn = fullDisk(0)
	ok := mustAppend(t)
	ok(s.AppendModelChange("p", "m"))
	if _, err := s.AppendMessage(userMsg("q1")); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("first write = %v", err)
	}
	eq(t, len(must(os.ReadFile(s.SessionFile()))), 0, "nothing half-written")
	s.mu.Lock()
	s.writeFn = nil
	s.mu.Unlock()
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, s.SessionFile())
	eq(t, len(lines), 3, "header and both entries")
	if !strings.Contains(lines[0], `"type":"session"`) {
		t.Fatalf("first line %s", lines[0])
	}
}

func TestDiskFullAfterUnterminatedLastLineKeepsItSo(t *testing.T) {
	// a failed write that also had to terminate the last line (complete, but without its newline)
	// leaves the file exactly as it was
	path := filepath.Join(t.TempDir(), "unterminated.jsonl")
	orig := bytes.TrimSuffix(must(os.ReadFile(filepath.Join(testdataDir, "v3-branches.jsonl"))), []byte("\n"))
	must(0, os.WriteFile(path, orig, 0o600))
	s, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.writeFn = fullDisk(3)
	if _, err := s.AppendMessage(assistantMsg("x")); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("append = %v", err)
	}
	eq(t, string(must(os.ReadFile(path))), string(orig), "file unchanged")
	s.mu.Lock()
	s.writeFn = nil
	s.mu.Unlock()
	mustAppend(t)(s.AppendMessage(assistantMsg("y")))
	after := must(os.ReadFile(path))
	want := string(orig) + "\n"
	if !strings.HasPrefix(string(after), want) {
		t.Fatal("existing bytes changed")
	}
	added := strings.Split(strings.TrimSuffix(string(after[len(want):]), "\n"), "\n")
	eq(t, len(added), 2, "pending and new entry")
	validJSONL(t, after, "file after the retried append")
}
