package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

func goOpenAIClient(opts Options) *openai.Client {
	cfg := openai.DefaultConfig("")
	cfg.BaseURL = BaseURL
	cfg.HTTPClient = HTTPClient(opts)
	return openai.NewClientWithConfig(cfg)
}

var lsTool = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
	Name: "ls", Description: "List a directory", Parameters: json.RawMessage(toolSchemas["ls"])}}

func TestGoOpenAIStreamsText(t *testing.T) {
	client := goOpenAIClient(Options{FullSpeed: true})
	stream, err := client.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model:         ModelID,
		Messages:      []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: "Be helpful."}, {Role: openai.ChatMessageRoleUser, Content: "hello"}},
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	})
	if err != nil {
		t.Fatalf("CreateChatCompletionStream: %v", err)
	}
	defer stream.Close()
	if ct := stream.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("Content-Type %q", ct)
	}
	var text strings.Builder
	var finish openai.FinishReason
	var usage *openai.Usage
	chunks := 0
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Recv after %d chunks: %v", chunks, err)
		}
		chunks++
		if resp.Object != "chat.completion.chunk" || resp.Model != ModelID || !strings.HasPrefix(resp.ID, "chatcmpl-") {
			t.Fatalf("chunk header: %+v", resp)
		}
		if resp.Usage != nil {
			usage = resp.Usage
			continue
		}
		if chunks == 1 && resp.Choices[0].Delta.Role != openai.ChatMessageRoleAssistant {
			t.Errorf("first chunk must carry the role")
		}
		text.WriteString(resp.Choices[0].Delta.Content)
		if resp.Choices[0].FinishReason != "" {
			finish = resp.Choices[0].FinishReason
		}
	}
	if !strings.Contains(text.String(), "offline demo model") || finish != openai.FinishReasonStop {
		t.Errorf("finish %q, text:\n%s", finish, text.String())
	}
	if chunks < 50 {
		t.Errorf("only %d chunks: the answer should stream word by word", chunks)
	}
	if usage == nil || usage.PromptTokens == 0 || usage.CompletionTokens == 0 || usage.TotalTokens != usage.PromptTokens+usage.CompletionTokens {
		t.Errorf("usage %+v", usage)
	}
}

func TestGoOpenAIStreamsToolCalls(t *testing.T) {
	client := goOpenAIClient(Options{FullSpeed: true})
	stream, err := client.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model:    ModelID,
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "list the files in internal/"}},
		Tools:    []openai.Tool{lsTool},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	type call struct{ id, name, args string }
	var calls []call
	var finish openai.FinishReason
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if resp.Usage != nil {
			t.Fatalf("usage chunk sent without include_usage")
		}
		for _, tc := range resp.Choices[0].Delta.ToolCalls {
			if tc.Index == nil {
				t.Fatal("tool call delta without index")
			}
			for len(calls) <= *tc.Index {
				calls = append(calls, call{})
			}
			c := &calls[*tc.Index]
			if tc.ID != "" {
				c.id, c.name = tc.ID, tc.Function.Name
			}
			c.args += tc.Function.Arguments
		}
		if f := resp.Choices[0].FinishReason; f != "" {
			finish = f
		}
	}
	if len(calls) != 1 || calls[0].name != "ls" || calls[0].args != `{"path":"internal/"}` || finish != openai.FinishReasonToolCalls {
		t.Fatalf("calls %+v finish %q", calls, finish)
	}
}

func TestGoOpenAINonStreaming(t *testing.T) {
	client := goOpenAIClient(Options{FullSpeed: true})
	resp, err := client.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model:    ModelID,
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "run `go version`"}},
		Tools:    []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "bash", Parameters: json.RawMessage(toolSchemas["bash"])}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Object != "chat.completion" || len(resp.Choices) != 1 || resp.Choices[0].FinishReason != openai.FinishReasonToolCalls {
		t.Fatalf("response %+v", resp)
	}
	tc := resp.Choices[0].Message.ToolCalls
	if len(tc) != 1 || tc[0].Function.Name != "bash" || tc[0].Function.Arguments != `{"command":"go version"}` || resp.Usage.TotalTokens == 0 {
		t.Fatalf("tool calls %+v usage %+v", tc, resp.Usage)
	}
}

func TestGoOpenAIReportsBadRequests(t *testing.T) {
	client := goOpenAIClient(Options{FullSpeed: true})
	_, err := client.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{Model: ModelID})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 400 || !strings.Contains(apiErr.Message, "messages") {
		t.Fatalf("want a 400 APIError about messages, got %v", err)
	}

	bad := goOpenAIClient(Options{Getenv: func(string) string { return "soon" }})
	_, err = bad.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: ModelID, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 400 || !strings.Contains(apiErr.Message, `PI_DEMO_DELAY="soon"`) {
		t.Fatalf("want a 400 naming the bad PI_DEMO_DELAY, got %v", err)
	}
}

func TestHTTPErrorsHaveOpenAIShape(t *testing.T) {
	tests := []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"not JSON", "POST", "/v1/chat/completions", "{", 400, "could not parse the JSON body"},
		{"no model", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, 400, "model parameter"},
		{"empty messages", "POST", "/v1/chat/completions", `{"model":"m","messages":[]}`, 400, "empty array"},
		{"bad role", "POST", "/v1/chat/completions", `{"model":"m","messages":[{"role":"robot","content":"hi"}]}`, 400, `messages[0]': unknown role "robot"`},
		{"bad content", "POST", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":42}]}`, 400, "'content' must be"},
		{"tool without id", "POST", "/v1/chat/completions", `{"model":"m","messages":[{"role":"tool","content":"x"}]}`, 400, "tool_call_id"},
		{"wrong method", "GET", "/v1/chat/completions", "", 405, "use POST"},
		{"unknown URL", "POST", "/v1/embeddings", "{}", 404, "Unknown request URL: POST /v1/embeddings"},
	}
	client := HTTPClient(Options{FullSpeed: true})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, "http://demo.pi-go.invalid"+tt.path, strings.NewReader(tt.body))
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e struct {
				Error struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
					Code    *string `json:"code"`
				} `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || !strings.Contains(e.Error.Message, tt.want) || e.Error.Type != "invalid_request_error" {
				t.Errorf("status %d, error %+v; want %d and %q", resp.StatusCode, e.Error, tt.status, tt.want)
			}
		})
	}
}

func TestModelsEndpoint(t *testing.T) {
	models, err := goOpenAIClient(Options{FullSpeed: true}).ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(models.Models) != 1 || models.Models[0].ID != ModelID {
		t.Fatalf("models %+v", models)
	}
}

func TestModelDescribesTheDemo(t *testing.T) {
	m := Model()
	if m.Provider != "demo" || m.ID != ModelID || !strings.Contains(strings.ToLower(m.Name), "demo") ||
		!strings.HasSuffix(m.BaseURL, ".invalid/v1") || m.ContextWindow <= 0 || m.MaxTokens <= 0 || m.Cost.Input != 0 || m.Cost.Output != 0 {
		t.Fatalf("model %+v", m)
	}
	m.ID = "changed"
	if Model().ID != ModelID {
		t.Fatal("Model must return a fresh value")
	}
	for _, w := range []string{"OPENAI_API_KEY", "--base-url", "~/.pi/agent/models.json"} {
		if !strings.Contains(Hint, w) || strings.Contains(Hint, "\n") {
			t.Errorf("Hint must be one line naming %s: %q", w, Hint)
		}
	}
}

func TestSameIDsForSameRequest(t *testing.T) {
	now := func() time.Time { return time.Unix(1700000000, 0) }
	body := newChat(defaultTools()...).user("read a.go and b.go").body()
	read := func() []byte {
		req, _ := http.NewRequest("POST", BaseURL+"/chat/completions", bytes.NewReader(body))
		resp, err := HTTPClient(Options{FullSpeed: true, Now: now}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	a, b := read(), read()
	if !bytes.Equal(a, b) {
		t.Fatal("the same request must stream the same bytes")
	}
	if !bytes.Contains(a, []byte(`"created":1700000000`)) {
		t.Error("created must come from Options.Now")
	}
}

func TestParseDelay(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"0", 0, ""},
		{"15", 15 * time.Millisecond, ""},
		{" 25ms ", 25 * time.Millisecond, ""},
		{"1s", time.Second, ""},
		{"-5", 0, "negative"},
		{"-5ms", 0, "negative"},
		{"fast", 0, "use milliseconds"},
	}
	for _, tt := range tests {
		got, err := ParseDelay(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseDelay(%q) error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDelay(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvDelay {
				return v
			}
			return ""
		}
	}
	for _, tt := range []struct {
		opts Options
		want time.Duration
	}{
		{Options{Getenv: env("")}, DefaultDelay},
		{Options{Getenv: env("0")}, 0},
		{Options{Getenv: env("40")}, 40 * time.Millisecond},
		{Options{Delay: 5 * time.Millisecond, Getenv: env("40")}, 5 * time.Millisecond},
		{Options{FullSpeed: true, Delay: time.Second, Getenv: env("40")}, 0},
	} {
		if got, err := tt.opts.delay(); err != nil || got != tt.want {
			t.Errorf("delay() = %v, %v; want %v", got, err, tt.want)
		}
	}
	if _, err := (Options{Delay: -time.Second}).delay(); err == nil {
		t.Error("a negative Delay must be an error")
	}
}

func TestPacing(t *testing.T) {
	c := newChat(defaultTools()...).user("read README.md")
	c.reasoning = "high"
	conv, err := parseRequest(c.body())
	if err != nil {
		t.Fatal(err)
	}
	r := plan(conv)
	delay := 20 * time.Millisecond
	events := renderStream("id", "m", 1, true, r, "tool_calls", estimateUsage(conv, r), delay, []string{"call_x"})
	if events[0].pause != firstTokenFactor*delay {
		t.Errorf("first chunk waits %v, want the time to first token %v", events[0].pause, firstTokenFactor*delay)
	}
	var thinking, text, args time.Duration
	var nThinking, nText, nArgs int
	for _, e := range events[1:] {
		switch {
		case bytes.Contains(e.data, []byte(`"reasoning_content"`)):
			thinking += e.pause
			nThinking++
		case bytes.Contains(e.data, []byte(`{"content"`)):
			text += e.pause
			nText++
		case bytes.Contains(e.data, []byte(`"arguments":"`)) && !bytes.Contains(e.data, []byte(`"id":"call_`)):
			args += e.pause
			nArgs++
		}
	}
	if nThinking == 0 || nText == 0 || nArgs == 0 {
		t.Fatalf("missing chunk kinds: %d %d %d", nThinking, nText, nArgs)
	}
	avgText := text / time.Duration(nText)
	if avgText < delay*8/10 || avgText > delay*3 {
		t.Errorf("average pause per text chunk %v, want about %v", avgText, delay)
	}
	if thinking/time.Duration(nThinking) >= avgText || args/time.Duration(nArgs) >= avgText {
		t.Errorf("reasoning and arguments should stream faster than text")
	}
	full := renderStream("id", "m", 1, true, r, "tool_calls", estimateUsage(conv, r), 0, []string{"call_x"})
	for _, e := range full {
		if e.pause != 0 {
			t.Fatalf("full speed must not pause")
		}
	}
}

func TestWordsAndPieces(t *testing.T) {
	got := words("Hello, world.\n\nA `very/long/path/to/some/file.go` here")
	if strings.Join(got, "") != "Hello, world.\n\nA `very/long/path/to/some/file.go` here" {
		t.Fatalf("words lose text: %q", got)
	}
	for _, w := range got {
		if len(w) > maxWordBytes {
			t.Errorf("chunk %q longer than %d bytes", w, maxWordBytes)
		}
	}
	if got[1] != " world." || got[2] != "\n\n" {
		t.Errorf("chunks %q", got)
	}
	ps := pieces("héllo wörld ✓✓✓", 4)
	if strings.Join(ps, "") != "héllo wörld ✓✓✓" {
		t.Fatalf("pieces lose text: %q", ps)
	}
	for _, p := range ps {
		if !utf8.ValidString(p) || len(p) > 4 {
			t.Errorf("piece %q splits a character or is too long", p)
		}
	}
}
