package session

// pi's format, written by hand from the reference (testdata/sessions/), loaded, rebuilt and appended to.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

const testdataDir = "../../testdata/sessions"

// openCopy copies a testdata file into a temp dir and opens it.
func openCopy(t *testing.T, name string) (*Manager, string, []byte) {
	t.Helper()
	orig, err := os.ReadFile(filepath.Join(testdataDir, name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path, orig
}

// checkAppendKeepsBytes appends entries of every kind and checks that the file is the original bytes
// followed by complete lines that are valid JSON, each a child of the previous leaf.
func checkAppendKeepsBytes(t *testing.T, s *Manager, path string, orig []byte) {
	t.Helper()
	ok := mustAppend(t)
	leaf := s.LeafID()
	ok(s.AppendMessage(userMsg("appended")))
	ok(s.AppendMessage(assistantMsg("appended reply")))
	ok(s.AppendThinkingLevelChange("low"))
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	prefix := orig
	if len(orig) > 0 && orig[len(orig)-1] != '\n' {
		prefix = append(append([]byte(nil), orig...), '\n')
	}
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("existing bytes changed:\n%q\nnow starts\n%q", orig, got[:min(len(got), len(prefix))])
	}
	added := strings.Split(strings.TrimSuffix(string(got[len(prefix):]), "\n"), "\n")
	eq(t, len(added), 3, "appended lines")
	parent := leaf
	for _, l := range added {
		var rec struct {
			ID       string  `json:"id"`
			ParentID *string `json:"parentId"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("appended line %q: %v", l, err)
		}
		p := ""
		if rec.ParentID != nil {
			p = *rec.ParentID
		}
		eq(t, p, parent, "appended parent")
		parent = rec.ID
	}
}

func TestTestdataPiToolRun(t *testing.T) {
	s, path, orig := openCopy(t, "pi-0.73.1-tool-run.jsonl")
	eq(t, len(s.Warnings()), 0, "warnings")
	eq(t, s.SessionID(), "01a229fb-4335-75f7-a376-84b2698e98db", "id")
	eq(t, s.Cwd(), "/home/user/proj", "cwd")
	eq(t, len(s.Entries()), 10, "entries")
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eq(t, len(ctx.Messages), 8, "messages")
	eq(t, *ctx.Model, ModelRef{"mock", "mock-model"}, "model")
	eq(t, ctx.ThinkingLevel, provider.ThinkingOff, "thinking")
	// every message re-encodes to the bytes pi wrote
	lines := bytes.Split(bytes.TrimSuffix(orig, []byte("\n")), []byte("\n"))
	for i, e := range s.Entries() {
		if e.Type != TypeMessage {
			continue
		}
		m, _ := e.Message()
		line, _, _, err := messageLine(e.ID, e.ParentID, e.Timestamp, m)
		if err != nil || !bytes.Equal(line, lines[i+1]) {
			t.Fatalf("entry %s re-encodes as\n%s\nnot\n%s (%v)", e.ID, line, lines[i+1], err)
		}
	}
	checkAppendKeepsBytes(t, s, path, orig)
}

func TestTestdataCompaction(t *testing.T) {
	s, path, orig := openCopy(t, "v3-compaction.jsonl")
	eq(t, len(s.Warnings()), 0, "warnings")
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eqSlice(t, texts(t, ctx), []string{"## Goal\nUnderstand the project.", "now list src", "src has main.go", "what next?", "Write tests."}, "context")
	cs := ctx.Messages[0].(*provider.CompactionSummaryMessage)
	eq(t, cs.TokensBefore, 5210, "tokensBefore")
	eq(t, cs.Timestamp, int64(1746093900000), "summary time")
	eq(t, ctx.ThinkingLevel, provider.ThinkingHigh, "thinking")
	eq(t, *ctx.Model, ModelRef{"local", "qwen3"}, "model")
	c := s.Entry("a100000a")
	eq(t, string(c.Details), `{"readFiles":["README.md"],"modifiedFiles":[]}`, "details")
	eq(t, c.FromHook, false, "fromHook")
	// without the compaction, the branch before it
	if err := s.Branch("a1000008"); err != nil {
		t.Fatal(err)
	}
	ctx, _ = s.BuildContext()
	eq(t, len(ctx.Messages), 6, "messages before compaction")
	eq(t, *ctx.Model, ModelRef{"openai", "gpt-4o"}, "model before")
	eq(t, ctx.ThinkingLevel, provider.ThinkingOff, "thinking before")
	s.Branch("a100000d")
	checkAppendKeepsBytes(t, s, path, orig)
}

func TestTestdataBranches(t *testing.T) {
	s, path, orig := openCopy(t, "v3-branches.jsonl")
	eq(t, len(s.Warnings()), 0, "warnings")
	eq(t, s.SessionName(), "Approach hunt", "name")
	eq(t, s.Label("b0000002"), "", "cleared label")
	eq(t, s.Label("b0000003"), "dead end", "label")
	eq(t, s.LeafID(), "b000000b", "leaf is the last line")
	ctx, _ := s.BuildContext()
	got := texts(t, ctx)
	eq(t, len(got), 5, "messages")
	eq(t, got[3], "try approach B", "after summary")
	if !strings.HasSuffix(got[2], "Tried A; it failed.") {
		t.Fatalf("branch summary = %q", got[2])
	}
	tree := s.Tree()
	eq(t, len(tree), 1, "roots")
	n2 := tree[0].Children[0]
	eq(t, n2.Entry.ID, "b0000002", "node 2")
	eqSlice(t, childIDs(n2), []string{"b0000003", "b0000006"}, "branches")
	eq(t, n2.Children[0].Label, "dead end", "label on tree node")
	eqSlice(t, ids(s.Children("b0000002")), []string{"b0000003", "b0000006"}, "children")

	// fork the abandoned branch: labels on its path are re-created, parentSession set, file written at once
	newPath, err := s.CreateBranchedSession("b0000004")
	if err != nil {
		t.Fatal(err)
	}
	recs := recordsOf(t, newPath)
	eq(t, recs[0]["parentSession"], any(path), "parentSession")
	eq(t, len(recs), 1+4+1, "header, path, one label")
	eq(t, recs[5]["type"], any("label"), "label entry")
	eq(t, recs[5]["targetId"], any("b0000003"), "label target")
	eq(t, recs[5]["timestamp"], any("2025-06-02T08:00:09.000Z"), "label keeps its time")
	eq(t, recs[5]["parentId"], any("b0000004"), "label after path")
	now, _ := os.ReadFile(path)
	eq(t, string(now), string(orig), "source file untouched by the fork")
}

func TestTestdataCustomAndUnknown(t *testing.T) {
	s, path, orig := openCopy(t, "v3-custom.jsonl")
	eq(t, len(s.Warnings()), 0, "warnings")
	eq(t, s.Header().ParentSession != "", true, "parentSession")
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range ctx.Messages {
		roles = append(roles, m.Role())
	}
	eqSlice(t, roles, []string{"user", "assistant", "toolResult", "assistant", "custom", "custom", "bashExecution", "bashExecution", "user", "assistant"}, "roles")
	um := ctx.Messages[0].(*provider.UserMessage)
	eq(t, um.Content[1].Type, provider.ContentImage, "image block")
	tr := ctx.Messages[2].(*provider.ToolResultMessage)
	eq(t, tr.Content[1].MimeType, "image/png", "tool image")
	a := ctx.Messages[3].(*provider.AssistantMessage)
	eq(t, string(a.Extra["someFutureField"]), `{"x":[1,2]}`, "unknown message field kept")
	if !strings.Contains(provider.TextOf(a.Content, ""), "\u2028") {
		t.Fatal("U+2028 lost")
	}
	cm := ctx.Messages[4].(*provider.CustomMessage)
	eq(t, cm.ContentIsString, true, "string content")
	eq(t, cm.Display, true, "display")
	eq(t, cm.Timestamp, int64(1751533206000), "custom message time")
	hidden := ctx.Messages[5].(*provider.CustomMessage)
	eq(t, hidden.Display, false, "hidden")
	eq(t, hidden.Details.(map[string]any)["source"], any("ext"), "details")
	eq(t, ctx.Messages[7].(*provider.BashExecutionMessage).ExcludeFromContext, true, "excluded bash")
	eq(t, ctx.Messages[9].(*provider.AssistantMessage).StopReason, provider.StopReasonAborted, "aborted")
	fx := s.Entry("c0000009")
	eq(t, fx.Type, "future_entry", "unknown type kept in the tree")
	raw, _ := fx.Raw()
	eq(t, string(raw), `{"type":"future_entry","id":"c0000009","parentId":"c0000008","timestamp":"2025-07-03T09:00:08.000Z","payload":{"a":[1,2,3]}}`, "raw line")
	eq(t, string(s.Entry("c0000006").Data), `{"items":["a","b"]}`, "custom data")
	checkAppendKeepsBytes(t, s, path, orig)

	// a fork copies the lines verbatim, unknown types and fields included
	newPath, err := s.CreateBranchedSession("c000000d")
	if err != nil {
		t.Fatal(err)
	}
	forked, _ := os.ReadFile(newPath)
	for _, l := range bytes.Split(orig, []byte("\n"))[1:] {
		if !bytes.Contains(forked, l) {
			t.Fatalf("fork lost line %s", l)
		}
	}
}

func TestTestdataV1AndV2Migrate(t *testing.T) {
	s, path, orig := openCopy(t, "v1.jsonl")
	bak, _ := os.ReadFile(path + ".bak")
	eq(t, string(bak), string(orig), "backup")
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eqSlice(t, texts(t, ctx), []string{"Old summary", "second", "two", "third"}, "v1 context")
	eq(t, *ctx.Model, ModelRef{"anthropic", "claude-3-5-sonnet"}, "v1 model")
	for _, e := range s.Entries() {
		eq(t, len(e.ID), 8, "migrated id")
	}

	s2, _, _ := openCopy(t, "v2.jsonl")
	ctx, _ = s2.BuildContext()
	eqSlice(t, texts(t, ctx), []string{"hi there", "Hook says hello", "hello"}, "v2 context")
	eq(t, ctx.Messages[1].Role(), provider.RoleCustom, "hookMessage is custom")
	eq(t, ctx.ThinkingLevel, provider.ThinkingMedium, "thinking")
	eq(t, s2.Entry("d0000003").Role, provider.RoleCustom, "role on the entry")
}

func TestTestdataTornTail(t *testing.T) {
	s, path, orig := openCopy(t, "torn-tail.jsonl")
	complete := orig[:bytes.LastIndexByte(orig, '\n')+1]
	side := sidecars(t, path)
	if len(side) != 1 {
		t.Fatalf("sidecars = %v", side)
	}
	eq(t, string(must(os.ReadFile(side[0]))), string(orig[len(complete):]), "the torn line, in its sidecar")
	ws := s.Warnings()
	if len(ws) != 2 || ws[0].Line != 4 || !strings.Contains(ws[0].Message, "kept in the file") ||
		ws[1].Line != 7 || !strings.Contains(ws[1].Message, "moved to "+side[0]) {
		t.Fatalf("warnings = %v", ws)
	}
	eqSlice(t, ids(s.Entries()), []string{"e0000001", "e0000002", "e0000004", "e0000005"}, "entries")
	ctx, _ := s.BuildContext()
	eqSlice(t, texts(t, ctx), []string{"hello", "hi", "still here", "good"}, "context")
	checkAppendKeepsBytes(t, s, path, complete)
	s.Close()
	// the malformed line in the middle is not the torn tail: it stays, skipped
	s2, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	eq(t, len(s2.Entries()), 7, "entries after reload")
	eq(t, len(s2.Warnings()), 1, "warnings after reload")
}

// A file large enough to be parsed on several CPUs gives the same entries, line numbers and warnings
// as a line-by-line reading.
func TestParallelLoadMatchesFileOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 12 MB session")
	}
	dir := t.TempDir()
	path := writeBenchSession(t, dir, 1000, 0, 7)
	lines := readLines(t, path)
	// a malformed line near the middle, a duplicate of an early entry near the end, a torn tail
	mid := len(lines) / 2
	withBad := append(append(append([]string{}, lines[:mid]...), "garbage in the middle"), lines[mid:]...)
	withBad = append(withBad, lines[3])
	content := strings.Join(withBad, "\n") + "\n" + lines[len(lines)-1][:40]
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws := s.Warnings()
	if len(ws) != 3 || ws[0].Line != mid+1 || ws[1].Line != len(withBad) || ws[2].Line != len(withBad)+1 {
		t.Fatalf("warnings = %v (want lines %d, %d, %d)", ws, mid+1, len(withBad), len(withBad)+1)
	}
	es := s.Entries()
	eq(t, len(es), len(lines)-1, "entries")
	for i, e := range es {
		var rec struct {
			ID string `json:"id"`
		}
		json.Unmarshal([]byte(lines[i+1]), &rec)
		if e.ID != rec.ID {
			t.Fatalf("entry %d is %s, want %s", i, e.ID, rec.ID)
		}
	}
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eq(t, len(ctx.Messages), 4000, "messages")
}

func TestUsageWithoutDecoding(t *testing.T) {
	s, _, _ := openCopy(t, "v3-compaction.jsonl")
	total := s.TotalUsage()
	eq(t, total.Input, 400, "input of the four assistant messages")
	eq(t, total.Output, 40, "output")
	for _, e := range s.Entries() {
		if e.Type == TypeMessage && e.cached() != nil {
			t.Fatalf("entry %s was decoded", e.ID)
		}
	}
	u, ok := s.Entry("a1000004").Usage()
	if !ok || u.TotalTokens != 110 {
		t.Fatalf("usage = %+v, %v", u, ok)
	}
	if _, ok := s.Entry("a1000003").Usage(); ok {
		t.Fatal("a user message has usage")
	}
	ok2 := mustAppend(t)
	a := assistantMsg("x")
	a.Usage = provider.Usage{Input: 5, Output: 1}
	ok2(s.AppendMessage(a))
	eq(t, s.TotalUsage().Input, 405, "after an append")
}
