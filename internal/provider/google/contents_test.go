package google

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/pi-go/pi-go/internal/provider"
	gt "github.com/pi-go/pi-go/internal/provider/google/googletest"
)

// captureTransport records the request bodies it is sent and answers each with a short stream.
type captureTransport struct {
	mu     sync.Mutex
	bodies [][]byte
	length []int64
}

func (c *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, body)
	c.length = append(c.length, req.ContentLength)
	c.mu.Unlock()
	sse := gt.NewStream("r", "m", 5).Finish("STOP", gt.Usage{Candidates: 1}, gt.Text("ok", ""))
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(sse)), Request: req}, nil
}

func (c *captureTransport) last(t *testing.T) []byte {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bodies) == 0 {
		t.Fatal("nothing was sent")
	}
	n := len(c.bodies) - 1
	if c.length[n] != int64(len(c.bodies[n])) {
		t.Fatalf("Content-Length %d for a body of %d bytes", c.length[n], len(c.bodies[n]))
	}
	return c.bodies[n]
}

// sdkBody is the body the SDK itself writes for req: its own contents (sdkContents) and config.
func sdkBody(t *testing.T, req *provider.Request) []byte {
	t.Helper()
	capture := &captureTransport{}
	p := New(Config{HTTPClient: &http.Client{Transport: capture}})
	contents, err := sdkContents(req)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := buildConfig(req)
	if err != nil {
		t.Fatal(err)
	}
	client, _, err := p.newClient(context.Background(), req, req.Options.APIKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := each(client.Models.GenerateContentStream(context.Background(), req.Model.ID, contents, cfg), func(*genai.GenerateContentResponse) {}); err != nil {
		t.Fatal(err)
	}
	return capture.last(t)
}

// awkwardTranscript has what the encoding must get exactly as the SDK does: HTML characters, line
// and paragraph separators, control characters and invalid UTF-8 in texts; arguments with nested
// values, numbers, HTML and no arguments at all; thinking and text signatures of this model (valid
// and invalid base64) and of another; images in prompts and in results (errors among them, a
// result with only images); consecutive results (one function-response turn); an errored reply
// whose results are dropped; a call without a result; an empty prompt and an empty text part.
func awkwardTranscript(m *provider.Model) []provider.Message {
	img := provider.ImageContent("aGVsbG8=", "image/png")
	ts := int64(1746093600000)
	reply := func(content ...provider.Content) *provider.AssistantMessage {
		return &provider.AssistantMessage{Content: content, API: m.API, Provider: m.Provider, Model: m.ID,
			StopReason: provider.StopReasonToolUse, Timestamp: ts}
	}
	other := func(content ...provider.Content) *provider.AssistantMessage {
		return &provider.AssistantMessage{Content: content, API: provider.APIOpenAIResponses, Provider: "openai", Model: "gpt",
			StopReason: provider.StopReasonToolUse, Timestamp: ts}
	}
	result := func(id string, isErr bool, content ...provider.Content) *provider.ToolResultMessage {
		return &provider.ToolResultMessage{ToolCallID: id, ToolName: "read", Content: content, IsError: isErr, Timestamp: ts}
	}
	call := func(id, args string) provider.Content { return provider.ToolCallContent(id, "read", []byte(args)) }
	return []provider.Message{
		provider.NewUserMessage("first <b>&amp;</b> \u2028\u2029 \x01\x7f\b\f\t\r\n \xff\xfe end"),
		reply(provider.Content{Type: provider.ContentThinking, Thinking: "plan", ThinkingSignature: "c2ln"},
			provider.Content{Type: provider.ContentText, Text: "", TextSignature: "dGV4dA=="},
			call("call_1", `{"path":"a<b>.go","n":12345678901234567890,"f":1.50,"nested":{"z":[1,"\u00e9",null,true],"a":{}}}`),
			call("call 2", ``)),
		result("call_1", false, provider.TextContent("one"), provider.TextContent("two")),
		result("call 2", true, img),
		other(provider.Content{Type: provider.ContentThinking, Thinking: "theirs", ThinkingSignature: "xyz"},
			provider.TextContent("their text"), call("call|3", `null`)),
		result("call|3", false, img, provider.TextContent("with image")),
		&provider.UserMessage{Content: []provider.Content{provider.TextContent(""), img}},
		&provider.AssistantMessage{Content: []provider.Content{call("x1", `{}`)}, StopReason: provider.StopReasonError,
			ErrorMessage: "boom", Timestamp: ts},
		result("x1", false, provider.TextContent("orphan")),
		provider.NewUserMessage("again"),
		reply(call("call_4", `{"q":"never answered"}`)),
		&provider.UserMessage{}, // nothing to send: the next results still join the turn before
		provider.NewUserMessage("go on"),
		reply(provider.Content{Type: provider.ContentText, Text: "done", TextSignature: "bm90LWJhc2U2NA"}),
		provider.NewUserMessage("last"),
		reply(call("call_5", `{"a":1}`)),
	}
}

// TestContentsMatchTheSDK: over a session's requests (growing, compacted, edited, cut short,
// repeated) and switches between models with different rules (ids, images inside function
// responses or after them, no images at all), the body sent is byte for byte the one the SDK writes
// from its own contents, and a Content-Length that is the body's.
func TestContentsMatchTheSDK(t *testing.T) {
	textOnly := gemini("gemini-2.5-flash")
	textOnly.Input = []string{"text"}
	claude := gemini("claude-sonnet-4-5")
	claude.Reasoning = false
	models := []*provider.Model{gemini("gemini-2.5-flash"), gemini("gemini-3-pro-preview"), textOnly, claude}
	temp := 0.7
	capture := &captureTransport{}
	p := New(Config{HTTPClient: &http.Client{Transport: capture}})
	for _, m := range models {
		m.BaseURL = "http://127.0.0.1:1/v1beta"
		base := append(awkwardTranscript(m), curveTranscript(m, 3)...)
		base = append(base, awkwardTranscript(m)...)
		var seq [][]provider.Message
		for n := 1; n <= len(base); n++ {
			seq = append(seq, base[:n])
		}
		half := len(base) / 2
		seq = append(seq, base, append([]provider.Message{provider.NewUserMessage("summary")}, base[half:]...))
		edited := slices.Clone(base)
		edited[half+1] = provider.NewUserMessage("edited")
		seq = append(seq, edited, base[:half], base[:half], base[:1], nil, base)
		for i, msgs := range seq {
			req := &provider.Request{Model: m, SystemPrompt: "Be <brief> & exact.", Messages: msgs, Tools: []provider.ToolDefinition{readTool},
				Options: provider.StreamOptions{APIKey: "k", Temperature: &temp, Reasoning: provider.ThinkingLow}}
			if i%2 == 1 {
				req.Options = provider.StreamOptions{APIKey: "k"}
				req.Tools = nil
			}
			want := sdkBody(t, req)
			if msg := p.Stream(context.Background(), req, nil); msg.StopReason == provider.StopReasonError {
				t.Fatalf("%s request %d: %s", m.ID, i, msg.ErrorMessage)
			}
			if got := capture.last(t); !bytes.Equal(got, want) {
				t.Fatalf("%s request %d (%d messages):\n got %s\nwant %s", m.ID, i, len(msgs), got, want)
			}
		}
	}
}

// TestSDKStringEscaping: strings are escaped as the SDK's double encoding leaves them, for every
// byte value and the characters encoding/json treats apart.
func TestSDKStringEscaping(t *testing.T) {
	var inputs []string
	for c := range 256 {
		inputs = append(inputs, "a"+string([]byte{byte(c)})+"b")
	}
	inputs = append(inputs, "\u2028\u2029", "é日本→", "\xe2\x80", "\xed\xa0\x80", "<script>&</script>", strings.Repeat("x\"\\", 40))
	for _, s := range inputs {
		first, _ := json.Marshal(s)
		var back string
		if err := json.Unmarshal(first, &back); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(back); err != nil {
			t.Fatal(err)
		}
		if got := appendSDKString(nil, s); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Errorf("%q: got %s, want %s", s, got, want.Bytes())
		}
	}
}

// TestContentsCacheEncodesOnlyTheNewMessages: the next request of a session keeps the contents
// already encoded (where they are in the cache's unlinked file) and adds the new ones.
func TestContentsCacheEncodesOnlyTheNewMessages(t *testing.T) {
	m := gemini("gemini-2.5-pro")
	msgs := curveTranscript(m, 20)
	var cache contentsCache
	first, err := cache.Take().encode(&provider.Request{Model: m, Messages: msgs[:len(msgs)-1]}, provider.NewSpillFile)
	if err != nil {
		t.Fatal(err)
	}
	firstContents := slices.Clone(first.out)
	firstSpill := first.spill
	cache.Keep(first)
	next, err := cache.Take().encode(&provider.Request{Model: m, Messages: msgs}, provider.NewSpillFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(next.out) != len(firstContents)+1 {
		t.Fatalf("%d contents, want %d", len(next.out), len(firstContents)+1)
	}
	if next.spill != firstSpill {
		t.Fatal("the next request did not keep the spill")
	}
	for i := range len(firstContents) - 3 { // the last turn is encoded again
		if next.out[i] != firstContents[i] {
			t.Fatalf("content %d was encoded again", i)
		}
	}
	if got := fmt.Sprint(len(next.bounds)); got != "20" {
		t.Errorf("%s resume points, want one after each of the 20 prompts", got)
	}
	src, err := next.spill.Source()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := src.(*os.File); !ok {
		t.Fatalf("the contents are read from %T, not a file", src)
	}
}

var readTool = provider.ToolDefinition{Name: "read", Description: "Read a <file>",
	Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string","const":"a&b"}},"required":["path"]}`)}

// TestConcurrentRequestsShareTheCache: requests of several sessions sent at once through one
// provider each send their own contents, whichever of them holds the cache.
func TestConcurrentRequestsShareTheCache(t *testing.T) {
	m := gemini("gemini-3-pro-preview")
	m.BaseURL = "http://127.0.0.1:1/v1beta"
	capture := &captureTransport{}
	p := New(Config{HTTPClient: &http.Client{Transport: capture}})
	want := map[string]int{}
	var reqs []*provider.Request
	for s := range 4 {
		msgs := append(curveTranscript(m, 2+s), awkwardTranscript(m)...)
		for n := 1; n <= len(msgs); n += 3 {
			req := &provider.Request{Model: m, SystemPrompt: fmt.Sprint("session ", s), Messages: msgs[:n],
				Options: provider.StreamOptions{APIKey: "k"}}
			reqs = append(reqs, req)
			want[string(sdkBody(t, req))]++
		}
	}
	var wg sync.WaitGroup
	for s := range 4 {
		wg.Go(func() {
			for i := s; i < len(reqs); i += 4 {
				if msg := p.Stream(context.Background(), reqs[i], nil); msg.StopReason == provider.StopReasonError {
					t.Error(msg.ErrorMessage)
				}
			}
		})
	}
	wg.Wait()
	capture.mu.Lock()
	defer capture.mu.Unlock()
	got := capture.bodies[len(capture.bodies)-len(reqs):]
	for _, body := range got {
		if want[string(body)] == 0 {
			t.Fatalf("a body that was not asked for:\n%s", body)
		}
		want[string(body)]--
	}
}

// TestRequestBodyReadsWhole: read through buffers of any size, a body is its pieces joined, as long
// as it says, for no contents, one and several, read from memory and from a file, in one run or in
// several.
func TestRequestBodyReadsWhole(t *testing.T) {
	rest := []byte(`,"generationConfig":{}}` + "\n")
	for _, newSpill := range []func() *provider.Spill{provider.NewMemorySpill, provider.NewSpillFile} {
		for _, contents := range [][]string{nil, {`{"a":1}`}, {`{"a":1}`, `{"b":2}`, `{}`}} {
			st := &contentsState{spill: newSpill()}
			if _, err := st.spill.Add([]byte("dead bytes")); err != nil { // runs do not start at 0
				t.Fatal(err)
			}
			for i, c := range contents {
				r, err := st.spill.Add([]byte("," + c))
				if err != nil {
					t.Fatal(err)
				}
				st.out = append(st.out, r)
				if i == 0 && len(contents) > 2 {
					st.spill.Add([]byte("gap")) // a second run
				}
			}
			cs, err := st.body()
			if err != nil {
				t.Fatal(err)
			}
			body := newRequestBody(cs, rest)
			want := []byte(contentsHead + strings.Join(contents, ",") + "]" + string(rest))
			if got, err := body.bytes(); err != nil || !bytes.Equal(got, want) || int64(len(want)) != body.size {
				t.Fatalf("body %s (%v, %d bytes announced), want %s", got, err, body.size, want)
			}
			for _, size := range []int{1, 3, 7, 1 << 16} {
				var got []byte
				r := body.reader()
				buf := make([]byte, size)
				for {
					n, err := r.Read(buf)
					got = append(got, buf[:n]...)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("read %d at a time: %s, want %s", size, got, want)
				}
			}
		}
	}
}

// TestContentsCacheHoldsNoContents: what the cache keeps between requests is where the contents
// are in its file, not the contents (a 1,000-turn session's are 9 MB).
func TestContentsCacheHoldsNoContents(t *testing.T) {
	m := gemini("gemini-2.5-pro")
	req := &provider.Request{Model: m, Messages: curveTranscript(m, 1000)}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var cache contentsCache
	before := heap()
	st, err := cache.Take().encode(req, provider.NewSpillFile)
	if err != nil {
		t.Fatal(err)
	}
	cache.Keep(st)
	kept := int64(heap()) - int64(before)
	if st.spill.Size() < 8<<20 {
		t.Fatalf("the contents are %d bytes, want a 9 MB transcript's", st.spill.Size())
	}
	if kept > 1<<20 {
		t.Fatalf("the cache holds %d bytes of memory for %d bytes of contents", kept, st.spill.Size())
	}
	runtime.KeepAlive(req)
}
