package anthropic

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/anthropictest"
)

// awkwardTranscript has what makes a message's bytes depend on more than the message: tool calls
// from another provider (their ids normalised, the results following), images in results and
// prompts, an error result with images (they travel after all the results), an errored reply whose
// results are dropped, a call that never got a result, string and block prompts (the breakpoint
// turns a string into a block), a blank prompt, answers with signed and redacted thinking and with
// the effort level they were given, and a closing reply with an unanswered call.
func awkwardTranscript(m *provider.Model) []provider.Message {
	img := provider.ImageContent("aGVsbG8=", "image/png")
	ts := int64(1746093600000)
	call := func(id string, from string) *provider.AssistantMessage {
		return &provider.AssistantMessage{Content: []provider.Content{
			provider.TextContent("calling " + id), provider.ToolCallContent(id, "read", []byte(`{"path": "a.go"}`))},
			API: provider.APIOpenAIResponses, Provider: from, Model: "m", StopReason: provider.StopReasonToolUse, Timestamp: ts}
	}
	own := func(id string, level string) *provider.AssistantMessage {
		return &provider.AssistantMessage{Content: []provider.Content{
			{Type: provider.ContentThinking, Thinking: "hmm", ThinkingSignature: "sig-" + id},
			{Type: provider.ContentThinking, Redacted: true, ThinkingSignature: "opaque"},
			provider.ToolCallContent(id, "read", []byte(`{"path":"b.go"}`))},
			API: m.API, Provider: m.Provider, Model: m.ID, StopReason: provider.StopReasonToolUse, Timestamp: ts,
			ProviderThinkingLevel: level}
	}
	result := func(id string, isErr bool, content ...provider.Content) *provider.ToolResultMessage {
		return &provider.ToolResultMessage{ToolCallID: id, ToolName: "read", Content: content, IsError: isErr, Timestamp: ts}
	}
	answer := func(text string) *provider.AssistantMessage {
		return &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(text)},
			API: m.API, Provider: m.Provider, Model: m.ID, StopReason: provider.StopReasonStop, Timestamp: ts, ProviderThinkingLevel: "low"}
	}
	return []provider.Message{
		provider.NewUserMessage("first"),
		call("call_1|item_1", "openai"), result("call_1|item_1", false, provider.TextContent("one"), img),
		answer("done one"),
		&provider.UserMessage{Content: []provider.Content{provider.TextContent("look"), img}},
		&provider.AssistantMessage{Content: []provider.Content{provider.ToolCallContent("x1", "read", []byte(`{}`))},
			StopReason: provider.StopReasonError, ErrorMessage: "boom", Timestamp: ts},
		result("x1", false, provider.TextContent("orphan")),
		provider.NewUserMessage("again"),
		call("call_2", "test"), // never answered
		provider.NewUserMessage("and <again> & \u2028 again"),
		own("toolu_3", "high"), result("toolu_3", true, img, provider.TextContent("failed")),
		own("toolu_4", ""), result("toolu_4", false, provider.TextContent("four")),
		provider.NewUserMessage("   "), // sends nothing
		provider.NewUserMessage("go on"),
		answer("done"),
		provider.NewUserMessage("last"),
		own("toolu_5", "medium"),
	}
}

// TestBodyCacheMatchesFreshBody: whatever the previous request held, a body written over the cached
// one is byte for byte the body written from scratch, for growing, shrinking, compacted, edited and
// repeated transcripts, with every cache retention and on models with effort markers.
func TestBodyCacheMatchesFreshBody(t *testing.T) {
	sonnet, ok := provider.BuiltinModel("anthropic", "claude-sonnet-4-5")
	if !ok {
		t.Fatal("no claude-sonnet-4-5")
	}
	fable, ok := provider.BuiltinModel("anthropic", "claude-fable-5-1")
	if !ok {
		t.Fatal("no claude-fable-5-1")
	}
	textOnly := sonnet
	textOnly.Input = []string{"text"}
	for _, tc := range []struct {
		name      string
		m         provider.Model
		retention CacheRetention
		level     provider.ThinkingLevel
		key       string
	}{
		{"short", sonnet, CacheShort, "", "sk-ant-api"},
		{"long-thinking", sonnet, CacheLong, provider.ThinkingHigh, "sk-ant-api"},
		{"none", sonnet, CacheNone, "", "sk-ant-api"},
		{"text-only", textOnly, CacheShort, "", "sk-ant-api"},
		{"effort", fable, CacheShort, provider.ThinkingMedium, "sk-ant-api"},
		{"oauth", sonnet, CacheShort, "", "sk-ant-oat01-x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			base := append(awkwardTranscript(&m), curveTranscript(&m, 3)...)
			base = append(base, awkwardTranscript(&m)...)
			var seq [][]provider.Message
			for n := 1; n <= len(base); n++ {
				seq = append(seq, base[:n])
			}
			half := len(base) / 2
			seq = append(seq, base, append([]provider.Message{provider.NewUserMessage("summary")}, base[half:]...))
			edited := slices.Clone(base)
			edited[half+1] = provider.NewUserMessage("edited")
			seq = append(seq, edited, base[:half], base[:half], base[:3], base)

			var cache bodyCache
			for i, msgs := range seq {
				req := &provider.Request{Model: &m, SystemPrompt: "sys", Messages: msgs, Tools: []provider.ToolDefinition{readTool},
					Options: provider.StreamOptions{Reasoning: tc.level, APIKey: tc.key}}
				want, err := buildRequest(req, tc.retention)
				if err != nil {
					t.Fatal(err)
				}
				got, err := buildCachedRequest(req, tc.retention, cache.Take())
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.body, want.body) {
					t.Fatalf("request %d (%d messages):\n got %s\nwant %s", i, len(msgs), got.body, want.body)
				}
				cache.Keep(got.state)
			}
		})
	}
}

// TestBodyCacheModelSwitch: a request for another model does not reuse the previous model's body
// (another model's replies lose their thinking and their ids change), and a switch back still
// matches.
func TestBodyCacheModelSwitch(t *testing.T) {
	a, _ := provider.BuiltinModel("anthropic", "claude-sonnet-4-5")
	b, _ := provider.BuiltinModel("anthropic", "claude-opus-4-5")
	msgs := append(awkwardTranscript(&a), awkwardTranscript(&b)...)
	var cache bodyCache
	for i, m := range []*provider.Model{&a, &b, &a, &a} {
		req := &provider.Request{Model: m, Messages: msgs}
		want, err := buildRequest(req, CacheShort)
		if err != nil {
			t.Fatal(err)
		}
		got, err := buildCachedRequest(req, CacheShort, cache.Take())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.body, want.body) {
			t.Fatalf("request %d (%s):\n got %s\nwant %s", i, m.ID, got.body, want.body)
		}
		cache.Keep(got.state)
	}
}

// TestBodyCacheWritesOnlyTheNewMessages: the next request of a session keeps the previous body's
// messages in place (the same array) and writes after them.
func TestBodyCacheWritesOnlyTheNewMessages(t *testing.T) {
	m, _ := provider.BuiltinModel("anthropic", "claude-sonnet-4-5")
	msgs := curveTranscript(&m, 50)
	var cache bodyCache
	first, err := buildCachedRequest(&provider.Request{Model: &m, Messages: msgs[:len(msgs)-1]}, CacheShort, cache.Take())
	if err != nil {
		t.Fatal(err)
	}
	firstArray := &first.body[0]
	cache.Keep(first.state)
	next, err := buildCachedRequest(&provider.Request{Model: &m, Messages: msgs}, CacheShort, cache.Take())
	if err != nil {
		t.Fatal(err)
	}
	if &next.body[0] != firstArray {
		t.Error("the next body was written into a new array")
	}
	if got := fmt.Sprint(len(next.state.bounds)); got != "50" {
		t.Errorf("%s resume points, want one after each of the 50 prompts", got)
	}
}

var readTool = provider.ToolDefinition{Name: "read", Description: "Read a file",
	Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}

// TestStreamSendsCachedBodies: through Stream, a session's requests (answers, tool results, an error
// status in between) reach the server byte for byte as written from scratch, and each call gives its
// body back to the cache once the server has it.
func TestStreamSendsCachedBodies(t *testing.T) {
	srv := startServer(t)
	m := testModel(srv)
	p := New(Config{})
	msgs := []provider.Message{provider.NewUserMessage("start")}
	for turn := range 6 {
		if turn == 3 {
			srv.Enqueue(anthropictest.Reply{Status: 529, Body: anthropictest.ErrorBody("overloaded_error", "Overloaded")})
		} else {
			srv.Enqueue(anthropictest.Reply{Answer: anthropictest.Answer{Blocks: []anthropictest.Block{
				anthropictest.Thinking(fmt.Sprintf("sig-%d", turn), "thinking"),
				anthropictest.ToolUse(fmt.Sprintf("toolu_%d", turn), "read", `{"path":"a.go"}`)}}})
		}
		req := &provider.Request{Model: m, SystemPrompt: "sys", Messages: slices.Clone(msgs), Tools: []provider.ToolDefinition{readTool},
			Options: provider.StreamOptions{APIKey: "sk-ant-test", Reasoning: provider.ThinkingLow}}
		want, err := buildRequest(req, CacheShort)
		if err != nil {
			t.Fatal(err)
		}
		ans := p.Stream(context.Background(), req, nil)
		reqs := srv.Requests()
		if got := reqs[len(reqs)-1].Body; !bytes.Equal(got, want.body) {
			t.Fatalf("turn %d: the server got\n%s\nwant\n%s", turn, got, want.body)
		}
		st := p.bodies.Take()
		kept := st != nil
		p.bodies.Keep(st)
		if !kept {
			t.Fatalf("turn %d: the body did not go back to the cache", turn)
		}
		if ans.StopReason == provider.StopReasonError {
			continue
		}
		msgs = append(msgs, ans, &provider.ToolResultMessage{ToolCallID: fmt.Sprintf("toolu_%d", turn), ToolName: "read",
			Content: []provider.Content{provider.TextContent(fmt.Sprintf("contents %d", turn))}})
	}
}

// TestBodyLeaseWaitsForEveryReader: the body goes back only when the call is over and every reader
// the client took (one for a redirect too) is closed, each counted once.
func TestBodyLeaseWaitsForEveryReader(t *testing.T) {
	released := 0
	l := newBodyLease(func() { released++ })
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/v1/messages", bytes.NewReader([]byte("{}")))
	var first, second io.ReadCloser
	_, _ = l.track(req, func(r *http.Request) (*http.Response, error) {
		first = r.Body
		second, _ = r.GetBody()
		return nil, nil
	})
	l.end()
	first.Close()
	first.Close()
	if released != 0 {
		t.Fatal("released while a redirect's reader is open")
	}
	second.Close()
	if released != 1 {
		t.Fatalf("released %d times, want once", released)
	}
	l.end()
	if released != 1 {
		t.Fatalf("released %d times, want once", released)
	}
}

// TestConcurrentStreamsShareTheCache: requests of several sessions sent at once through one provider
// each reach the server as written from scratch, whichever of them holds the cache.
func TestConcurrentStreamsShareTheCache(t *testing.T) {
	srv := startServer(t)
	m := testModel(srv)
	p := New(Config{})
	want := map[string]int{}
	var reqs []*provider.Request
	for s := range 4 {
		msgs := append(curveTranscript(m, 2+s), awkwardTranscript(m)...)
		for n := 1; n <= len(msgs); n += 3 {
			req := &provider.Request{Model: m, SystemPrompt: fmt.Sprint("session ", s), Messages: msgs[:n],
				Options: provider.StreamOptions{APIKey: "sk-ant-test"}}
			reqs = append(reqs, req)
			built, err := buildRequest(req, CacheShort)
			if err != nil {
				t.Fatal(err)
			}
			want[string(built.body)]++
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
	for _, r := range srv.Requests() {
		if want[string(r.Body)] == 0 {
			t.Fatalf("a body that was not asked for:\n%s", r.Body)
		}
		want[string(r.Body)]--
	}
}
