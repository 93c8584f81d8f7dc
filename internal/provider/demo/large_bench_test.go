package demo

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"testing"
)

// codeText is n bytes of code-like text: quotes, backslashes, tabs and newlines (escaped in JSON) and
// some non-ASCII.
func codeText(r *rand.Rand, n int) string {
	words := strings.Fields(`func main() { return err != nil if := range for _, v fmt.Println("hello") x.y = z
		// comment the of to and a in is it that package import struct type map[string]int
		ok total += n; "quoted" 'c' path\to\file.go:42 error: failed café naïve 日本 → ✓`)
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.Intn(len(words))])
		switch r.Intn(10) {
		case 0:
			b.WriteString("\n\t")
		case 1:
			b.WriteByte('\n')
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// resumedChat is the request of a resumed session of the given number of turns (about 10 KB each),
// ending with a new prompt: what the demo model receives after `pi --session big.jsonl -p hi`.
func resumedChat(turns int) *chat {
	r := rand.New(rand.NewSource(1))
	c := newChat(defaultTools()...)
	for t := 0; t < turns; t++ {
		id := fmt.Sprintf("call_%d", t)
		args := fmt.Sprintf(`{"path":"src/main.go","oldText":%q,"newText":%q}`, codeText(r, 600), codeText(r, 600))
		c.user(codeText(r, 300)).call(codeText(r, 1000), id, "edit", args).result(id, codeText(r, 4700)).assistant(codeText(r, 900))
	}
	return c.user("hi")
}

// summaryChat is a compaction's summary request over a transcript of about size bytes.
func summaryChat(size int) *chat {
	r := rand.New(rand.NewSource(2))
	var b strings.Builder
	b.WriteString("<conversation>\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "[User]: %s\n\n[Assistant]: %s\n\n[Assistant tool calls]: read(path=\"f%d.go\")\n\n[Tool result]: %s\n\n",
			codeText(r, 300), codeText(r, 900), i, codeText(r, 4700))
	}
	b.WriteString("\n</conversation>\n\n## Goal\n## Constraints & Preferences\n## Progress\n### Done\n### In Progress\n## Key Decisions\n## Next Steps\n## Critical Context\n")
	c := newChat()
	// As the provider sends a compaction's prompt: one text part.
	c.msgs = append(c.msgs, map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": b.String()}}})
	c.maxTokens = 13107 // as a compaction asks (0.8 of the reserve)
	return c
}

// BenchmarkLargeRequest: the demo answering a 45 MB request, read from the body as it arrives
// (resume: 5,000 turns and a new prompt; summary: a compaction's 40 MB summary prompt).
func BenchmarkLargeRequest(b *testing.B) {
	for _, tc := range []struct {
		name string
		c    *chat
	}{{"resume-5000-turns", resumedChat(5000)}, {"summary-40MB", summaryChat(40 << 20)}} {
		body := tc.c.body()
		b.Run(tc.name, func(b *testing.B) {
			rt := NewTransport(Options{FullSpeed: true})
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, BaseURL+"/chat/completions", bytes.NewReader(body))
				resp, err := rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				if resp.StatusCode != http.StatusOK {
					msg, _ := io.ReadAll(resp.Body)
					b.Fatalf("status %d: %s", resp.StatusCode, msg)
				}
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
		})
	}
}
