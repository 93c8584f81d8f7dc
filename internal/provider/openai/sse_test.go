package openai

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// readAll returns the data of every event of body, or the error that ended it.
func readAll(body io.Reader) ([]string, error) {
	r := newSSEReader(body)
	var out []string
	for {
		ev, err := r.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		s := string(ev.Data)
		if len(ev.Name) > 0 {
			s = string(ev.Name) + "=" + s
		}
		out = append(out, s)
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"plain", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []string{`{"a":1}`, "[DONE]"}},
		{"no space after colon", "data:{\"a\":1}\n\n", []string{`{"a":1}`}},
		{"CRLF", "data: {\"a\":1}\r\n\r\ndata: 2\r\n\r\n", []string{`{"a":1}`, "2"}},
		{"lone CR", "data: 1\r\rdata: 2\r\r", []string{"1", "2"}},
		{"comments and blank lines", ": OPENROUTER PROCESSING\n\n\n\n: ping\ndata: 1\n\n\n", []string{"1"}},
		{"multi-line data", "data: {\"a\":\ndata: 1}\n\n", []string{"{\"a\":\n1}"}},
		{"no blank line between events", "data: {\"a\":1}\ndata: {\"a\":2}\ndata: [DONE]\n", []string{`{"a":1}`, `{"a":2}`, "[DONE]"}},
		{"last event without blank line", "data: 1\n\ndata: [DONE]", []string{"1", "[DONE]"}},
		{"incomplete last event dropped", "data: 1\n\ndata: {\"a\":", []string{"1"}},
		{"event name", "event: error\ndata: {\"error\":{}}\n\ndata: 2\n\n", []string{`error={"error":{}}`, "2"}},
		{"id and retry ignored", "id: 7\nretry: 100\ndata: 1\n\n", []string{"1"}},
		{"data without colon is empty data", "data\n\n", []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, reader := range []struct {
				name string
				r    io.Reader
			}{
				{"whole", strings.NewReader(tt.body)},
				{"byte by byte", iotest.OneByteReader(strings.NewReader(tt.body))},
			} {
				got, err := readAll(reader.r)
				if err != nil {
					t.Fatalf("%s: %v", reader.name, err)
				}
				if strings.Join(got, "|") != strings.Join(tt.want, "|") {
					t.Fatalf("%s: got %q, want %q", reader.name, got, tt.want)
				}
			}
		})
	}
}

func TestSSEReaderLongLine(t *testing.T) {
	long := strings.Repeat("x", 3*sseBufferSize+17)
	got, err := readAll(strings.NewReader("data: " + long + "\n\ndata: 2\n\n"))
	if err != nil || len(got) != 2 || got[0] != long || got[1] != "2" {
		t.Fatalf("got %d events, err %v", len(got), err)
	}
}

func TestSSEReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := readAll(io.MultiReader(strings.NewReader("data: 1\n\n"), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
}

// streamEvents runs one scripted response through the provider.
func streamEvents(t *testing.T, resp openaitest.Response, mutate func(*provider.Request)) (*provider.AssistantMessage, []*provider.AssistantEvent, *openaitest.Server) {
	t.Helper()
	srv := startServer(t)
	srv.Enqueue(resp)
	p := newTestProvider(t, Config{})
	req := simpleRequest(testModel(srv.URL))
	if mutate != nil {
		mutate(req)
	}
	msg, events := run(t, p, context.Background(), req)
	return msg, events, srv
}

func TestKeepAlivesInAnyNumber(t *testing.T) {
	c := chunks()
	// go-openai's own reader gives up after 300 non-data lines in a row; a slow reasoning model behind
	// OpenRouter sends a comment every few seconds for minutes.
	keepAlive := strings.Repeat(": OPENROUTER PROCESSING\n\n", 2000) + strings.Repeat("\n", 2000)
	events := []string{keepAlive, c.Role(), keepAlive, c.Text("after the wait"), keepAlive, c.Finish("stop"), openaitest.Done()}
	msg, _, _ := streamEvents(t, openaitest.Response{Events: events}, nil)
	if msg.StopReason != provider.StopReasonStop || provider.TextOf(msg.Content, "") != "after the wait" {
		t.Fatalf("got %s %q %+v", msg.StopReason, msg.ErrorMessage, msg.Content)
	}
}

func TestServerQuirks(t *testing.T) {
	c := chunks()
	tests := []struct {
		name  string
		resp  openaitest.Response
		stop  provider.StopReason
		text  string
		error string
	}{
		{name: "CRLF line endings", resp: openaitest.Response{Events: []string{
			strings.ReplaceAll(c.Text("crlf"), "\n", "\r\n"), strings.ReplaceAll(c.Finish("stop"), "\n", "\r\n"), "data: [DONE]\r\n\r\n"}},
			stop: provider.StopReasonStop, text: "crlf"},
		{name: "no blank lines", resp: openaitest.Response{Events: []string{
			strings.TrimSuffix(c.Text("a"), "\n"), strings.TrimSuffix(c.Text("b"), "\n"), strings.TrimSuffix(c.Finish("stop"), "\n"), "data: [DONE]"}},
			stop: provider.StopReasonStop, text: "ab"},
		{name: "JSON error with status 200", resp: openaitest.Response{Body: `{"error":{"message":"model is loading","type":"server_error"}}`},
			stop: provider.StopReasonError, error: "model is loading"},
		{name: "non-streaming completion", resp: openaitest.Response{Body: `{
  "id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": "whole answer"}, "finish_reason": "stop"}],
  "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
}`},
			stop: provider.StopReasonStop, text: "whole answer"},
		{name: "HTML with status 200", resp: openaitest.Response{Header: map[string][]string{"Content-Type": {"text/html"}}, Body: "<html><body>Please log in</body></html>"},
			stop: provider.StopReasonError, error: `Stream ended without any data; the server sent "<html><body>Please log in</body></html>"`},
		{name: "empty 200", resp: openaitest.Response{},
			stop: provider.StopReasonError, error: "Stream ended without a finish reason or [DONE]: the server closed the connection early"},
		{name: "non-object chunks are skipped", resp: openaitest.Response{Events: []string{
			openaitest.Data("null"), openaitest.Data("42"), openaitest.Data(`"text"`), openaitest.Data("[]"), c.Text("ok"), c.Finish("stop"), openaitest.Done()}},
			stop: provider.StopReasonStop, text: "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, _, _ := streamEvents(t, tt.resp, nil)
			if msg.StopReason != tt.stop || msg.ErrorMessage != tt.error || provider.TextOf(msg.Content, "") != tt.text {
				t.Fatalf("got %s %q %q, want %s %q %q", msg.StopReason, msg.ErrorMessage, provider.TextOf(msg.Content, ""), tt.stop, tt.error, tt.text)
			}
		})
	}
}

func TestLongToolCallInOneChunk(t *testing.T) {
	c := chunks()
	content := strings.Repeat("line of a big file\n", 60000) // ~1 MB
	args, _ := provider.MarshalJS(map[string]string{"path": "big.txt", "content": content})
	msg, _, _ := streamEvents(t, openaitest.Response{Events: []string{
		c.ToolCall(0, "call_1", "write", string(args)), c.Finish("tool_calls"), openaitest.Done()}}, nil)
	if msg.StopReason != provider.StopReasonToolUse || len(msg.Content) != 1 {
		t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
	var got struct{ Path, Content string }
	if err := msg.Content[0].ParseArguments(&got); err != nil || got.Content != content {
		t.Fatalf("arguments not intact: %v", err)
	}
}

func TestToolCallKeying(t *testing.T) {
	c := chunks()
	tests := []struct {
		name   string
		events []string
		want   []string // id name args
	}{
		{name: "by index, id only on the first fragment", events: []string{
			c.ToolCall(0, "call_a", "bash", `{"command":`), c.ToolCall(1, "call_b", "read", `{"path":"x"}`), c.ToolCall(0, "", "", `"ls"}`)},
			want: []string{`call_a bash {"command":"ls"}`, `call_b read {"path":"x"}`}},
		{name: "gateway changes the id mid-stream", events: []string{
			c.ToolCall(0, "call_a", "bash", `{"command":`), c.ToolCall(0, "call_a2", "", `"pwd"}`)},
			want: []string{`call_a bash {"command":"pwd"}`}},
		{name: "no index: keyed by id", events: []string{
			openaitest.Data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"t1","type":"function","function":{"name":"ls","arguments":"{}"}}]}}]}`),
			openaitest.Data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"t2","type":"function","function":{"name":"read","arguments":"{\"path\":"}}]}}]}`),
			openaitest.Data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"t2","function":{"arguments":"\"a\"}"}}]}}]}`)},
			want: []string{`t1 ls {}`, `t2 read {"path":"a"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := append(append([]string{c.Role()}, tt.events...), c.Finish("tool_calls"), openaitest.Done())
			msg, _, _ := streamEvents(t, openaitest.Response{Events: events}, nil)
			var got []string
			for _, b := range msg.Content {
				got = append(got, b.ID+" "+b.Name+" "+string(b.Arguments))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestChunkDetails(t *testing.T) {
	c := chunks()
	t.Run("first reasoning field wins", func(t *testing.T) {
		msg, _, _ := streamEvents(t, openaitest.Response{Events: []string{
			c.Chunk(map[string]any{"reasoning_content": "A", "reasoning": "A"}, ""),
			c.Chunk(map[string]any{"reasoning": "B", "reasoning_text": "B"}, ""),
			c.Finish("stop"), openaitest.Done()}}, nil)
		if len(msg.Content) != 1 || msg.Content[0].Thinking != "AB" || msg.Content[0].ThinkingSignature != "reasoning_content" {
			t.Fatalf("content %+v", msg.Content)
		}
	})
	t.Run("text after a tool call extends the one text block", func(t *testing.T) {
		msg, events, _ := streamEvents(t, openaitest.Response{Events: []string{
			c.Text("a"), c.ToolCall(0, "call_1", "ls", "{}"), c.Text("b"), c.Finish("tool_calls"), openaitest.Done()}}, nil)
		if len(msg.Content) != 2 || msg.Content[0].Text != "ab" {
			t.Fatalf("content %+v", msg.Content)
		}
		want := "start text_start:0 text_delta:0 toolcall_start:1 toolcall_delta:1 text_delta:0 text_end:0 toolcall_end:1 done"
		if eventTypes(events) != want {
			t.Fatalf("events\n got: %s\nwant: %s", eventTypes(events), want)
		}
	})
	t.Run("usage inside the choice, DeepSeek cache hits, response model", func(t *testing.T) {
		msg, _, _ := streamEvents(t, openaitest.Response{Events: []string{
			openaitest.Data(`{"id":"r1","model":"test-model-2025","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop","usage":{"prompt_tokens":100,"completion_tokens":7,"prompt_cache_hit_tokens":60}}]}`),
			openaitest.Done()}}, nil)
		want := provider.Usage{Input: 40, Output: 7, CacheRead: 60, TotalTokens: 107, Keys: provider.UsageReasoning}
		want.CalculateCost(testModel("").Cost)
		if msg.Usage != want {
			t.Fatalf("usage %+v, want %+v", msg.Usage, want)
		}
		data, _ := msg.MarshalJSON()
		if !strings.Contains(string(data), `"responseModel":"test-model-2025"`) {
			t.Fatalf("no responseModel in %s", data)
		}
	})
	// pi 1.6 no longer takes the writes out of the cached tokens (0.73.1 did: 600 read, 100 input).
	t.Run("OpenRouter cache writes", func(t *testing.T) {
		msg, _, _ := streamEvents(t, openaitest.Response{Events: []string{
			c.Text("x"), c.Finish("stop"),
			openaitest.Data(`{"choices":[],"usage":{"prompt_tokens":1000,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":900,"cache_write_tokens":300}}}`),
			openaitest.Done()}}, nil)
		if msg.Usage.Input != 0 || msg.Usage.CacheRead != 900 || msg.Usage.CacheWrite != 300 || msg.Usage.TotalTokens != 1210 {
			t.Fatalf("usage %+v", msg.Usage)
		}
	})
	t.Run("Kimi's cached tokens and a top-level reasoning count", func(t *testing.T) {
		msg, _, _ := streamEvents(t, openaitest.Response{Events: []string{
			c.Text("x"), c.Finish("stop"),
			openaitest.Data(`{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":30,"cached_tokens":40,"reasoning_tokens":20,"completion_tokens_details":{"reasoning_tokens":0}}}`),
			openaitest.Done()}}, nil)
		if u := msg.Usage; u.Input != 60 || u.CacheRead != 40 || u.Reasoning != 20 || u.TotalTokens != 130 {
			t.Fatalf("usage %+v", u)
		}
	})
	// OpenRouter reports what it billed: pi 1.6 takes it as the total when the accounting is complete.
	for _, tc := range []struct {
		name, usage string
		total       float64
		billed      bool
	}{
		{"billed", `"cost":0.5,"is_byok":false`, 0.5, true},
		{"own key with the upstream cost", `"cost":0.01,"is_byok":true,"cost_details":{"upstream_inference_cost":0.25}`, 0.26, true},
		{"own key with the upstream parts", `"cost":0.01,"is_byok":true,"cost_details":{"upstream_inference_cost":null,"upstream_inference_prompt_cost":0.25,"upstream_inference_completions_cost":0.5}`, 0.76, true},
		{"own key without the upstream cost", `"cost":0.01,"is_byok":true,"cost_details":{"upstream_inference_cost":null}`, 0, false},
		{"no key flag", `"cost":0.5`, 0, false},
		{"a negative cost", `"cost":-1,"is_byok":false`, 0, false},
	} {
		t.Run("OpenRouter cost: "+tc.name, func(t *testing.T) {
			msg, _, _ := streamEvents(t, openaitest.Response{Events: []string{
				c.Text("x"), c.Finish("stop"),
				openaitest.Data(`{"choices":[],"usage":{"prompt_tokens":1000,"completion_tokens":10,` + tc.usage + `}}`),
				openaitest.Done()}}, func(r *provider.Request) {
				m := *r.Model
				m.Provider = "openrouter"
				r.Model = &m
			})
			want := provider.Usage{Input: 1000, Output: 10, TotalTokens: 1010, Keys: provider.UsageReasoning}
			want.CalculateCost(testModel("").Cost)
			if tc.billed {
				want.Cost.Total, want.Cost.TotalFromProvider = tc.total, true
			}
			if msg.Usage != want {
				t.Fatalf("usage %+v\nwant  %+v", msg.Usage, want)
			}
		})
	}
	t.Run("encrypted reasoning detail signs its tool call", func(t *testing.T) {
		msg, _, _ := streamEvents(t, openaitest.Response{Events: []string{
			c.ToolCall(0, "call_9", "ls", "{}"),
			c.Chunk(map[string]any{"reasoning_details": []any{
				map[string]any{"type": "reasoning.text", "text": "ignored"},
				map[string]any{"type": "reasoning.encrypted", "id": "call_9", "data": "b64=="},
			}}, ""),
			c.Finish("tool_calls"), openaitest.Done()}}, nil)
		if len(msg.Content) != 1 || msg.Content[0].ThoughtSignature != `{"data":"b64==","id":"call_9","type":"reasoning.encrypted"}` {
			t.Fatalf("content %+v", msg.Content)
		}
	})
}

// eofBody records whether it was read to its end.
type eofBody struct {
	r     io.Reader
	atEOF bool
}

func (b *eofBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.atEOF = true
	}
	return n, err
}

// TestBodyDrainedAfterDone: the end of the body after [DONE] is read, so the HTTP client can reuse the
// connection (an unread body makes it close the connection, and the next call pays a new TLS handshake).
func TestBodyDrainedAfterDone(t *testing.T) {
	body := &eofBody{r: iotest.OneByteReader(strings.NewReader("data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: [DONE]\n\n"))}
	r := &reader{b: provider.NewStreamBuilder(testModel(""), nil), model: testModel(""), sse: newSSEReader(body)}
	if msg := r.run(); msg != "" || !r.sawDone {
		t.Fatalf("run: %q", msg)
	}
	if !body.atEOF {
		t.Fatal("the body was not read to its end after [DONE]")
	}
}

func TestServerThatStaysOpenAfterDone(t *testing.T) {
	c := chunks()
	srv := startServer(t)
	srv.Enqueue(openaitest.Response{Events: []string{c.Text("fine"), openaitest.Done()}, End: openaitest.EndStall})
	p := newTestProvider(t, Config{})
	p.drainTimeout = 20 * time.Millisecond
	msg, _ := run(t, p, context.Background(), simpleRequest(testModel(srv.URL)))
	if msg.StopReason != provider.StopReasonStop || provider.TextOf(msg.Content, "") != "fine" {
		t.Fatalf("got %s %q", msg.StopReason, msg.ErrorMessage)
	}
}
