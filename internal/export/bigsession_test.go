package export

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// obj is a JSON object with its keys in the order given (key, value, key, value, ...), as pi writes
// them: the session store's fast path expects "role" first.
type obj []any

func (o obj) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(o[i])
		v, err := json.Marshal(o[i+1])
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// writeBigSession writes a session file of at least size bytes shaped like a long coding session:
// turns of a prompt, thinking, a markdown answer with code, read and bash calls with sizeable
// results, an edit with its diff, now and then an image, a model change, a compaction and a
// side branch. It returns the file's path.
func writeBigSession(t testing.TB, dir string, size int64) string {
	t.Helper()
	path := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	put := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
		w.WriteByte('\n')
		written += int64(len(b)) + 1
	}
	put(obj{"type", "session", "version", 3, "id", "019a0000-0000-7000-8000-000000000000",
		"timestamp", "2026-11-30T00:00:00.000Z", "cwd", "/home/user/big"})
	goFile := strings.Repeat("// Package big is generated.\nfunc Sum(xs []int) (n int) {\n\tfor _, x := range xs {\n\t\tn += x // add\n\t}\n\treturn n\n}\n\n", 180)
	bashOut := strings.Repeat("ok  \tgithub.com/example/big/pkg\t0.012s\n", 120)
	image := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x89PNG fake image bytes ", 1500)))
	answer := "Here is the change:\n\n```go\n" + goFile[:1500] + "```\n\n- first point\n- second **point**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
	usage := obj{"input", 12000, "output", 400, "cacheRead", 9000, "cacheWrite", 0, "totalTokens", 21400,
		"cost", obj{"input", 0.036, "output", 0.006, "cacheRead", 0.0027, "cacheWrite", 0, "total", 0.0447}}
	parent := any(nil)
	n := 0
	id := func() string { n++; return fmt.Sprintf("%08x", n) }
	entry := func(typ string, fields ...any) string {
		eid := id()
		put(append(obj{"type", typ, "id", eid, "parentId", parent, "timestamp", "2026-11-30T00:00:00.000Z"}, fields...))
		parent = eid
		return eid
	}
	msg := func(m obj) string { return entry("message", "message", m) }
	for turn := 0; written < size; turn++ {
		if turn%100 == 0 {
			entry("model_change", "provider", "anthropic", "modelId", fmt.Sprintf("model-%d", turn/100))
		}
		user := []any{obj{"type", "text", "text", fmt.Sprintf("Turn %d: please refactor `Sum` and run the tests.", turn)}}
		if turn%40 == 0 {
			user = append(user, obj{"type", "image", "data", image, "mimeType", "image/png"})
		}
		userID := msg(obj{"role", "user", "content", user, "timestamp", 1796000000000 + turn})
		call := func(i int) string { return fmt.Sprintf("call_%d_%d", turn, i) }
		msg(obj{"role", "assistant", "content", []any{
			obj{"type", "thinking", "thinking", strings.Repeat("I should read the file first, then run the tests. ", 20)},
			obj{"type", "text", "text", answer},
			obj{"type", "toolCall", "id", call(0), "name", "read", "arguments", obj{"path", "big.go"}},
			obj{"type", "toolCall", "id", call(1), "name", "bash", "arguments", obj{"command", "go test ./..."}},
		}, "api", "anthropic-messages", "provider", "anthropic", "model", "claude", "usage", usage, "stopReason", "toolUse", "timestamp", 1796000000000 + turn})
		msg(obj{"role", "toolResult", "toolCallId", call(0), "toolName", "read",
			"content", []any{obj{"type", "text", "text", goFile}}, "isError", false, "timestamp", 1796000000000 + turn})
		msg(obj{"role", "toolResult", "toolCallId", call(1), "toolName", "bash",
			"content", []any{obj{"type", "text", "text", bashOut}}, "isError", false, "timestamp", 1796000000000 + turn})
		msg(obj{"role", "assistant", "content", []any{
			obj{"type", "toolCall", "id", call(2), "name", "edit", "arguments", obj{"path", "big.go",
				"edits", []any{obj{"oldText", "n += x", "newText", "n = n + x"}}}}},
			"api", "anthropic-messages", "provider", "anthropic", "model", "claude", "usage", usage, "stopReason", "toolUse", "timestamp", 1796000000000 + turn})
		msg(obj{"role", "toolResult", "toolCallId", call(2), "toolName", "edit",
			"content", []any{obj{"type", "text", "text", "Successfully replaced text in big.go."}},
			"details", obj{"diff", "  3 \tfor _, x := range xs {\n- 4 \t\tn += x // add\n+ 4 \t\tn = n + x // add\n  5 \t}"}, "isError", false, "timestamp", 1796000000000 + turn})
		msg(obj{"role", "assistant", "content", []any{obj{"type", "text", "text", "Done: the tests pass."}},
			"api", "anthropic-messages", "provider", "anthropic", "model", "claude", "usage", usage, "stopReason", "stop", "timestamp", 1796000000000 + turn})
		if turn%50 == 49 {
			entry("compaction", "summary", "## Progress\nRefactored `Sum` fifty times.", "firstKeptEntryId", userID, "tokensBefore", 150000)
		}
		if turn%25 == 24 { // a retried answer: a sibling of the last answer, left behind
			keep := parent
			parent = userID
			msg(obj{"role", "assistant", "content", []any{obj{"type", "text", "text", "An abandoned attempt."}},
				"api", "anthropic-messages", "provider", "anthropic", "model", "claude", "usage", usage, "stopReason", "stop", "timestamp", 1796000000000 + turn})
			parent = keep
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return path
}
