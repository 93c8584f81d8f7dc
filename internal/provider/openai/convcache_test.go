package openai

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// bodyOf reads a whole request body (the reader checks the announced size).
func bodyOf(t *testing.T, rb *requestBody) []byte {
	t.Helper()
	data, err := io.ReadAll(rb.reader())
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != rb.size {
		t.Fatalf("body is %d bytes, %d announced", len(data), rb.size)
	}
	return data
}

// awkwardTranscript has what makes conversion depend on more than one message: tool calls from
// another provider (their ids normalised, the results following), images in results and prompts,
// an errored reply whose results are dropped, a reply whose call never got a result, and a
// closing reply with unanswered calls, an empty prompt.
func awkwardTranscript() []provider.Message {
	img := provider.ImageContent("aGVsbG8=", "image/png")
	ts := int64(1746093600000)
	call := func(id string, from string) *provider.AssistantMessage {
		return &provider.AssistantMessage{Content: []provider.Content{
			provider.TextContent("calling " + id), provider.ToolCallContent(id, "read", []byte(`{"path": "a.go"}`))},
			API: provider.APIOpenAIResponses, Provider: from, Model: "m", StopReason: provider.StopReasonToolUse, Timestamp: ts}
	}
	result := func(id string, content ...provider.Content) *provider.ToolResultMessage {
		return &provider.ToolResultMessage{ToolCallID: id, ToolName: "read", Content: content, Timestamp: ts}
	}
	answer := func(text string) *provider.AssistantMessage {
		return &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(text)},
			API: provider.APIOpenAICompletions, Provider: "test", Model: "test-model", StopReason: provider.StopReasonStop, Timestamp: ts}
	}
	return []provider.Message{
		provider.NewUserMessage("first"),
		call("call_1|item_1", "openai"), result("call_1|item_1", provider.TextContent("one"), img),
		answer("done one"),
		provider.NewUserMessage("look", img),
		&provider.AssistantMessage{Content: []provider.Content{provider.ToolCallContent("x1", "read", []byte(`{}`))},
			StopReason: provider.StopReasonError, ErrorMessage: "boom", Timestamp: ts},
		result("x1", provider.TextContent("orphan")),
		provider.NewUserMessage("again"),
		call("call_2", "test"), // never answered
		provider.NewUserMessage("and again"),
		call("call_3", "test"), result("call_3", img),
		call("call_4", "test"), result("call_4", provider.TextContent("four")),
		&provider.UserMessage{}, // sends nothing: the prompt after it still follows a tool result
		provider.NewUserMessage("go on"),
		answer("done"),
		provider.NewUserMessage("last"),
		call("call_5", "test"),
	}
}

// TestConvCacheMatchesFreshConversion: whatever the previous request held, a request built with the
// conversion cache is byte for byte the one built from scratch, for growing, shrinking, compacted and
// edited transcripts, on servers whose conversion depends on neighbouring messages.
func TestConvCacheMatchesFreshConversion(t *testing.T) {
	yes := true
	plain := testModel("http://127.0.0.1:1/v1")
	quirky := testModel("http://127.0.0.1:1/v1")
	quirky.Compat = &provider.Compat{RequiresAssistantAfterToolResult: &yes, RequiresToolResultName: &yes}
	routed := testModel("http://127.0.0.1:1/v1")
	routed.Provider, routed.ID = "openrouter", "anthropic/claude"
	textOnly := testModel("http://127.0.0.1:1/v1")
	textOnly.Input = []string{"text"}

	base := append(awkwardTranscript(), largeTranscript(3, 2)...)
	base = append(base, awkwardTranscript()...)
	// The requests of a session, in order: every prefix, then a compaction (a summary in place of the
	// first half), then an edit in the middle, then the whole again.
	var seq [][]provider.Message
	for n := 1; n <= len(base); n++ {
		seq = append(seq, base[:n])
	}
	half := len(base) / 2
	seq = append(seq, append([]provider.Message{provider.NewUserMessage("summary")}, base[half:]...))
	edited := slices.Clone(base)
	edited[half+1] = provider.NewUserMessage("edited")
	seq = append(seq, edited, base[:half], base)

	for _, m := range []*provider.Model{plain, quirky, routed, textOnly} {
		t.Run(m.Provider+"/"+m.ID+fmt.Sprint(m.Input, m.Compat != nil), func(t *testing.T) {
			c := resolveCompat(m)
			var cache convCache
			for i, msgs := range seq {
				req := &provider.Request{Model: m, SystemPrompt: "sys", Messages: msgs, Tools: []provider.ToolDefinition{readTool}}
				want := bodyOf(t, mustBody(t, req, &c, nil))
				got := bodyOf(t, mustBody(t, req, &c, &cache))
				if !bytes.Equal(got, want) {
					t.Fatalf("request %d (%d messages):\n got %s\nwant %s", i, len(msgs), got, want)
				}
				if flat := flatBody(t, req); !bytes.Equal(got, flat) {
					t.Fatalf("request %d (%d messages) differs from the flat body:\n got %s\nwant %s", i, len(msgs), got, flat)
				}
			}
		})
	}
}

// TestConvCacheModelSwitch: a request for another model does not reuse the previous model's
// conversion (another model's replies lose their thinking and their ids change).
func TestConvCacheModelSwitch(t *testing.T) {
	a := testModel("http://127.0.0.1:1/v1")
	b := testModel("http://127.0.0.1:1/v1")
	b.Provider = "openai"
	msgs := awkwardTranscript()
	var cache convCache
	for _, m := range []*provider.Model{a, b, a} {
		c := resolveCompat(m)
		req := &provider.Request{Model: m, Messages: msgs}
		if got, want := bodyOf(t, mustBody(t, req, &c, &cache)), bodyOf(t, mustBody(t, req, &c, nil)); !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %s\nwant %s", m.Provider, got, want)
		}
	}
}

func mustBody(t *testing.T, req *provider.Request, c *compat, cache *convCache) *requestBody {
	t.Helper()
	rb, err := newCachedRequestBody(req, c, cache)
	if err != nil {
		t.Fatal(err)
	}
	return rb
}

// TestConvCacheSpill: the converted messages are kept in an unlinked file; once most of it is
// messages of transcripts no longer sent, the live ones move to a new file; bodies built before
// still read theirs; without a temporary directory they are kept in memory.
func TestConvCacheSpill(t *testing.T) {
	m := testModel("http://127.0.0.1:1/v1")
	c := resolveCompat(m)
	big := func(tag string) provider.Message {
		return provider.NewUserMessage(tag + strings.Repeat("x", 3<<20))
	}
	tail := []provider.Message{big("b"), big("c")}
	var cache convCache
	var kept []*requestBody
	var files []*os.File
	// Each request changes the first message: everything is converted again, the old bytes are dead.
	for i := range 4 {
		req := &provider.Request{Model: m, Messages: append([]provider.Message{big(fmt.Sprint(i))}, tail...)}
		rb := mustBody(t, req, &c, &cache)
		f, ok := rb.src.(*os.File)
		if !ok {
			t.Fatalf("request %d: the messages are read from %T, not a file", i, rb.src)
		}
		if _, err := os.Stat(f.Name()); !os.IsNotExist(err) {
			t.Fatalf("request %d: the spill file %s is still linked (%v)", i, f.Name(), err)
		}
		if !bytes.Equal(bodyOf(t, rb), flatBody(t, req)) {
			t.Fatalf("request %d: the body differs from the flat body", i)
		}
		kept = append(kept, rb)
		files = append(files, f)
	}
	if files[0] == files[3] {
		t.Fatal("the spill was never moved to a new file (about 9 MB of it are dead after each request)")
	}
	if st := cache.Take(); st.spill.Size() > 4*(9<<20) {
		t.Fatalf("the spill holds %d bytes for a 9 MB transcript", st.spill.Size())
	}
	for _, rb := range kept {
		bodyOf(t, rb) // an old body still reads its own file
	}

	t.Run("no directory for a spill file", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "file", "cache")) // under a file: cannot be made
		t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
		var cache convCache
		req := &provider.Request{Model: m, Messages: awkwardTranscript()}
		rb := mustBody(t, req, &c, &cache)
		if _, ok := rb.src.(*os.File); ok {
			t.Fatal("a spill file was made in a missing directory")
		}
		if !bytes.Equal(bodyOf(t, rb), flatBody(t, req)) {
			t.Fatal("the body differs from the flat body")
		}
	})
}

// TestConvCacheHoldsNoMessages: what the cache keeps between requests is where the converted
// messages are in its file (and the file's write buffer): neither the messages as structs nor their
// bytes (9 MB at 1,000 turns).
func TestConvCacheHoldsNoMessages(t *testing.T) {
	req := &provider.Request{Model: testModel("http://127.0.0.1:1/v1"), Messages: largeTranscript(1000, 1)}
	c := resolveCompat(req.Model)
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var cache convCache
	before := heap()
	mustBody(t, req, &c, &cache)
	kept := int64(heap()) - int64(before)
	st := cache.Take()
	if st.spill.Size() < 8<<20 {
		t.Fatalf("the messages are %d bytes, want a 9 MB transcript's", st.spill.Size())
	}
	if kept > 1<<20 {
		t.Fatalf("the cache holds %d bytes of memory for %d bytes of messages", kept, st.spill.Size())
	}
	runtime.KeepAlive(req)
}
