package responses

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/loopback"
	rt "github.com/pi-go/pi-go/internal/provider/responses/responsestest"
)

func TestStreamEvents(t *testing.T) {
	s := loopback.New(t, loopback.SSE(rt.Pi16Answers()[0]))
	var firstText *provider.AssistantMessage
	var events []*provider.AssistantEvent
	msg := New(Config{}).Stream(context.Background(), userRequest(pi16Model(s.URL), "hi"), func(e *provider.AssistantEvent) {
		events = append(events, e)
		if e.Type == provider.EventTextDelta && firstText == nil {
			firstText = e.Snapshot() // kept: a snapshot, as consumers keep it
		}
	})
	want := "start thinking_start thinking_delta thinking_delta thinking_delta thinking_end text_start text_delta " +
		"text_delta text_end toolcall_start toolcall_delta toolcall_delta toolcall_end done"
	if got := eventTypes(events); got != want {
		t.Fatalf("events\n got: %s\nwant: %s", got, want)
	}
	if firstText.Content[1].Text != "Let me " {
		t.Errorf("a kept snapshot changed: %q", firstText.Content[1].Text)
	}
	if msg.StopReason != provider.StopReasonToolUse || len(msg.Content) != 3 {
		t.Fatalf("message %+v", msg)
	}
	call := msg.Content[2]
	if call.ID != "call_mock1|fc_mock1" || call.Name != "bash" || string(call.Arguments) != `{"command":"ls"}` || call.PartialArgs != nil {
		t.Errorf("tool call %+v", call)
	}
	if u := msg.Usage; u.Input != 1034 || u.CacheRead != 200 || u.Output != 57 || u.Reasoning != 20 || u.TotalTokens != 1291 || u.Cost.Total == 0 {
		t.Errorf("usage %+v", u)
	}
	if msg.ResponseID != "resp_mock1" || msg.API != provider.APIOpenAIResponses {
		t.Errorf("response id %q api %q", msg.ResponseID, msg.API)
	}
}

// Encrypted reasoning that only the completed response carries (Azure) is put into the stored item.
func TestReasoningBackfill(t *testing.T) {
	stream := rt.NewStream("resp_1", "m").Reasoning("rs_1", "", "Thinking.").Message("msg_1", "", "Hi.").Cut()
	stream += "event: response.completed\ndata: " + `{"type":"response.completed","sequence_number":99,"response":{"id":"resp_1","status":"completed","output":[{"id":"rs_1","type":"reasoning","encrypted_content":"ENC","summary":[]}],"usage":null}}` + "\n\n"
	s := loopback.New(t, loopback.SSE(stream))
	_, msg := collect(t, context.Background(), userRequest(pi16Model(s.URL), "hi"))
	want := `{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Thinking."}],"encrypted_content":"ENC"}`
	if got := msg.Content[0].ThinkingSignature; got != want {
		t.Errorf("signature\n got: %s\nwant: %s", got, want)
	}
}

func TestStopReasons(t *testing.T) {
	for _, tc := range []struct {
		name, stream string
		reason       provider.StopReason
		errText      string
	}{
		{"length", rt.NewStream("r", "m").Message("msg", "", "cut").Incomplete("max_output_tokens", rt.Usage{Input: 5, Output: 9}), provider.StopReasonLength, ""},
		{"content filter", rt.NewStream("r", "m").Message("msg", "", "x").Incomplete("content_filter", rt.Usage{}), provider.StopReasonError, "Response incomplete: content_filter"},
		{"failed", rt.NewStream("r", "m").Failed("server_error", "The model crashed"), provider.StopReasonError, "server_error: The model crashed"},
		{"error event", rt.NewStream("r", "m").Message("msg", "", "partial").Error("rate_limit_exceeded", "Rate limit reached for requests"), provider.StopReasonError, "Error Code rate_limit_exceeded: Rate limit reached for requests"},
		{"no terminal event", rt.NewStream("r", "m").Message("msg", "", "partial").Cut(), provider.StopReasonError, "OpenAI Responses stream ended before a terminal response event"},
		{"malformed", rt.NewStream("r", "m").Raw("event: x\ndata: {nope\n\n").Cut(), provider.StopReasonError, "Malformed JSON in Responses stream event"},
		{"unfinished tool call", rt.NewStream("r", "m").Event("response.output_item.added", `"output_index":0,"item":{"id":"fc_1","type":"function_call","arguments":"","call_id":"c1","name":"bash"}`).
			Event("response.function_call_arguments.delta", `"output_index":0,"delta":"{\"com"`).Completed(rt.Usage{}), provider.StopReasonError,
			"OpenAI Responses stream completed with an unfinished tool call: bash (c1|fc_1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := loopback.New(t, loopback.SSE(tc.stream))
			events, msg := collect(t, context.Background(), userRequest(pi16Model(s.URL), "hi"))
			if msg.StopReason != tc.reason || !strings.HasPrefix(msg.ErrorMessage, tc.errText) {
				t.Fatalf("stop %s %q, want %s %q", msg.StopReason, msg.ErrorMessage, tc.reason, tc.errText)
			}
			last := events[len(events)-1]
			if (tc.reason == provider.StopReasonError) != (last.Type == provider.EventError) || last.Message.StopReason != tc.reason {
				t.Errorf("last event %s %s", last.Type, last.Reason)
			}
		})
	}
	// A mid-stream rate limit keeps what came before it and is retried.
	s := loopback.New(t, loopback.SSE(rt.NewStream("r", "m").Message("msg", "", "partial").Error("rate_limit_exceeded", "Rate limit reached")))
	_, msg := collect(t, context.Background(), userRequest(pi16Model(s.URL), "hi"))
	if !provider.IsRetryable(msg) || len(msg.Content) != 1 || msg.Content[0].Text != "partial" {
		t.Errorf("mid-stream rate limit: retryable %v, content %+v", provider.IsRetryable(msg), msg.Content)
	}
}

func TestHTTPErrors(t *testing.T) {
	rateLimit := `{"error":{"message":"Rate limit reached for gpt-5 on tokens per min.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`
	for _, tc := range []struct {
		name      string
		handler   http.HandlerFunc
		maxDelay  time.Duration
		want      string
		retryable bool
		overflow  bool
	}{
		{"rate limit", loopback.Status(429, rateLimit, "Retry-After", "2"), 0,
			`mockresp API error (429): {"message":"Rate limit reached for gpt-5 on tokens per min.","type":"tokens","param":null,"code":"rate_limit_exceeded"}`, true, false},
		{"rate limit beyond the retry limit", loopback.Status(429, rateLimit, "Retry-After", "3600"), time.Minute,
			"Server asked to retry after 1h0m0s", false, false},
		{"server error without body", loopback.Status(500, ""), 0, "mockresp API error (500): 500 status code (no body)", true, false},
		{"overloaded text body", loopback.Status(503, "upstream overloaded"), 0, "mockresp API error (503): 503 upstream overloaded", true, false},
		{"bad key", loopback.Status(401, `{"error":{"message":"Incorrect API key provided: sk-test-key.","type":"invalid_request_error","code":"invalid_api_key"}}`), 0,
			`mockresp API error (401): {"message":"Incorrect API key provided: [redacted].","type":"invalid_request_error","code":"invalid_api_key"}`, false, false},
		{"context overflow", loopback.Status(400, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","code":"context_length_exceeded"}}`), 0,
			"mockresp API error (400): ", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := loopback.New(t, tc.handler)
			req := userRequest(pi16Model(s.URL), "hi")
			req.Options.MaxRetryDelay = tc.maxDelay
			events, msg := collect(t, context.Background(), req)
			if msg.StopReason != provider.StopReasonError || !strings.Contains(msg.ErrorMessage, tc.want) {
				t.Fatalf("got %s %q, want %q", msg.StopReason, msg.ErrorMessage, tc.want)
			}
			if got := provider.IsRetryable(msg); got != tc.retryable {
				t.Errorf("retryable %v, want %v", got, tc.retryable)
			}
			if got := provider.IsContextOverflow(msg, 0); got != tc.overflow {
				t.Errorf("overflow %v, want %v", got, tc.overflow)
			}
			if eventTypes(events) != "error" {
				t.Errorf("events %s: an answer that never began has no start", eventTypes(events))
			}
			if s.Count() != 1 {
				t.Errorf("%d requests: the SDK must not retry", s.Count())
			}
		})
	}
}

func TestNoKeyNoRequest(t *testing.T) {
	s := loopback.New(t)
	req := userRequest(pi16Model(s.URL), "hi")
	req.Options.APIKey = ""
	_, msg := collect(t, context.Background(), req)
	if msg.ErrorMessage != "No API key for provider: mockresp" || s.Count() != 0 {
		t.Errorf("%q, %d requests", msg.ErrorMessage, s.Count())
	}
}

// stall sends head, then holds the stream open until the client goes away.
func stall(head string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.Write([]byte(head))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

func TestAbortMidStream(t *testing.T) {
	s := loopback.New(t, stall(rt.NewStream("r", "m").Message("msg", "", "partial").Cut()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var events []*provider.AssistantEvent
	msg := New(Config{}).Stream(ctx, userRequest(pi16Model(s.URL), "hi"), func(e *provider.AssistantEvent) {
		events = append(events, e)
		if e.Type == provider.EventTextEnd {
			cancel()
		}
	})
	if msg.StopReason != provider.StopReasonAborted || msg.ErrorMessage != "Request was aborted" || msg.Content[0].Text != "partial" {
		t.Errorf("aborted message %+v", msg)
	}
}

func TestIdleTimeout(t *testing.T) {
	s := loopback.New(t, stall(rt.NewStream("r", "m").Cut()))
	req := userRequest(pi16Model(s.URL), "hi")
	req.Options.IdleTimeout = 50 * time.Millisecond
	_, msg := collect(t, context.Background(), req)
	// "no data from" once the head has arrived; "no response from" when a loaded machine has not
	// delivered the headers within 50 ms. Both are the retryable idle timeout.
	if msg.StopReason != provider.StopReasonError || !provider.IsRetryable(msg) ||
		!(strings.HasPrefix(msg.ErrorMessage, "Request timed out: no data from") || strings.HasPrefix(msg.ErrorMessage, "Request timed out: no response from")) {
		t.Errorf("stalled stream: %s %q", msg.StopReason, msg.ErrorMessage)
	}
}

func TestConnectionDropped(t *testing.T) {
	s := loopback.New(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.Write([]byte(rt.NewStream("r", "m").Message("msg", "", "partial").Cut()))
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close() // mid-chunk: the chunked body never ends
		}
	})
	_, msg := collect(t, context.Background(), userRequest(pi16Model(s.URL), "hi"))
	if msg.StopReason != provider.StopReasonError || !strings.HasPrefix(msg.ErrorMessage, "Connection lost") || !provider.IsRetryable(msg) {
		t.Errorf("dropped connection: %s %q", msg.StopReason, msg.ErrorMessage)
	}
}

func TestConnectionRefused(t *testing.T) {
	s := loopback.New(t)
	url := s.URL
	s.Close()
	_, msg := collect(t, context.Background(), userRequest(pi16Model(url), "hi"))
	if msg.StopReason != provider.StopReasonError || !strings.HasPrefix(msg.ErrorMessage, "Connection error: ") || !provider.IsRetryable(msg) {
		t.Errorf("refused: %s %q", msg.StopReason, msg.ErrorMessage)
	}
}
