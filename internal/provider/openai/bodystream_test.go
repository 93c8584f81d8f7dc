package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// largeTranscript is a resumed coding session of the given number of turns, about 10 KB each: a
// prompt, a reply with thinking, text and an edit call, the tool's output, and a final answer. The text
// is code-like: quotes, backslashes, tabs and newlines (escaped in JSON), some non-ASCII.
func largeTranscript(turns int, seed int64) []provider.Message {
	r := rand.New(rand.NewSource(seed))
	words := strings.Fields(`func main() { return err != nil if := range for _, v fmt.Println("hello") x.y = z
		// comment the of to and a in is it that package import struct type map[string]int
		ok total += n; "quoted" 'c' path\to\file.go:42 error: failed café naïve 日本 → ✓`)
	text := func(n int) string {
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
	var msgs []provider.Message
	for t := range turns {
		ts := int64(1746093600000 + 1000*t)
		u := provider.NewUserMessage(text(300))
		u.Timestamp = ts
		args, _ := provider.MarshalJS(map[string]string{"path": "src/main.go", "oldText": text(600), "newText": text(600)})
		id := fmt.Sprintf("call_%d", t)
		msgs = append(msgs, u,
			&provider.AssistantMessage{
				Content: []provider.Content{
					{Type: provider.ContentThinking, Thinking: text(800), ThinkingSignature: "reasoning_content"},
					provider.TextContent(text(200)),
					provider.ToolCallContent(id, "edit", args),
				},
				API: provider.APIOpenAICompletions, Provider: "test", Model: "test-model",
				Usage: provider.Usage{Input: 1000 + t, Output: 300}, StopReason: provider.StopReasonToolUse, Timestamp: ts + 100,
			},
			&provider.ToolResultMessage{ToolCallID: id, ToolName: "edit",
				Content: []provider.Content{provider.TextContent(text(4700))}, Timestamp: ts + 200},
			&provider.AssistantMessage{
				Content: []provider.Content{provider.TextContent(text(900))},
				API:     provider.APIOpenAICompletions, Provider: "test", Model: "test-model",
				Usage: provider.Usage{Input: 2000 + t, Output: 250}, StopReason: provider.StopReasonStop, Timestamp: ts + 300,
			})
	}
	return msgs
}

// flatBody is the body written the plain way: every string escaped by jsonx.AppendString into
// one slice. The streamed body must be byte for byte the same.
func flatBody(t testing.TB, req *provider.Request) []byte {
	t.Helper()
	c := resolveCompat(req.Model)
	b, err := buildBody(req, &c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readWith reads r through buffers of the sizes given in turn (cycling), as a transport might.
func readWith(t testing.TB, r io.Reader, sizes ...int) []byte {
	t.Helper()
	var out []byte
	for i := 0; ; i++ {
		p := make([]byte, sizes[i%len(sizes)])
		n, err := r.Read(p)
		out = append(out, p[:n]...)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if n == 0 && len(p) > 0 {
			t.Fatalf("read %d bytes into a %d-byte buffer without an error", n, len(p))
		}
	}
}

func streamedBody(t testing.TB, req *provider.Request, sizes ...int) (*requestBody, []byte) {
	t.Helper()
	c := resolveCompat(req.Model)
	rb, err := newRequestBody(req, &c)
	if err != nil {
		t.Fatal(err)
	}
	got := readWith(t, rb.reader(), sizes...)
	if int64(len(got)) != rb.size {
		t.Fatalf("read %d bytes, size says %d", len(got), rb.size)
	}
	return rb, got
}

// awkward strings: every escape, invalid UTF-8, a U+FFFD that is real, multi-byte characters at every
// position of a long run, U+2028.
var awkwardStrings = []string{
	"", "a", `"`, `\`, "\x00\x01\x1f\x7f", "\n\r\t\b\f", "\xff", "\xe2\x82", "caf\xc3", "\uFFFD", "日本語",
	"\u2028\u2029", "😀", strings.Repeat("é", 700), strings.Repeat(`"\`, 400), strings.Repeat("a", 511),
	strings.Repeat("a", 512), strings.Repeat("ab\x00日\xff", 300),
}

func TestStreamedBodyMatchesFlatBody(t *testing.T) {
	m := testModel("http://127.0.0.1:1/v1")
	m.Reasoning = true
	msgs := largeTranscript(30, 1)
	for i, s := range awkwardStrings {
		msgs = append(msgs, provider.NewUserMessage(s+strings.Repeat("x", i*100)+s),
			&provider.AssistantMessage{Content: []provider.Content{
				{Type: provider.ContentThinking, Thinking: s + strings.Repeat("t", 600), ThinkingSignature: "reasoning_content"},
				provider.TextContent(strings.Repeat(s, 40)), provider.ToolCallContent("c", "bash", json.RawMessage(`{"command":"ls"}`))},
				API: provider.APIOpenAICompletions, Provider: "test", Model: "test-model", StopReason: provider.StopReasonToolUse},
			&provider.ToolResultMessage{ToolCallID: "c", ToolName: "bash",
				Content: []provider.Content{provider.TextContent(s), provider.TextContent(strings.Repeat(s, 50))}})
	}
	req := &provider.Request{Model: m, SystemPrompt: strings.Repeat("You are pi. ", 100), Messages: msgs,
		Tools: []provider.ToolDefinition{bashTool, readTool}, Options: provider.StreamOptions{Reasoning: provider.ThinkingHigh}}
	want := flatBody(t, req)
	if !json.Valid(want) {
		t.Fatal("flat body is not JSON")
	}
	for _, sizes := range [][]int{{32 << 10}, {1}, {5}, {6, 1, 7}, {3, 4096, 2, 513}, {1 << 20}} {
		t.Run(fmt.Sprint(sizes), func(t *testing.T) {
			_, got := streamedBody(t, req, sizes...)
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("streamed body differs at byte %d of %d/%d:\n got …%q\nwant …%q", i, len(got), len(want),
					got[max(i-40, 0):min(i+40, len(got))], want[max(i-40, 0):min(i+40, len(want))])
			}
		})
	}
}

func TestEscapedStringsMatchJSONXAppendString(t *testing.T) {
	for _, s := range awkwardStrings {
		checkEscape(t, s)
	}
}

func FuzzStringEscaper(f *testing.F) {
	for _, s := range awkwardStrings {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, chunk uint8) {
		checkEscape(t, s)
		e := newStringEscaper(s)
		var got []byte
		buf := make([]byte, int(chunk%9)+6) // room for any escape
		for e.active() {
			n := e.write(buf)
			if n == 0 {
				t.Fatalf("no progress with %d bytes of room", len(buf))
			}
			got = append(got, buf[:n]...)
		}
		if want := jsonx.AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("escaped in %d-byte pieces: %q, want %q", len(buf), got, want)
		}
	})
}

func checkEscape(t *testing.T, s string) {
	t.Helper()
	want := jsonx.AppendString(nil, s)
	if n := jsonx.QuotedLen(s); n != len(want) {
		t.Errorf("jsonx.QuotedLen(%q) = %d, want %d", s, n, len(want))
	}
	e := newStringEscaper(s)
	got := make([]byte, len(want)+8)
	n := e.write(got)
	if !bytes.Equal(got[:n], want) || e.active() {
		t.Errorf("escaper wrote %q (active %v), want %q", got[:n], e.active(), want)
	}
}

// TestStreamedBodyReachesTheServer: a large transcript arrives whole, with a Content-Length, as valid
// JSON holding every message.
func TestStreamedBodyReachesTheServer(t *testing.T) {
	srv := startServer(t)
	srv.Enqueue(openaitest.TextReply("test-model", "ok"))
	m := testModel(srv.URL)
	req := &provider.Request{Model: m, Messages: largeTranscript(200, 2), Options: provider.StreamOptions{APIKey: testKey}}
	want := flatBody(t, req)
	var announced int64
	inner := &http.Transport{}
	t.Cleanup(inner.CloseIdleConnections)
	p := New(Config{HTTPClient: &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		announced = r.ContentLength
		return inner.RoundTrip(r)
	})}})
	msg, _ := run(t, p, t.Context(), req)
	if msg.StopReason != provider.StopReasonStop {
		t.Fatalf("stop %s: %s", msg.StopReason, msg.ErrorMessage)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := reqs[0].Body; announced != int64(len(want)) || !bytes.Equal(got, want) {
		t.Fatalf("server got %d bytes (Content-Length %d), want %d", len(got), announced, len(want))
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestCompactArgs(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{``, `{}`},
		{`  `, `{}`},
		{`{"a":1}`, `{"a":1}`},
		{` {"a": [1, 2],` + "\n" + `"b" : "x y"} `, `{"a":[1,2],"b":"x y"}`},
		{`{"s":"a \" b \\","t":"\n"}`, `{"s":"a \" b \\","t":"\n"}`},
		{`{"s":"a \" b \\", "t":1}`, `{"s":"a \" b \\","t":1}`},
		{`{"a":1`, `{}`},
		{`{"a":tru}`, `{}`},
		{`{"a":"\x"}`, `{}`},
		{`{"a":1} {"b":2}`, `{}`},
		{`"text"`, `"text"`},
	} {
		if got := compactArgs(json.RawMessage(tt.in)); got != tt.want {
			t.Errorf("compactArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestLongTranscriptFromSpill: a long transcript's body read back from a file-backed spill, from
// scratch and for the next request, is the flat body.
func TestLongTranscriptFromSpill(t *testing.T) {
	req := &provider.Request{Model: testModel("http://127.0.0.1:1/v1"), SystemPrompt: "You are pi.",
		Messages: largeTranscript(300, 3)}
	c := resolveCompat(req.Model)
	cache := new(convCache)
	prev := *req
	prev.Messages = req.Messages[:len(req.Messages)-1]
	for _, r := range []*provider.Request{&prev, req} {
		rb, err := newCachedRequestBody(r, &c, cache)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := rb.src.(*os.File); !ok {
			t.Fatalf("the messages are read from %T, not a file", rb.src)
		}
		want := flatBody(t, r)
		if got := readWith(t, rb.reader(), 32<<10, 7, 1); !bytes.Equal(got, want) {
			t.Fatalf("streamed body (%d bytes) differs from the flat body (%d bytes)", len(got), len(want))
		}
	}
}
