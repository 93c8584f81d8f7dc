package session

// Port of pi's test/session-manager/migration.test.ts, plus the file-level migration.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func migrate(t *testing.T, lines ...string) []map[string]any {
	t.Helper()
	in := make([][]byte, len(lines))
	for i, l := range lines {
		in[i] = []byte(l)
	}
	out, err := migrateLines(in)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for _, l := range out {
		var r map[string]any
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestMigrateV1AddsIDsAndParents(t *testing.T) {
	recs := migrate(t,
		`{"type":"session","id":"sess-1","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"hi","timestamp":1}}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:02Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"api":"test","provider":"test","model":"test","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0},"stopReason":"stop","timestamp":2}}`,
	)
	eq(t, recs[0]["version"], any(3.0), "version")
	id1, _ := recs[1]["id"].(string)
	id2, _ := recs[2]["id"].(string)
	eq(t, len(id1), 8, "id1 length")
	eq(t, len(id2), 8, "id2 length")
	eq(t, recs[1]["parentId"], any(nil), "first parent")
	eq(t, recs[2]["parentId"], any(id1), "second parent")
}

func TestMigrateIsIdempotentForV2(t *testing.T) {
	recs := migrate(t,
		`{"type":"session","id":"sess-1","version":2,"timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}`,
		`{"type":"message","id":"abc12345","parentId":null,"timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"hi","timestamp":1}}`,
		`{"type":"message","id":"def67890","parentId":"abc12345","timestamp":"2025-01-01T00:00:02Z","message":{"role":"hookMessage","customType":"x","content":"c","display":true,"timestamp":2}}`,
	)
	eq(t, recs[1]["id"], any("abc12345"), "id1")
	eq(t, recs[2]["id"], any("def67890"), "id2")
	eq(t, recs[2]["parentId"], any("abc12345"), "parent")
	eq(t, recs[2]["message"].(map[string]any)["role"], any("custom"), "hookMessage renamed")
	eq(t, recs[0]["version"], any(3.0), "version")
}

func TestMigrateV1CompactionIndexAndKeyOrder(t *testing.T) {
	in := [][]byte{
		[]byte(`{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}`),
		[]byte(`{"type":"message","timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"a","timestamp":1}}`),
		[]byte(`not json`),
		[]byte(`{"type":"message","timestamp":"2025-01-01T00:00:02Z","message":{"role":"user","content":"b","timestamp":2}}`),
		[]byte(`{"type":"compaction","timestamp":"2025-01-01T00:00:03Z","summary":"S","firstKeptEntryIndex":2,"tokensBefore":5}`),
	}
	out, err := migrateLines(in)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, string(out[2]), "not json", "malformed line kept")
	var second, comp map[string]any
	json.Unmarshal(out[3], &second)
	json.Unmarshal(out[4], &comp)
	// index 2 counts parsed entries with the header at 0, as pi does: the second message
	eq(t, comp["firstKeptEntryId"], second["id"], "firstKeptEntryId")
	if _, ok := comp["firstKeptEntryIndex"]; ok {
		t.Fatal("firstKeptEntryIndex kept")
	}
	// new keys are appended as JavaScript assignment does; existing values keep their bytes
	if !strings.HasPrefix(string(out[1]), `{"type":"message","timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"a","timestamp":1},"id":"`) {
		t.Fatalf("key order: %s", out[1])
	}
	if !strings.HasPrefix(string(out[0]), `{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp","version":3}`) {
		t.Fatalf("header: %s", out[0])
	}
}

func TestOpenMigratesFileKeepingBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "old.jsonl")
	orig := `{"type":"session","id":"old-1","timestamp":"2025-01-01T00:00:00Z","cwd":"/proj"}
{"type":"message","timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"hi","timestamp":1}}
{"type":"message","timestamp":"2025-01-01T00:00:02Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"api":"test","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0},"stopReason":"stop","timestamp":2}}
`
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bak, err := os.ReadFile(path + ".bak")
	if err != nil || string(bak) != orig {
		t.Fatalf("backup = %q, %v", bak, err)
	}
	eq(t, s.Header().Version, 3, "version")
	eq(t, s.Cwd(), "/proj", "cwd")
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eqSlice(t, texts(t, ctx), []string{"hi", "hello"}, "context")
	eq(t, *ctx.Model, ModelRef{"p", "m"}, "model")
	ws := s.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0].Message, "migrated from session format v1 to v3") {
		t.Fatalf("warnings = %v", ws)
	}
	if _, err := os.Stat(path + ".migrating"); !os.IsNotExist(err) {
		t.Fatal("temporary file left behind")
	}
	// the lock moved with the new file
	if _, err := Open(path, OpenOptions{}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second open = %v", err)
	}
	// appends go to the migrated file
	if _, err := s.AppendMessage(userMsg("more")); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, path)
	eq(t, len(lines), 4, "lines")
	if !strings.Contains(lines[0], `"version":3`) {
		t.Fatalf("header not migrated: %s", lines[0])
	}
}

func TestMigrateV1KeepsExistingIDs(t *testing.T) {
	recs := migrate(t,
		`{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/tmp"}`,
		`{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"a","timestamp":1}}`,
		`{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2025-01-01T00:00:02Z","message":{"role":"user","content":"b","timestamp":2}}`,
		`{"type":"message","timestamp":"2025-01-01T00:00:03Z","message":{"role":"user","content":"c","timestamp":3}}`,
	)
	eq(t, recs[1]["id"], any("aaaa0001"), "kept id")
	eq(t, recs[2]["parentId"], any("aaaa0001"), "kept parent")
	eq(t, recs[3]["parentId"], any("aaaa0002"), "new entry chained to the previous")
}

// A torn last line of an old file is left out of the migrated file (it stays in the backup, which
// holds the original bytes), so the migrated file is valid JSONL.
func TestMigrationLeavesTornTailInTheBackupOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.jsonl")
	orig := `{"type":"session","id":"old-1","timestamp":"2025-01-01T00:00:00Z","cwd":"/proj"}
{"type":"message","timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"hi","timestamp":1}}
{"type":"message","timestamp":"2025-01-01T00:00:02Z","message":{"role":"assis`
	must(0, os.WriteFile(path, []byte(orig), 0o600))
	s, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	eq(t, string(must(os.ReadFile(path+".bak"))), orig, "backup")
	validJSONL(t, must(os.ReadFile(path)), "migrated file")
	eq(t, len(s.Entries()), 1, "entries")
	ws := s.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0].Message, "incomplete last line") || !strings.Contains(ws[0].Message, path+".bak") {
		t.Fatalf("warnings = %v", ws)
	}
}
