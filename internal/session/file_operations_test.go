package session

// Port of pi's test/session-manager/file-operations.test.ts, adapted where pi-go deliberately differs:
// a file without a readable header is never truncated; a new session starts beside it.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const validHeader = `{"type":"session","id":"abc","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}`
const v3Header = `{"type":"session","version":3,"id":"abc","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}`
const userLine = `{"type":"message","id":"1","parentId":null,"timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"hi","timestamp":1}}`

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, path string) *Manager {
	t.Helper()
	s, err := Open(path, OpenOptions{Cwd: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenMissingFileStartsSessionAtThatPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nonexistent.jsonl")
	s := open(t, path)
	eq(t, s.SessionFile(), path, "path")
	eq(t, len(s.Entries()), 0, "entries")
	eq(t, s.Cwd(), "/work", "cwd")
	// The prompt is written before the model answers (pi 1.6): a process killed meanwhile keeps it.
	mustAppend(t)(s.AppendMessage(userMsg("q")))
	eq(t, len(readLines(t, path)), 2, "lines after the first prompt")
	mustAppend(t)(s.AppendMessage(assistantMsg("a")))
	eq(t, len(readLines(t, path)), 3, "lines")
}

func TestOpenEmptyFileAdoptsIt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "empty.jsonl")
	writeFile(t, path, "")
	s := open(t, path)
	eq(t, s.SessionFile(), path, "explicit path preserved")
	if s.SessionID() == "" || s.Header().Version != 3 {
		t.Fatalf("header = %+v", s.Header())
	}
	ok := mustAppend(t)
	ok(s.AppendMessage(userMsg("q")))
	ok(s.AppendMessage(assistantMsg("a")))
	id := s.SessionID()
	s.Close()
	lines := readLines(t, path)
	eq(t, len(lines), 3, "lines")
	if !strings.Contains(lines[0], `"id":"`+id+`"`) {
		t.Fatalf("header = %s", lines[0])
	}
	s2 := open(t, path)
	eq(t, s2.SessionID(), id, "reloaded id")
}

func TestOpenFileWithoutHeaderLeavesItAlone(t *testing.T) {
	for name, content := range map[string]string{
		"no-header": `{"type":"message","id":"abc","parentId":"orphaned","timestamp":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"test"}}` + "\n",
		"garbage":   "garbage content\n",
		"not json":  "not json\n",
		"array":     "[1,2]\n" + validHeader + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "bad.jsonl")
			writeFile(t, path, content)
			s := open(t, path)
			if s.SessionFile() == path || filepath.Dir(s.SessionFile()) != dir {
				t.Fatalf("session file = %s", s.SessionFile())
			}
			ws := s.Warnings()
			if len(ws) == 0 || !strings.Contains(ws[len(ws)-1].Message, "no readable session header") {
				t.Fatalf("warnings = %v", ws)
			}
			ok := mustAppend(t)
			ok(s.AppendMessage(userMsg("q")))
			ok(s.AppendMessage(assistantMsg("a")))
			got, _ := os.ReadFile(path)
			eq(t, string(got), content, "bad file untouched")
			eq(t, len(readLines(t, s.SessionFile())), 3, "new file lines")
		})
	}
}

func TestOpenValidFileAndMalformedLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "valid.jsonl")
	writeFile(t, path, validHeader+"\n"+userLine+"\n")
	s := open(t, path)
	eq(t, s.SessionID(), "abc", "id")
	eq(t, len(s.Entries()), 1, "entries")
	eq(t, s.Entries()[0].Type, TypeMessage, "type")

	mixed := filepath.Join(dir, "mixed.jsonl")
	content := v3Header + "\nnot valid json\n" + userLine + "\n"
	writeFile(t, mixed, content)
	s2 := open(t, mixed)
	eq(t, len(s2.Entries()), 1, "entries")
	ws := s2.Warnings()
	if len(ws) != 1 || ws[0].Line != 2 || !strings.Contains(ws[0].Message, "malformed JSON") {
		t.Fatalf("warnings = %v", ws)
	}
	mustAppend(t)(s2.AppendMessage(assistantMsg("a")))
	lines := readLines(t, mixed)
	eq(t, lines[1], "not valid json", "malformed line kept")
	eq(t, len(lines), 4, "lines")
}

func TestFindMostRecent(t *testing.T) {
	dir := t.TempDir()
	got, _, err := FindMostRecent(dir)
	if err != nil || got != "" {
		t.Fatalf("empty dir: %q, %v", got, err)
	}
	if got, _, err := FindMostRecent(filepath.Join(dir, "nonexistent")); err != nil || got != "" {
		t.Fatalf("missing dir: %q, %v", got, err)
	}
	writeFile(t, filepath.Join(dir, "file.txt"), "hello")
	writeFile(t, filepath.Join(dir, "file.json"), "{}")
	writeFile(t, filepath.Join(dir, "invalid.jsonl"), `{"type":"message"}`+"\n")
	writeFile(t, filepath.Join(dir, "noid.jsonl"), `{"type":"session","id":5}`+"\n")
	if got, _, _ := FindMostRecent(dir); got != "" {
		t.Fatalf("invalid files chosen: %s", got)
	}
	older := filepath.Join(dir, "older.jsonl")
	newer := filepath.Join(dir, "newer.jsonl")
	writeFile(t, older, `{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}`+"\n")
	if got, _, _ := FindMostRecent(dir); got != older {
		t.Fatalf("single valid = %s", got)
	}
	writeFile(t, newer, `{"type":"session","id":"new","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}`+"\n")
	base := time.Now().Add(-time.Hour)
	os.Chtimes(older, base, base)
	os.Chtimes(newer, base.Add(time.Minute), base.Add(time.Minute))
	// the invalid file is the newest of all and is skipped
	os.Chtimes(filepath.Join(dir, "invalid.jsonl"), base.Add(time.Hour), base.Add(time.Hour))
	if got, _, _ := FindMostRecent(dir); got != newer {
		t.Fatalf("most recent = %s", got)
	}
}

func TestContinueRecent(t *testing.T) {
	dir := t.TempDir()
	s, err := ContinueRecent("/proj", dir)
	if err != nil {
		t.Fatal(err)
	}
	ok := mustAppend(t)
	ok(s.AppendMessage(userMsg("q")))
	ok(s.AppendMessage(assistantMsg("a")))
	path := s.SessionFile()
	s.Close()
	s2, err := ContinueRecent("/proj", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	eq(t, s2.SessionFile(), path, "continued file")
	eq(t, len(s2.Entries()), 2, "entries")
}

func TestHeaderVersionAsJavaScriptReadsIt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v.jsonl")
	content := `{"type":"session","version":3.0,"id":"abc","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}` + "\n" + userLine + "\n"
	writeFile(t, path, content)
	s := open(t, path)
	eq(t, s.Header().Version, 3, "version")
	eq(t, s.Entries()[0].ID, "1", "not migrated")
	if _, err := os.Stat(path + ".bak"); !os.IsNotExist(err) {
		t.Fatal("migrated a v3 file")
	}
	for line, ok := range map[string]bool{
		`{"type":"session","id":"x"}`:               true,
		`{"type":"session","id":5}`:                 false,
		`{"type":"session","version":"3","id":"x"}`: true,
		`{"type":"sessions","id":"x"}`:              false,
		`[]`:                                        false,
	} {
		if _, got := parseHeader([]byte(line)); got != ok {
			t.Errorf("parseHeader(%s) = %v", line, got)
		}
	}
	h, _ := parseHeader([]byte(`{"type":"session","version":"3","id":"x"}`))
	eq(t, h.Version, 3, "a numeric string compares as a number in JavaScript")
	h, _ = parseHeader([]byte(`{"type":"session","version":"three","id":"x"}`))
	eq(t, h.Version, 1, "not a number counts as absent")
}
