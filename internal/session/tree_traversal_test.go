package session

// Port of pi's test/session-manager/tree-traversal.test.ts.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func TestAppendChainsParentIDs(t *testing.T) {
	s := InMemory("/tmp")
	ok := mustAppend(t)
	id1 := ok(s.AppendMessage(userMsg("first")))
	id2 := ok(s.AppendMessage(assistantMsg("second")))
	id3 := ok(s.AppendMessage(userMsg("third")))
	es := s.Entries()
	eq(t, len(es), 3, "entries")
	eq(t, es[0].ID, id1, "id1")
	eq(t, es[0].ParentID, "", "root parent")
	eq(t, es[0].Type, TypeMessage, "type")
	eq(t, es[1].ParentID, id1, "parent of 2")
	eq(t, es[2].ID, id3, "id3")
	eq(t, es[2].ParentID, id2, "parent of 3")
}

func TestAppendOtherEntryTypesIntegrate(t *testing.T) {
	ok := mustAppend(t)
	t.Run("thinking level", func(t *testing.T) {
		s := InMemory("/tmp")
		msgID := ok(s.AppendMessage(userMsg("hello")))
		thID := ok(s.AppendThinkingLevelChange("high"))
		ok(s.AppendMessage(assistantMsg("response")))
		es := s.Entries()
		eq(t, es[1].Type, TypeThinkingLevelChange, "type")
		eq(t, es[1].ID, thID, "id")
		eq(t, es[1].ParentID, msgID, "parent")
		eq(t, es[1].ThinkingLevel, "high", "level")
		eq(t, es[2].ParentID, thID, "next parent")
	})
	t.Run("model change", func(t *testing.T) {
		s := InMemory("/tmp")
		msgID := ok(s.AppendMessage(userMsg("hello")))
		mID := ok(s.AppendModelChange("openai", "gpt-4"))
		ok(s.AppendMessage(assistantMsg("response")))
		es := s.Entries()
		eq(t, es[1].ID, mID, "id")
		eq(t, es[1].ParentID, msgID, "parent")
		eq(t, es[1].Provider, "openai", "provider")
		eq(t, es[1].ModelID, "gpt-4", "model")
		eq(t, es[2].ParentID, mID, "next parent")
	})
	t.Run("compaction", func(t *testing.T) {
		s := InMemory("/tmp")
		id1 := ok(s.AppendMessage(userMsg("1")))
		id2 := ok(s.AppendMessage(assistantMsg("2")))
		cID := ok(s.AppendCompaction("summary", id1, 1000, nil, false, nil))
		ok(s.AppendMessage(userMsg("3")))
		es := s.Entries()
		c := es[2]
		eq(t, c.ID, cID, "id")
		eq(t, c.ParentID, id2, "parent")
		eq(t, c.Summary, "summary", "summary")
		eq(t, c.FirstKeptEntryID, id1, "first kept")
		eq(t, c.TokensBefore, 1000, "tokens before")
		eq(t, es[3].ParentID, cID, "next parent")
	})
	t.Run("custom entry", func(t *testing.T) {
		s := InMemory("/tmp")
		msgID := ok(s.AppendMessage(userMsg("hello")))
		cID := ok(s.AppendCustomEntry("my_data", map[string]string{"key": "value"}))
		ok(s.AppendMessage(assistantMsg("response")))
		es := s.Entries()
		c := es[1]
		eq(t, c.ID, cID, "id")
		eq(t, c.ParentID, msgID, "parent")
		eq(t, c.CustomType, "my_data", "custom type")
		eq(t, string(c.Data), `{"key":"value"}`, "data")
		eq(t, es[2].ParentID, cID, "next parent")
	})
}

func TestLeafAdvances(t *testing.T) {
	ok := mustAppend(t)
	s := InMemory("/tmp")
	eq(t, s.LeafID(), "", "initial leaf")
	id1 := ok(s.AppendMessage(userMsg("1")))
	eq(t, s.LeafID(), id1, "leaf")
	id2 := ok(s.AppendMessage(assistantMsg("2")))
	eq(t, s.LeafID(), id2, "leaf")
	id3 := ok(s.AppendThinkingLevelChange("high"))
	eq(t, s.LeafID(), id3, "leaf")
}

func TestGetBranchPath(t *testing.T) {
	ok := mustAppend(t)
	s := InMemory("/tmp")
	eq(t, len(s.Path("")), 0, "empty path")
	id1 := ok(s.AppendMessage(userMsg("1")))
	eqSlice(t, ids(s.Path("")), []string{id1}, "single")
	id2 := ok(s.AppendMessage(assistantMsg("2")))
	id3 := ok(s.AppendThinkingLevelChange("high"))
	id4 := ok(s.AppendMessage(userMsg("3")))
	eqSlice(t, ids(s.Path("")), []string{id1, id2, id3, id4}, "full path")
	eqSlice(t, ids(s.Path(id2)), []string{id1, id2}, "path to id2")
}

func childIDs(n *TreeNode) []string {
	var out []string
	for _, c := range n.Children {
		out = append(out, c.Entry.ID)
	}
	sort.Strings(out)
	return out
}

func sorted(s ...string) []string { sort.Strings(s); return s }

func TestGetTree(t *testing.T) {
	ok := mustAppend(t)
	t.Run("empty", func(t *testing.T) {
		eq(t, len(InMemory("/tmp").Tree()), 0, "roots")
	})
	t.Run("linear", func(t *testing.T) {
		s := InMemory("/tmp")
		id1 := ok(s.AppendMessage(userMsg("1")))
		id2 := ok(s.AppendMessage(assistantMsg("2")))
		id3 := ok(s.AppendMessage(userMsg("3")))
		tree := s.Tree()
		eq(t, len(tree), 1, "roots")
		eq(t, tree[0].Entry.ID, id1, "root")
		eqSlice(t, childIDs(tree[0]), []string{id2}, "children of 1")
		eqSlice(t, childIDs(tree[0].Children[0]), []string{id3}, "children of 2")
		eq(t, len(tree[0].Children[0].Children[0].Children), 0, "leaf children")
	})
	t.Run("branch", func(t *testing.T) {
		s := InMemory("/tmp")
		id1 := ok(s.AppendMessage(userMsg("1")))
		id2 := ok(s.AppendMessage(assistantMsg("2")))
		id3 := ok(s.AppendMessage(userMsg("3")))
		if err := s.Branch(id2); err != nil {
			t.Fatal(err)
		}
		id4 := ok(s.AppendMessage(userMsg("4-branch")))
		tree := s.Tree()
		eq(t, len(tree), 1, "roots")
		eq(t, tree[0].Entry.ID, id1, "root")
		n2 := tree[0].Children[0]
		eq(t, n2.Entry.ID, id2, "node 2")
		eqSlice(t, childIDs(n2), sorted(id3, id4), "siblings")
	})
	t.Run("three branches at one point", func(t *testing.T) {
		s := InMemory("/tmp")
		ok(s.AppendMessage(userMsg("root")))
		id2 := ok(s.AppendMessage(assistantMsg("response")))
		var want []string
		for _, b := range []string{"A", "B", "C"} {
			if err := s.Branch(id2); err != nil {
				t.Fatal(err)
			}
			want = append(want, ok(s.AppendMessage(userMsg("branch-"+b))))
		}
		n2 := s.Tree()[0].Children[0]
		eq(t, n2.Entry.ID, id2, "node 2")
		eqSlice(t, childIDs(n2), sorted(want...), "branches")
	})
	t.Run("deep branching", func(t *testing.T) {
		s := InMemory("/tmp")
		ok(s.AppendMessage(userMsg("1")))
		id2 := ok(s.AppendMessage(assistantMsg("2")))
		id3 := ok(s.AppendMessage(userMsg("3")))
		id4 := ok(s.AppendMessage(assistantMsg("4")))
		s.Branch(id2)
		id5 := ok(s.AppendMessage(userMsg("5")))
		id6 := ok(s.AppendMessage(assistantMsg("6")))
		s.Branch(id5)
		id7 := ok(s.AppendMessage(userMsg("7")))
		n2 := s.Tree()[0].Children[0]
		eqSlice(t, childIDs(n2), sorted(id3, id5), "children of 2")
		for _, c := range n2.Children {
			switch c.Entry.ID {
			case id5:
				eqSlice(t, childIDs(c), sorted(id6, id7), "children of 5")
			case id3:
				eqSlice(t, childIDs(c), []string{id4}, "children of 3")
			}
		}
	})
}

func TestBranch(t *testing.T) {
	ok := mustAppend(t)
	s := InMemory("/tmp")
	id1 := ok(s.AppendMessage(userMsg("1")))
	ok(s.AppendMessage(assistantMsg("2")))
	id3 := ok(s.AppendMessage(userMsg("3")))
	eq(t, s.LeafID(), id3, "leaf")
	if err := s.Branch(id1); err != nil {
		t.Fatal(err)
	}
	eq(t, s.LeafID(), id1, "leaf after branch")
	if err := s.Branch("nonexistent"); err == nil || err.Error() != "Entry nonexistent not found" {
		t.Fatalf("Branch(nonexistent) = %v", err)
	}
	id4 := ok(s.AppendMessage(userMsg("branched")))
	eq(t, s.Entry(id4).ParentID, id1, "branched parent")
}

func TestBranchWithSummary(t *testing.T) {
	ok := mustAppend(t)
	s := InMemory("/tmp")
	id1 := ok(s.AppendMessage(userMsg("1")))
	ok(s.AppendMessage(assistantMsg("2")))
	id3 := ok(s.AppendMessage(userMsg("3")))
	usage := provider.Usage{Input: 100, Output: 20, TotalTokens: 120, Cost: provider.Cost{Total: 0.5}}
	sumID := ok(s.BranchWithSummary(id1, "Summary of abandoned work", nil, false, &usage))
	eq(t, s.LeafID(), sumID, "leaf")
	e := s.Entry(sumID)
	eq(t, e.Type, TypeBranchSummary, "type")
	eq(t, e.ParentID, id1, "parent")
	eq(t, e.Summary, "Summary of abandoned work", "summary")
	eq(t, e.FromID, id3, "fromId (pi 1.6: the leaf before the move)")
	if u, ok := e.Usage(); !ok || u.Input != 100 || u.Cost.Total != 0.5 {
		t.Errorf("usage = %+v %v", u, ok)
	}
	raw, _ := e.Raw()
	wantTail := `"fromId":"` + id3 + `","summary":"Summary of abandoned work","usage":{"input":100,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":120,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"fromHook":false}`
	if !strings.HasSuffix(string(raw), wantTail) {
		t.Errorf("line %s\nwant it to end %s", raw, wantTail)
	}
	if _, err := s.BranchWithSummary("nonexistent", "summary", nil, false, nil); err == nil || err.Error() != "Entry nonexistent not found" {
		t.Fatalf("BranchWithSummary(nonexistent) = %v", err)
	}
	root := ok(s.BranchWithSummary("", "from the top", nil, false, nil))
	eq(t, s.Entry(root).ParentID, "", "root summary parent")
	eq(t, s.Entry(root).FromID, sumID, "root summary fromId")
	s.ResetLeaf()
	fromNothing := ok(s.BranchWithSummary("", "nothing left", nil, false, nil))
	eq(t, s.Entry(fromNothing).FromID, "root", "fromId with no leaf")
}

func TestLeafEntryAndEntry(t *testing.T) {
	ok := mustAppend(t)
	s := InMemory("/tmp")
	if s.LeafEntry() != nil || s.Entry("nonexistent") != nil {
		t.Fatal("empty session has entries")
	}
	id1 := ok(s.AppendMessage(userMsg("first")))
	id2 := ok(s.AppendMessage(assistantMsg("second")))
	eq(t, s.LeafEntry().ID, id2, "leaf entry")
	m1, err := s.Entry(id1).Message()
	if err != nil {
		t.Fatal(err)
	}
	eq(t, textOf(t, m1), "first", "entry 1 text")
	m2, _ := s.Entry(id2).Message()
	eq(t, textOf(t, m2), "second", "entry 2 text")
}

func TestContextFollowsCurrentBranchOnly(t *testing.T) {
	ok := mustAppend(t)
	s := InMemory("/tmp")
	ok(s.AppendMessage(userMsg("msg1")))
	id2 := ok(s.AppendMessage(assistantMsg("msg2")))
	ok(s.AppendMessage(userMsg("msg3")))
	s.Branch(id2)
	ok(s.AppendMessage(assistantMsg("msg4-branch")))
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eq(t, len(ctx.Messages), 3, "messages")
	for i, want := range []string{"msg1", "msg2", "msg4-branch"} {
		eq(t, textOf(t, ctx.Messages[i]), want, "message text")
	}
}

func TestCreateBranchedSessionInMemory(t *testing.T) {
	ok := mustAppend(t)
	t.Run("unknown id", func(t *testing.T) {
		s := InMemory("/tmp")
		ok(s.AppendMessage(userMsg("hello")))
		if _, err := s.CreateBranchedSession("nonexistent"); err == nil || err.Error() != "Entry nonexistent not found" {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("path to leaf", func(t *testing.T) {
		s := InMemory("/tmp")
		id1 := ok(s.AppendMessage(userMsg("1")))
		id2 := ok(s.AppendMessage(assistantMsg("2")))
		id3 := ok(s.AppendMessage(userMsg("3")))
		ok(s.AppendMessage(assistantMsg("4")))
		s.Branch(id3)
		ok(s.AppendMessage(userMsg("5")))
		path, err := s.CreateBranchedSession(id2)
		if err != nil || path != "" {
			t.Fatalf("CreateBranchedSession = %q, %v", path, err)
		}
		eqSlice(t, ids(s.Entries()), []string{id1, id2}, "entries")
	})
	t.Run("branched tree", func(t *testing.T) {
		s := InMemory("/tmp")
		id1 := ok(s.AppendMessage(userMsg("1")))
		id2 := ok(s.AppendMessage(assistantMsg("2")))
		ok(s.AppendMessage(userMsg("3")))
		s.Branch(id2)
		id4 := ok(s.AppendMessage(userMsg("4")))
		id5 := ok(s.AppendMessage(assistantMsg("5")))
		if _, err := s.CreateBranchedSession(id5); err != nil {
			t.Fatal(err)
		}
		eqSlice(t, ids(s.Entries()), []string{id1, id2, id4, id5}, "entries")
	})
}

func recordsOf(t *testing.T, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range readLines(t, path) {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, r)
	}
	return out
}

func TestForkBeforeTheConversationDefersFileAndNoDuplicates(t *testing.T) {
	ok := mustAppend(t)
	dir := t.TempDir()
	s := Create(dir, dir)
	defer s.Close()
	mc := ok(s.AppendModelChange("p", "m"))
	ok(s.AppendMessage(userMsg("first question")))
	ok(s.AppendMessage(assistantMsg("first answer")))
	newFile, err := s.CreateBranchedSession(mc)
	if err != nil || newFile == "" {
		t.Fatalf("CreateBranchedSession = %q, %v", newFile, err)
	}
	if _, err := os.Stat(newFile); !os.IsNotExist(err) {
		t.Fatalf("file written before a user or assistant message: %v", err)
	}
	ok(s.AppendCustomEntry("preset-state", map[string]string{"name": "plan"}))
	ok(s.AppendMessage(userMsg("new question")))
	recs := recordsOf(t, newFile)
	headers := 0
	seen := map[string]bool{}
	for _, r := range recs {
		if r["type"] == "session" {
			headers++
			continue
		}
		id := r["id"].(string)
		if seen[id] {
			t.Fatalf("duplicate id %s", id)
		}
		seen[id] = true
	}
	eq(t, headers, 1, "headers")
	eq(t, len(seen), 3, "entries")
}

func TestForkWithAssistantWritesAtOnce(t *testing.T) {
	ok := mustAppend(t)
	dir := t.TempDir()
	s := Create(dir, dir)
	defer s.Close()
	ok(s.AppendMessage(userMsg("first question")))
	id2 := ok(s.AppendMessage(assistantMsg("first answer")))
	ok(s.AppendMessage(userMsg("second question")))
	ok(s.AppendMessage(assistantMsg("second answer")))
	old := s.SessionFile()
	newFile, err := s.CreateBranchedSession(id2)
	if err != nil {
		t.Fatal(err)
	}
	recs := recordsOf(t, newFile)
	eq(t, len(recs), 3, "lines")
	eq(t, recs[0]["type"], any("session"), "header")
	eq(t, recs[0]["parentSession"], any(old), "parentSession")
	eq(t, filepath.Dir(newFile), dir, "dir")
	// the old file is complete and untouched by the fork
	eq(t, len(readLines(t, old)), 5, "old file lines")
	// the moved session keeps working on the new file
	ok(s.AppendMessage(userMsg("third")))
	eq(t, len(readLines(t, newFile)), 4, "new file lines")
	m, err := s.Entry(id2).Message()
	if err != nil {
		t.Fatal(err)
	}
	eq(t, m.(*provider.AssistantMessage).Content[0].Text, "first answer", "copied message")
}

func TestTreeChildrenSortedByTimeAndOrphansAreRoots(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	content := v3Header + "\n" +
		`{"type":"message","id":"r","parentId":null,"timestamp":"2025-01-01T00:00:01Z","message":{"role":"user","content":"root","timestamp":1}}` + "\n" +
		`{"type":"message","id":"late","parentId":"r","timestamp":"2025-01-01T00:00:09Z","message":{"role":"user","content":"late","timestamp":9}}` + "\n" +
		`{"type":"message","id":"early","parentId":"r","timestamp":"2025-01-01T00:00:02.500Z","message":{"role":"user","content":"early","timestamp":2}}` + "\n" +
		`{"type":"message","id":"orphan","parentId":"gone","timestamp":"2025-01-01T00:00:03Z","message":{"role":"user","content":"orphan","timestamp":3}}` + "\n" +
		`{"type":"label","id":"self","parentId":"self","timestamp":"2025-01-01T00:00:04Z","targetId":"r","label":"x"}` + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tree := s.Tree()
	var roots []string
	for _, n := range tree {
		roots = append(roots, n.Entry.ID)
	}
	eqSlice(t, roots, []string{"r", "orphan", "self"}, "roots")
	eqSlice(t, []string{tree[0].Children[0].Entry.ID, tree[0].Children[1].Entry.ID}, []string{"early", "late"}, "children by time")
	eq(t, tree[0].Label, "x", "label")
	// the leaf is the last line; its path stops at the self-parent
	eqSlice(t, ids(s.Path("")), []string{"self"}, "path of a self-parented entry")
	eqSlice(t, ids(s.Path("orphan")), []string{"orphan"}, "orphan path")
}
