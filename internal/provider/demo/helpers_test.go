package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// toolSchemas are the parameter schemas of pi's tools, as the provider sends them.
var toolSchemas = map[string]string{
	"read":  `{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"number"},"limit":{"type":"number"}},"required":["path"]}`,
	"bash":  `{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}`,
	"ls":    `{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"number"}}}`,
	"edit":  `{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array"}},"required":["path","edits"]}`,
	"grep":  `{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]}`,
	"write": `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`,
}

// chat builds an OpenAI chat-completions request body the way the provider does.
type chat struct {
	model     string
	system    string
	msgs      []map[string]any
	tools     []string
	reasoning string
	noUsage   bool
	noStream  bool
	maxTokens int
}

func newChat(tools ...string) *chat {
	return &chat{model: ModelID, system: "You are an expert coding assistant.", tools: tools}
}

func defaultTools() []string { return []string{"read", "bash", "edit", "write"} }

func (c *chat) user(text string) *chat {
	c.msgs = append(c.msgs, map[string]any{"role": "user", "content": text})
	return c
}

func (c *chat) assistant(text string) *chat {
	c.msgs = append(c.msgs, map[string]any{"role": "assistant", "content": text})
	return c
}

// call appends an assistant message with one tool call per name/args pair: call(text, id, name, args, …).
func (c *chat) call(text string, calls ...string) *chat {
	var tcs []map[string]any
	for i := 0; i+2 < len(calls); i += 3 {
		tcs = append(tcs, map[string]any{"id": calls[i], "type": "function",
			"function": map[string]any{"name": calls[i+1], "arguments": calls[i+2]}})
	}
	m := map[string]any{"role": "assistant", "content": text, "tool_calls": tcs}
	if text == "" {
		m["content"] = nil
	}
	c.msgs = append(c.msgs, m)
	return c
}

func (c *chat) result(id, content string) *chat {
	c.msgs = append(c.msgs, map[string]any{"role": "tool", "tool_call_id": id, "content": content})
	return c
}

func (c *chat) body() []byte {
	req := map[string]any{"model": c.model, "stream": !c.noStream}
	if !c.noUsage {
		req["stream_options"] = map[string]any{"include_usage": true}
	}
	msgs := []map[string]any{}
	if c.system != "" {
		role := "system"
		if c.reasoning != "" {
			role = "developer"
		}
		msgs = append(msgs, map[string]any{"role": role, "content": c.system})
	}
	req["messages"] = append(msgs, c.msgs...)
	if c.reasoning != "" {
		req["reasoning_effort"] = c.reasoning
	}
	if c.maxTokens > 0 {
		req["max_completion_tokens"] = c.maxTokens
	}
	var tools []map[string]any
	for _, name := range c.tools {
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
			"name": name, "description": "the " + name + " tool", "parameters": json.RawMessage(toolSchemas[name]), "strict": false}})
	}
	if tools != nil {
		req["tools"] = tools
	}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return b
}

// streamed is a response read back from raw SSE bytes.
type streamed struct {
	ID        string
	Model     string
	Thinking  string
	Text      string
	Calls     []streamedCall
	Finish    string
	Usage     *chunkUsage
	Done      bool
	Chunks    int
	RoleFirst bool
}

type streamedCall struct {
	ID, Type, Name, Args string
}

// chunk is the OpenAI chat.completion.chunk shape, field for field, decoded strictly.
type chunk struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"`
	Created           int64         `json:"created"`
	Model             string        `json:"model"`
	SystemFingerprint string        `json:"system_fingerprint"`
	Choices           []chunkChoice `json:"choices"`
	Usage             *chunkUsage   `json:"usage"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	Logprobs     any        `json:"logprobs"`
	FinishReason *string    `json:"finish_reason"`
}

type chunkDelta struct {
	Role             string          `json:"role"`
	Content          *string         `json:"content"`
	Refusal          any             `json:"refusal"`
	ReasoningContent *string         `json:"reasoning_content"`
	ToolCalls        []chunkToolCall `json:"tool_calls"`
}

type chunkToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string  `json:"name"`
		Arguments *string `json:"arguments"`
	} `json:"function"`
}

type chunkUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
		AudioTokens  int `json:"audio_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens          int `json:"reasoning_tokens"`
		AudioTokens              int `json:"audio_tokens"`
		AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
		RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
	} `json:"completion_tokens_details"`
}

// parseSSE reads raw SSE bytes strictly: every event is "data: <json>\n\n", the last is [DONE], and
// every chunk has OpenAI's fields.
func parseSSE(t testing.TB, raw []byte) streamed {
	t.Helper()
	var s streamed
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	blank := true
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if blank {
				t.Fatalf("two blank lines in a row")
			}
			blank = true
			continue
		}
		if !blank {
			t.Fatalf("event without its blank line before %q", line)
		}
		blank = false
		if s.Done {
			t.Fatalf("data after [DONE]: %q", line)
		}
		payload, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line is not a data line: %q", line)
		}
		if payload == "[DONE]" {
			s.Done = true
			continue
		}
		dec := json.NewDecoder(strings.NewReader(payload))
		dec.DisallowUnknownFields()
		var c chunk
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("chunk %d does not decode as an OpenAI chunk: %v\n%s", s.Chunks, err, payload)
		}
		s.Chunks++
		if c.Object != "chat.completion.chunk" || c.ID == "" || c.Created == 0 || c.Model == "" {
			t.Fatalf("chunk header wrong: %s", payload)
		}
		if s.ID == "" {
			s.ID, s.Model = c.ID, c.Model
		} else if c.ID != s.ID {
			t.Fatalf("chunk id changed from %s to %s", s.ID, c.ID)
		}
		if c.Usage != nil {
			if len(c.Choices) != 0 {
				t.Fatalf("usage chunk with choices: %s", payload)
			}
			s.Usage = c.Usage
			continue
		}
		if len(c.Choices) != 1 || c.Choices[0].Index != 0 {
			t.Fatalf("want one choice with index 0: %s", payload)
		}
		d := c.Choices[0].Delta
		if s.Chunks == 1 {
			s.RoleFirst = d.Role == "assistant"
		} else if d.Role != "" {
			t.Fatalf("role repeated in chunk %d", s.Chunks)
		}
		if d.ReasoningContent != nil {
			s.Thinking += *d.ReasoningContent
		}
		if d.Content != nil {
			s.Text += *d.Content
		}
		for _, tc := range d.ToolCalls {
			if tc.Index == nil {
				t.Fatalf("tool call delta without index: %s", payload)
			}
			for len(s.Calls) <= *tc.Index {
				s.Calls = append(s.Calls, streamedCall{})
			}
			call := &s.Calls[*tc.Index]
			if tc.ID != "" {
				call.ID, call.Type, call.Name = tc.ID, tc.Type, tc.Function.Name
			}
			if tc.Function.Arguments != nil {
				call.Args += *tc.Function.Arguments
			}
		}
		if f := c.Choices[0].FinishReason; f != nil {
			s.Finish = *f
		}
	}
	if !s.Done {
		t.Fatalf("stream did not end with [DONE]")
	}
	return s
}

// post sends body through a full-speed demo transport and returns the raw response body.
func post(t testing.TB, body []byte) []byte {
	t.Helper()
	resp := roundTrip(t, context.Background(), body)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	return raw
}

func roundTrip(t testing.TB, ctx context.Context, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := HTTPClient(Options{FullSpeed: true}).Do(req)
	if err != nil {
		t.Fatalf("request failed: %v", err)
	}
	return resp
}

// ask streams one request at full speed and parses it.
func ask(t testing.TB, c *chat) streamed {
	t.Helper()
	return parseSSE(t, post(t, c.body()))
}

func (s streamed) String() string {
	var b strings.Builder
	if s.Thinking != "" {
		fmt.Fprintf(&b, "[thinking] %s\n", s.Thinking)
	}
	b.WriteString(s.Text)
	for _, c := range s.Calls {
		fmt.Fprintf(&b, "\n[call %s %s %s]", c.ID, c.Name, c.Args)
	}
	fmt.Fprintf(&b, "\n[finish %s]", s.Finish)
	return b.String()
}

// parseRequest decodes and checks a chat-completions body, with OpenAI's wording for what it rejects.
func parseRequest(body []byte) (*conversation, error) {
	return readRequest(bytes.NewReader(body), int64(len(body)), false)
}
