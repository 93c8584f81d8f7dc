package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

func editArgs(path string, pairs ...string) map[string]any {
	var edits []map[string]string
	for i := 0; i+1 < len(pairs); i += 2 {
		edits = append(edits, map[string]string{"oldText": pairs[i], "newText": pairs[i+1]})
	}
	return map[string]any{"path": path, "edits": edits}
}

// editCall prepares the arguments as the loop would (PrepareArguments, then JSON) and executes.
func editCall(t *testing.T, tool loop.Tool, args any) (loop.ToolResult, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := tool.(loop.ArgumentPreparer); ok {
		raw = p.PrepareArguments(raw)
	}
	return tool.Execute(context.Background(), loop.ToolCall{ID: "call-1", Name: "edit", Args: raw}, nil)
}

// TestEditMatchesPiTests replays pi's edit tests (tools.test.ts: basic, fuzzy and line endings) and
// the multi-edit rules of pi-reference §7.5 on real files.
func TestEditMatchesPiTests(t *testing.T) {
	cases := []struct {
		name    string
		file    string
		args    func(path string) any
		want    string // file content afterwards
		wantErr string // "%s" stands for the path
	}{
		{name: "replace", file: "Hello, world!", args: func(p string) any { return editArgs(p, "world", "testing") }, want: "Hello, testing!"},
		{name: "legacy oldText/newText", file: "Hello, world!",
			args: func(p string) any { return map[string]any{"path": p, "oldText": "world", "newText": "testing"} }, want: "Hello, testing!"},
		{name: "not found", file: "Hello, world!", args: func(p string) any { return editArgs(p, "nonexistent", "testing") },
			wantErr: "Could not find the exact text in %s. The old text must match exactly including all whitespace and newlines."},
		{name: "three occurrences", file: "foo foo foo", args: func(p string) any { return editArgs(p, "foo", "bar") },
			wantErr: "Found 3 occurrences of the text in %s. The text must be unique. Please provide more context to make it unique."},
		{name: "empty oldText", file: "abc", args: func(p string) any { return editArgs(p, "", "x") },
			wantErr: "oldText must not be empty in %s."},
		{name: "no change", file: "abc", args: func(p string) any { return editArgs(p, "b", "b") },
			wantErr: "No changes made to %s. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected."},

		// Fuzzy matching.
		{name: "trailing whitespace", file: "line one   \nline two  \nline three\n",
			args: func(p string) any { return editArgs(p, "line one\nline two\n", "replaced\n") }, want: "replaced\nline three\n"},
		{name: "fullwidth punctuation", file: "你好，世界\n你好（世界）\n",
			args: func(p string) any { return editArgs(p, "你好,世界\n你好(世界)\n", "你好，pi\n你好(pi)\n") }, want: "你好，pi\n你好(pi)\n"},
		{name: "compatibility forms", file: "ＡＢＣ１２３\ncafe\u0301\n",
			args: func(p string) any { return editArgs(p, "ABC123\ncafé\n", "XYZ789\ncoffee\n") }, want: "XYZ789\ncoffee\n"},
		{name: "smart single quotes", file: "console.log(\u2018hello\u2019);\n",
			args: func(p string) any { return editArgs(p, "console.log('hello');", "console.log('world');") }, want: "console.log('world');\n"},
		{name: "smart double quotes", file: "const msg = \u201CHello World\u201D;\n",
			args: func(p string) any { return editArgs(p, `const msg = "Hello World";`, `const msg = "Goodbye";`) }, want: "const msg = \"Goodbye\";\n"},
		{name: "unicode dashes", file: "range: 1\u20135\nbreak\u2014here\n",
			args: func(p string) any { return editArgs(p, "range: 1-5\nbreak-here", "range: 10-50\nbreak--here") }, want: "range: 10-50\nbreak--here\n"},
		{name: "non-breaking space", file: "hello\u00A0world\n",
			args: func(p string) any { return editArgs(p, "hello world", "hello universe") }, want: "hello universe\n"},
		{name: "exact match preferred, file otherwise untouched", file: "const x = 'exact';\nconst y = 'other';  \n",
			args: func(p string) any { return editArgs(p, "const x = 'exact';", "const x = 'changed';") }, want: "const x = 'changed';\nconst y = 'other';  \n"},
		{name: "fuzzy rewrites the whole file normalised", file: "keep \u201Cthis\u201D   \nfix \u2013 me\n",
			args: func(p string) any { return editArgs(p, "fix - me", "fixed") }, want: "keep \"this\"\nfixed\n"},
		{name: "absent even fuzzily", file: "completely different content\n",
			args:    func(p string) any { return editArgs(p, "this does not exist", "replacement") },
			wantErr: "Could not find the exact text in %s. The old text must match exactly including all whitespace and newlines."},
		{name: "duplicates after normalisation", file: "hello world   \nhello world\n",
			args:    func(p string) any { return editArgs(p, "hello world", "replaced") },
			wantErr: "Found 2 occurrences of the text in %s. The text must be unique. Please provide more context to make it unique."},

		// Line endings and BOM.
		{name: "LF oldText in a CRLF file", file: "line one\r\nline two\r\nline three\r\n",
			args: func(p string) any { return editArgs(p, "line two\n", "replaced line\n") }, want: "line one\r\nreplaced line\r\nline three\r\n"},
		{name: "CRLF preserved", file: "first\r\nsecond\r\nthird\r\n",
			args: func(p string) any { return editArgs(p, "second\n", "REPLACED\n") }, want: "first\r\nREPLACED\r\nthird\r\n"},
		{name: "LF preserved", file: "first\nsecond\nthird\n",
			args: func(p string) any { return editArgs(p, "second\n", "REPLACED\n") }, want: "first\nREPLACED\nthird\n"},
		{name: "CRLF oldText in a LF file", file: "first\nsecond\nthird\n",
			args: func(p string) any { return editArgs(p, "first\r\nsecond", "1\r\n2") }, want: "1\n2\nthird\n"},
		{name: "duplicates across CRLF and LF", file: "hello\r\nworld\r\n---\r\nhello\nworld\n",
			args:    func(p string) any { return editArgs(p, "hello\nworld\n", "replaced\n") },
			wantErr: "Found 2 occurrences of the text in %s. The text must be unique. Please provide more context to make it unique."},
		{name: "BOM preserved", file: "\uFEFFfirst\r\nsecond\r\nthird\r\n",
			args: func(p string) any { return editArgs(p, "second\n", "REPLACED\n") }, want: "\uFEFFfirst\r\nREPLACED\r\nthird\r\n"},
		{name: "oldText at the start of a BOM file", file: "\uFEFFfirst\nsecond\n",
			args: func(p string) any { return editArgs(p, "first", "1st") }, want: "\uFEFF1st\nsecond\n"},

		// Several edits.
		{name: "two edits", file: "one two three four",
			args: func(p string) any { return editArgs(p, "four", "4", "one", "1") }, want: "1 two three 4"},
		{name: "edits as a JSON string", file: "one two three",
			args: func(p string) any {
				return map[string]any{"path": p, "edits": `[{"oldText":"one","newText":"1"},{"oldText":"three","newText":"3"}]`}
			}, want: "1 two 3"},
		{name: "legacy pair appended to edits", file: "one two three",
			args: func(p string) any {
				return map[string]any{"path": p, "edits": []map[string]string{{"oldText": "one", "newText": "1"}}, "oldText": "two", "newText": "2"}
			}, want: "1 2 three"},
		{name: "overlap", file: "one two three",
			args:    func(p string) any { return editArgs(p, "one two", "1 2", "two three", "2 3") },
			wantErr: "edits[0] and edits[1] overlap in %s. Merge them into one edit or target disjoint regions."},
		{name: "second edit missing", file: "one two three",
			args:    func(p string) any { return editArgs(p, "one", "1", "zzz", "2") },
			wantErr: "Could not find edits[1] in %s. The oldText must match exactly including all whitespace and newlines."},
		{name: "second edit duplicated", file: "one two two",
			args:    func(p string) any { return editArgs(p, "one", "1", "two", "2") },
			wantErr: "Found 2 occurrences of edits[1] in %s. Each oldText must be unique. Please provide more context to make it unique."},
		{name: "second edit empty", file: "abc",
			args: func(p string) any { return editArgs(p, "b", "x", "", "y") }, wantErr: "edits[1].oldText must not be empty in %s."},
		{name: "edits change nothing", file: "abc",
			args:    func(p string) any { return editArgs(p, "b", "b", "c", "c") },
			wantErr: "No changes made to %s. The replacements produced identical content."},
		{name: "no edits", file: "abc", args: func(p string) any { return map[string]any{"path": p, "edits": []any{}} },
			wantErr: "Edit tool input is invalid. edits must contain at least one replacement."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := readWriteFile(t, dir, "f.txt", c.file)
			tool := NewEdit(dir, EditOptions{})
			res, err := editCall(t, tool, c.args(path))
			if c.wantErr != "" {
				want := strings.ReplaceAll(c.wantErr, "%s", path)
				if err == nil || err.Error() != want {
					t.Fatalf("error %v\nwant %s", err, want)
				}
				if mustReadFile(t, path) != c.file {
					t.Fatal("a failed edit changed the file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := mustReadFile(t, path); got != c.want {
				t.Fatalf("file %q, want %q", got, c.want)
			}
			if !strings.HasPrefix(readText(res), "Successfully replaced ") || !strings.HasSuffix(readText(res), " block(s) in "+path+".") {
				t.Errorf("result %q", readText(res))
			}
			if d, ok := res.Details.(*EditDetails); !ok || d.Diff == "" || d.FirstChangedLine < 1 {
				t.Errorf("details %#v", res.Details)
			}
			if left := leftovers(t, dir); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func mustJS(t *testing.T, v any) []byte {
	t.Helper()
	b, err := provider.MarshalJS(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEditResultAndDetails(t *testing.T) {
	dir := t.TempDir()
	lines := make([]string, 20)
	for i := range lines {
		lines[i] = "line " + string(rune('a'+i))
	}
	path := readWriteFile(t, dir, "f.txt", strings.Join(lines, "\n")+"\n")
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	res, err := editCall(t, NewEdit(dir, EditOptions{}), editArgs("f.txt", "line j\n", "line J\nline J2\n", "line b", "line B"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readText(res); got != "Successfully replaced 2 block(s) in f.txt." {
		t.Errorf("text %q", got)
	}
	data, err := provider.MarshalJS(res.Details)
	if err != nil {
		t.Fatal(err)
	}
	wantDiff := strings.Join([]string{
		"  1 line a",
		"- 2 line b",
		"+ 2 line B",
		"  3 line c",
		"  4 line d",
		"  5 line e",
		"  6 line f",
		"  7 line g",
		"  8 line h",
		"  9 line i",
		"-10 line j",
		"+10 line J",
		"+11 line J2",
		" 11 line k",
		" 12 line l",
		" 13 line m",
		" 14 line n",
		"    ...",
	}, "\n")
	// pi 1.6 adds the standard unified patch (jsdiff's, 4 lines of context), between diff and
	// firstChangedLine.
	wantPatch := "--- f.txt\n+++ f.txt\n@@ -1,14 +1,15 @@\n line a\n-line b\n+line B\n line c\n line d\n line e\n line f\n line g\n" +
		" line h\n line i\n-line j\n+line J\n+line J2\n line k\n line l\n line m\n line n\n"
	want := []byte(`{"diff":` + string(mustJS(t, wantDiff)) + `,"patch":` + string(mustJS(t, wantPatch)) + `,"firstChangedLine":2}`)
	if string(data) != string(want) {
		t.Errorf("details\n got %s\nwant %s", data, want)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("mode became %v", info.Mode().Perm())
	}
}

func TestEditToolErrors(t *testing.T) {
	dir := t.TempDir()
	tool := NewEdit(dir, EditOptions{})
	readOnly := readWriteFile(t, dir, "ro.txt", "abc")
	if err := os.Chmod(readOnly, 0o444); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, path, want string }{
		{"missing file", "nope.txt", "Could not edit file: nope.txt. Error code: ENOENT."},
		{"folder", ".", "Could not edit file: .. Error code: EISDIR."},
		{"device", "/dev/null", "Could not edit file: /dev/null. It is not a regular file (a device, socket or pipe)."},
	}
	if os.Geteuid() != 0 {
		cases = append(cases, struct{ name, path, want string }{"read-only file", "ro.txt", "Could not edit file: ro.txt. Error code: EACCES."})
	}
	for _, c := range cases {
		_, err := editCall(t, tool, editArgs(c.path, "a", "b"))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tool.Execute(ctx, loop.ToolCall{Name: "edit", Args: json.RawMessage(`{"path":"ro.txt","edits":[{"oldText":"a","newText":"b"}]}`)}, nil)
	if err == nil || err.Error() != "Operation aborted" {
		t.Fatalf("aborted edit: %v", err)
	}
}

func TestEditCrashBeforeRenameKeepsOriginal(t *testing.T) {
	dir := t.TempDir()
	path := readWriteFile(t, dir, "f.txt", "first\r\nsecond\r\n")
	tool := NewEdit(dir, EditOptions{}).(*editTool)
	var staged string
	tool.writer.beforeRename = func(tmp string) error {
		staged = mustReadFile(t, tmp)
		return &os.PathError{Op: "rename", Path: tmp, Err: syscall.EIO}
	}
	if _, err := editCall(t, tool, editArgs("f.txt", "second", "2nd")); err == nil {
		t.Fatal("the edit reported success")
	}
	if staged != "first\r\n2nd\r\n" {
		t.Errorf("staged content %q", staged)
	}
	if got := mustReadFile(t, path); got != "first\r\nsecond\r\n" {
		t.Fatalf("original became %q", got)
	}
	if left := leftovers(t, dir); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestEditPrepareArguments(t *testing.T) {
	tool := NewEdit("/", EditOptions{}).(loop.ArgumentPreparer)
	cases := map[string]string{
		`{"path":"a","oldText":"x","newText":"y"}`:                                         `{"edits":[{"oldText":"x","newText":"y"}],"path":"a"}`,
		`{"path":"a","edits":"[{\"oldText\":\"x\",\"newText\":\"y\"}]"}`:                   `{"edits":[{"oldText":"x","newText":"y"}],"path":"a"}`,
		`{"path":"a","edits":[{"oldText":"p","newText":"q"}],"oldText":"x","newText":"y"}`: `{"edits":[{"oldText":"p","newText":"q"},{"oldText":"x","newText":"y"}],"path":"a"}`,
		`{"path":"a","edits":"not json"}`:                                                  `{"path":"a","edits":"not json"}`,
		`{"path":"a","oldText":"x"}`:                                                       `{"path":"a","oldText":"x"}`,
		`{"path":"a","oldText":1,"newText":"y"}`:                                           `{"path":"a","oldText":1,"newText":"y"}`,
		`[1,2]`:                                                                            `[1,2]`,
	}
	for in, want := range cases {
		if got := string(tool.PrepareArguments(json.RawMessage(in))); got != want {
			t.Errorf("PrepareArguments(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestEditDefinition(t *testing.T) {
	def := NewEdit("/", EditOptions{}).Definition()
	if def.Name != "edit" || !strings.HasPrefix(def.Description, "Edit a single file using exact text replacement.") || strings.HasSuffix(def.Description, "\n") {
		t.Errorf("definition %q: %q", def.Name, def.Description)
	}
	var schema map[string]any
	if err := json.Unmarshal(def.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	// pi 1.6 dropped additionalProperties: false from the edit schema (0.73.1 had it).
	if _, ok := schema["additionalProperties"]; ok {
		t.Error("edit schema limits extra properties")
	}
}

// TestFileMutationsRunInCallOrder holds a write inside its commit, queues an edit that depends on
// it and a second write, and checks that they run in the order they were called.
func TestFileMutationsRunInCallOrder(t *testing.T) {
	dir := t.TempDir()
	path := readWriteFile(t, dir, "f.txt", "v0\n")
	queue := NewMutationQueue()
	changed := mutationWatch(queue)
	write := NewWrite(dir, WriteOptions{Mutations: queue}).(*writeTool)
	edit := NewEdit(dir, EditOptions{Mutations: queue})

	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	write.writer.beforeRename = func(string) error {
		once.Do(func() {
			close(entered)
			<-release
		})
		return nil
	}
	var mu sync.Mutex
	var finished []string
	run := func(name string, tool loop.Tool, args any, wg *sync.WaitGroup) {
		defer wg.Done()
		res, err := editCall(t, tool, args)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		mu.Lock()
		finished = append(finished, name+": "+readText(res))
		mu.Unlock()
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go run("write one", write, map[string]any{"path": "f.txt", "content": "one\n"}, &wg)
	<-entered
	go run("edit one->two", edit, editArgs("f.txt", "one", "two"), &wg)
	mutationWaitFor(t, queue, changed, path, 2)
	go run("write three", write, map[string]any{"path": "f.txt", "content": "three\n"}, &wg)
	mutationWaitFor(t, queue, changed, path, 3)
	close(release)
	wg.Wait()
	want := []string{
		"write one: Successfully wrote to f.txt",
		"edit one->two: Successfully replaced 1 block(s) in f.txt.",
		"write three: Successfully wrote to f.txt",
	}
	if strings.Join(finished, "\n") != strings.Join(want, "\n") {
		t.Fatalf("finished in this order:\n%s", strings.Join(finished, "\n"))
	}
	if got := mustReadFile(t, path); got != "three\n" {
		t.Fatalf("final content %q", got)
	}
}

// TestEditMatchingMatchesPi runs pi's normalizeForFuzzyMatch and applyEditsToNormalizedContent cases
// (testdata/pijs/editapply.json, produced by pi 0.73.1's edit-diff.js) through the Go versions.
func TestEditMatchingMatchesPi(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "pijs", "editapply.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Normalize []struct {
			Text       string `json:"text"`
			Normalized string `json:"normalized"`
		} `json:"normalize"`
		Apply []struct {
			Content string            `json:"content"`
			Edits   []EditReplacement `json:"edits"`
			Result  struct {
				OK *struct {
					BaseContent string `json:"baseContent"`
					NewContent  string `json:"newContent"`
				} `json:"ok"`
				Error string `json:"error"`
			} `json:"result"`
		} `json:"apply"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Normalize) == 0 || len(golden.Apply) == 0 {
		t.Fatal("empty golden file")
	}
	for _, c := range golden.Normalize {
		if got := editFuzzyNormalize(c.Text); got != c.Normalized {
			t.Errorf("editFuzzyNormalize(%q) = %q, pi says %q", c.Text, got, c.Normalized)
		}
	}
	for i, c := range golden.Apply {
		base, next, err := editApply(c.Content, c.Edits, "f.txt")
		switch {
		case c.Result.Error != "":
			if err == nil || err.Error() != c.Result.Error {
				t.Errorf("case %d (%q, %+v): error %v, pi says %q", i, c.Content, c.Edits, err, c.Result.Error)
			}
		case err != nil:
			t.Errorf("case %d (%q, %+v): %v", i, c.Content, c.Edits, err)
		case base != c.Result.OK.BaseContent || next != c.Result.OK.NewContent:
			t.Errorf("case %d (%q, %+v):\n got %q -> %q\nwant %q -> %q", i, c.Content, c.Edits, base, next, c.Result.OK.BaseContent, c.Result.OK.NewContent)
		}
	}
}

func TestEditLineEndings(t *testing.T) {
	for in, want := range map[string]string{"a\r\nb\nc": "\r\n", "a\nb\r\nc": "\n", "abc": "\n", "a\rb\n": "\n", "\r\n": "\r\n"} {
		if got := editDetectLineEnding(in); got != want {
			t.Errorf("editDetectLineEnding(%q) = %q, want %q", in, got, want)
		}
	}
	if got := editNormalizeToLF("a\r\nb\rc\n"); got != "a\nb\nc\n" {
		t.Errorf("editNormalizeToLF: %q", got)
	}
	if got := editRestoreLineEndings("a\nb\n", "\r\n"); got != "a\r\nb\r\n" {
		t.Errorf("editRestoreLineEndings: %q", got)
	}
}
