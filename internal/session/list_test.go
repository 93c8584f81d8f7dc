package session

import (
	"github.com/pi-go/pi-go/internal/provider"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func copyTestdata(t *testing.T, name, dir, as string) string {
	t.Helper()
	data := must(os.ReadFile(filepath.Join(testdataDir, name)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, as)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	info, ok := Describe(copyTestdata(t, "v3-branches.jsonl", dir, "b.jsonl"))
	if !ok {
		t.Fatal("not a session")
	}
	eq(t, info.ID, "01972f4e-2400-7000-8000-0000000b7a9c", "id")
	eq(t, info.Cwd, "/home/me/proj", "cwd")
	eq(t, info.Name, "Approach hunt", "name")
	eq(t, info.MessageCount, 6, "message count")
	eq(t, info.FirstMessage, "start", "first message")
	eq(t, info.Created.UTC().Format(time.RFC3339), "2025-06-02T08:00:00Z", "created")
	eq(t, info.Modified.UnixMilli(), int64(1748851200000+8000), "modified = last user/assistant message")

	info, _ = Describe(copyTestdata(t, "v3-custom.jsonl", dir, "c.jsonl"))
	eq(t, info.ParentSessionPath != "", true, "parent session")
	eq(t, info.FirstMessage, "what is in this picture?", "first message")
	eq(t, info.MessageCount, 8, "message count")

	info, _ = Describe(copyTestdata(t, "torn-tail.jsonl", dir, "t.jsonl"))
	eq(t, info.MessageCount, 4, "malformed lines are not counted")

	// a header only: no messages, modified = header time
	only := filepath.Join(dir, "h.jsonl")
	writeFile(t, only, v3Header+"\n")
	info, _ = Describe(only)
	eq(t, info.FirstMessage, "(no messages)", "no messages")
	eq(t, info.Modified.Equal(info.Created), true, "modified falls back to created")

	// a name set and then cleared
	named := filepath.Join(dir, "n.jsonl")
	writeFile(t, named, v3Header+"\n"+
		`{"type":"session_info","id":"1","parentId":null,"timestamp":"2025-01-01T00:00:01Z","name":"first"}`+"\n"+
		`{"type":"session_info","id":"2","parentId":"1","timestamp":"2025-01-01T00:00:02Z","name":"  "}`+"\n")
	info, _ = Describe(named)
	eq(t, info.Name, "", "cleared name")

	for _, bad := range []string{"", "garbage\n", `{"type":"message"}` + "\n"} {
		p := filepath.Join(dir, "bad.jsonl")
		writeFile(t, p, bad)
		if _, ok := Describe(p); ok {
			t.Fatalf("%q described as a session", bad)
		}
	}
}

func TestListAndListAll(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "--home-me-a--")
	b := filepath.Join(root, "--home-me-b--")
	copyTestdata(t, "v3-compaction.jsonl", a, "1.jsonl") // May 2025
	copyTestdata(t, "v3-branches.jsonl", a, "2.jsonl")   // June 2025
	copyTestdata(t, "torn-tail.jsonl", b, "3.jsonl")     // August 2025
	writeFile(t, filepath.Join(a, "notes.txt"), "x")
	writeFile(t, filepath.Join(a, "junk.jsonl"), "junk\n")

	got, err := List(a)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, len(got), 2, "sessions in a")
	eq(t, filepath.Base(got[0].Path), "2.jsonl", "newest first")
	all, err := ListAll(root)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, len(all), 3, "all sessions")
	eq(t, filepath.Base(all[0].Path), "3.jsonl", "newest of all first")
	if got, err := List(filepath.Join(root, "missing")); err != nil || len(got) != 0 {
		t.Fatalf("missing dir: %v %v", got, err)
	}
}

func TestResolveSession(t *testing.T) {
	root := t.TempDir()
	here := filepath.Join(root, "--home-me-here--")
	there := filepath.Join(root, "--home-me-there--")
	copyTestdata(t, "v3-compaction.jsonl", here, "x.jsonl") // id 0196883a-...
	copyTestdata(t, "v3-branches.jsonl", there, "y.jsonl")  // id 01972f4e-...
	copyTestdata(t, "v3-custom.jsonl", there, "z.jsonl")    // id 0197cf00-...
	for _, tc := range []struct {
		arg  string
		kind ResolveKind
		file string
		cwd  string
	}{
		{"some/file", ResolvedPath, "", ""},
		{`C:\x`, ResolvedPath, "", ""},
		{"abc.jsonl", ResolvedPath, "", ""},
		{"0196883a", ResolvedLocal, "x.jsonl", "/home/me/proj"},
		{"01972f", ResolvedGlobal, "y.jsonl", "/home/me/proj"},
		{"019", ResolvedLocal, "x.jsonl", "/home/me/proj"},
		{"0197", ResolvedGlobal, "z.jsonl", "/home/me/pics"}, // the most recently modified match
		{"ffff", ResolvedNotFound, "", ""},
	} {
		got, err := ResolveSession(tc.arg, here, root)
		if err != nil {
			t.Fatal(err)
		}
		if got.Kind != tc.kind || (tc.file != "" && filepath.Base(got.Path) != tc.file) || (tc.kind != ResolvedPath && got.Cwd != tc.cwd) {
			t.Fatalf("ResolveSession(%q) = %+v", tc.arg, got)
		}
		if tc.kind == ResolvedPath && got.Path != tc.arg {
			t.Fatalf("path = %q", got.Path)
		}
	}
}

func TestForkFrom(t *testing.T) {
	dir := t.TempDir()
	src := copyTestdata(t, "v3-custom.jsonl", filepath.Join(dir, "other"), "src.jsonl")
	orig := must(os.ReadFile(src))
	target := filepath.Join(dir, "mine")
	s, err := ForkFrom(src, "/home/me/mine", target)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	eq(t, filepath.Dir(s.SessionFile()), target, "dir")
	recs := recordsOf(t, s.SessionFile())
	eq(t, recs[0]["parentSession"], any(src), "parentSession")
	eq(t, recs[0]["cwd"], any("/home/me/mine"), "cwd")
	eq(t, len(recs), 14, "every entry copied")
	eq(t, string(must(os.ReadFile(src))), string(orig), "source untouched")
	ctx, err := s.BuildContext()
	if err != nil {
		t.Fatal(err)
	}
	eq(t, len(ctx.Messages), 10, "context")

	// an old-version source is migrated in memory only
	old := copyTestdata(t, "v1.jsonl", filepath.Join(dir, "old"), "v1.jsonl")
	s2, err := ForkFrom(old, "/home/me/mine", target)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	ctx, _ = s2.BuildContext()
	eqSlice(t, texts(t, ctx), []string{"Old summary", "second", "two", "third"}, "migrated fork")
	if _, err := os.Stat(old + ".bak"); !os.IsNotExist(err) {
		t.Fatal("source was rewritten")
	}

	bad := filepath.Join(dir, "bad.jsonl")
	writeFile(t, bad, "garbage\n")
	if _, err := ForkFrom(bad, "/x", target); err == nil || err.Error() != "Cannot fork: source session file is empty or invalid: "+bad {
		t.Fatalf("ForkFrom(bad) = %v", err)
	}
}

func TestForkAndClone(t *testing.T) {
	dir := t.TempDir()
	s := Create("/proj", dir)
	defer s.Close()
	ok := mustAppend(t)
	u1 := ok(s.AppendMessage(userMsg("first")))
	a1 := ok(s.AppendMessage(assistantMsg("one")))
	u2 := ok(s.AppendMessage(&provider.UserMessage{Content: []provider.Content{provider.TextContent("sec"), provider.TextContent("ond")}, Timestamp: 5}))
	ok(s.AppendMessage(assistantMsg("two")))
	first := s.SessionFile()

	if _, err := s.Fork(a1); err == nil || err.Error() != "Invalid entry ID for forking" {
		t.Fatalf("fork at an assistant = %v", err)
	}
	res, err := s.Fork(u2)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, res.SelectedText, "second", "selected text")
	eqSlice(t, ids(s.Entries()), []string{u1, a1}, "forked entries")
	eq(t, s.Header().ParentSession, first, "parent")
	eq(t, len(readLines(t, res.Path)), 3, "written at once (has an assistant)")

	second := s.SessionFile()
	res, err = s.Fork(u1)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, res.SelectedText, "first", "selected text")
	eq(t, len(s.Entries()), 0, "fork at the first message is an empty session")
	eq(t, s.Header().ParentSession, second, "parent")
	if _, err := os.Stat(res.Path); !os.IsNotExist(err) {
		t.Fatal("empty fork written")
	}

	if _, err := s.Clone(); err == nil {
		t.Fatal("clone of an empty session")
	}
	ok(s.AppendMessage(userMsg("q")))
	ok(s.AppendMessage(assistantMsg("a")))
	prev := s.SessionFile()
	cl, err := s.Clone()
	if err != nil {
		t.Fatal(err)
	}
	if cl == prev {
		t.Fatal("clone reused the file")
	}
	eq(t, len(readLines(t, cl)), 3, "clone written")
	eq(t, len(readLines(t, prev)), 3, "original kept")
}
