package google

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
	gt "github.com/pi-go/pi-go/internal/provider/google/googletest"
	"github.com/pi-go/pi-go/internal/provider/loopback"
)

func TestStreamEvents(t *testing.T) {
	s := loopback.New(t, loopback.SSE(gt.Pi16Answers()[0]))
	var firstThought *provider.AssistantMessage
	var events []*provider.AssistantEvent
	msg := New(Config{}).Stream(context.Background(), userRequest(pi16Model(s.URL), "hi"), func(e *provider.AssistantEvent) {
		events = append(events, e)
		if e.Type == provider.EventThinkingDelta && firstThought == nil {
			firstThought = e.Snapshot() // kept: a snapshot, as consumers keep it
		}
	})
	want := "start thinking_start thinking_delta thinking_end text_start text_delta text_end toolcall_start toolcall_delta toolcall_end done"
	if got := eventTypes(events); got != want {
		t.Fatalf("events\n got: %s\nwant: %s", got, want)
	}
	if len(firstThought.Content) != 1 {
		t.Errorf("a kept snapshot changed: %d blocks", len(firstThought.Content))
	}
	if msg.StopReason != provider.StopReasonToolUse || len(msg.Content) != 3 {
		t.Fatalf("message %+v", msg)
	}
	call := msg.Content[2]
	if !strings.HasPrefix(call.ID, "bash_") || string(call.Arguments) != `{"command":"ls"}` || call.ThoughtSignature != "c2lnbmF0dXJlLW9uZQ==" {
		t.Errorf("tool call %+v", call)
	}
	if u := msg.Usage; u.Input != 1034 || u.CacheRead != 200 || u.Output != 32 || u.Reasoning != 20 || u.TotalTokens != 1266 {
		t.Errorf("usage %+v", u)
	}
	if msg.ResponseID != "gem_mock1" || msg.API != provider.APIGoogleGenerativeAI {
		t.Errorf("response id %q api %q", msg.ResponseID, msg.API)
	}
}

// A part that switches between thought and text starts a new block; a signature that arrives on a
// later delta of the block is kept; a function call that comes with an id keeps it.
func TestBlocksAndSignatures(t *testing.T) {
	stream := gt.NewStream("r", "gemini-3-pro-preview", 10).
		Chunk(gt.Thought("a", "")).Chunk(gt.Thought("b", "c2ln")).
		Chunk(gt.Text("one", "")).Chunk(gt.Thought("c", "")).Chunk(gt.Text("two", "")).
		Finish("STOP", gt.Usage{Candidates: 3}, gt.Text("", "ZW5k"), gt.Call("read", `{"path":"<a&b>"}`, "call_7", ""))
	s := loopback.New(t, loopback.SSE(stream))
	_, msg := collect(t, context.Background(), userRequest(pi16Model(s.URL), "hi"))
	var kinds []string
	for _, c := range msg.Content {
		kinds = append(kinds, c.Type+":"+c.Text+c.Thinking)
	}
	if got, want := strings.Join(kinds, " "), "thinking:ab text:one thinking:c text:two toolCall:"; got != want {
		t.Errorf("blocks %s, want %s", got, want)
	}
	if msg.Content[0].ThinkingSignature != "c2ln" || msg.Content[3].TextSignature != "ZW5k" {
		t.Errorf("signatures %+v", msg.Content)
	}
	if c := msg.Content[4]; c.ID != "call_7" || string(c.Arguments) != `{"path":"<a&b>"}` {
		t.Errorf("call %s %s", c.ID, c.Arguments)
	}
}

func TestStopReasons(t *testing.T) {
	for _, tc := range []struct {
		name, stream string
		reason       provider.StopReason
		errText      string
	}{
		{"max tokens", gt.NewStream("r", "m", 5).Chunk(gt.Text("cut", "")).Finish("MAX_TOKENS", gt.Usage{Candidates: 9}), provider.StopReasonLength, ""},
		{"safety", gt.NewStream("r", "m", 5).Finish("SAFETY", gt.Usage{}), provider.StopReasonError, "Provider stopped with: SAFETY"},
		{"malformed call", gt.NewStream("r", "m", 5).Finish("MALFORMED_FUNCTION_CALL", gt.Usage{}), provider.StopReasonError, "Provider stopped with: MALFORMED_FUNCTION_CALL"},
		{"no finish reason", gt.NewStream("r", "m", 5).Chunk(gt.Text("partial", "")).Cut(), provider.StopReasonError, "Google stream ended without a finish reason"},
		{"error in the stream", gt.NewStream("r", "m", 5).Chunk(gt.Text("partial", "")).Raw(`data: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}` + "\r\n\r\n").Cut(),
			provider.StopReasonError, `got status: 503 Service Unavailable. {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`},
		{"malformed", gt.NewStream("r", "m", 5).Raw("data: {nope\r\n\r\n").Cut(), provider.StopReasonError, "Malformed data in Gemini stream"},
		// The SDK's converters panic on this (FuzzStream found it).
		{"malformed candidates", gt.NewStream("r", "m", 5).Raw(`data: {"candidates":""}` + "\r\n\r\n").Cut(), provider.StopReasonError,
			"Malformed data in Gemini stream: the SDK could not read it (interface conversion"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := loopback.New(t, loopback.SSE(tc.stream))
			events, msg := collect(t, context.Background(), userRequest(pi16Model(s.URL), "hi"))
			if msg.StopReason != tc.reason || !strings.HasPrefix(msg.ErrorMessage, tc.errText) {
				t.Fatalf("stop %s %q, want %s %q", msg.StopReason, msg.ErrorMessage, tc.reason, tc.errText)
			}
			if last := events[len(events)-1]; (tc.reason == provider.StopReasonError) != (last.Type == provider.EventError) {
				t.Errorf("last event %s", last.Type)
			}
		})
	}
}

func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		handler   http.HandlerFunc
		want      string
		retryable bool
		overflow  bool
	}{
		{"rate limit", loopback.Status(429, gt.ErrorBody(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).")),
			`got status: 429 Too Many Requests. {"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`, true, false},
		{"overloaded", loopback.Status(503, gt.ErrorBody(503, "UNAVAILABLE", "The model is overloaded.")), "got status: 503 Service Unavailable.", true, false},
		{"bad key", loopback.Status(400, gt.ErrorBody(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")), "got status: 400 Bad Request.", false, false},
		{"overflow", loopback.Status(400, gt.ErrorBody(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).")),
			"got status: 400 Bad Request.", false, true},
		{"plain text", loopback.Status(502, "Bad Gateway"), "got status: 502 Bad Gateway.", true, false},
		{"quota with a long retry delay", loopback.Status(429, `{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED",`+
			`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3600s"}]}}`), "got status: 429 Too Many Requests.", false, false},
		{"rate limit with a short retry delay", loopback.Status(429, `{"error":{"code":429,"message":"Rate limited.","status":"RESOURCE_EXHAUSTED",`+
			`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}`), "got status: 429 Too Many Requests.", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := loopback.New(t, tc.handler)
			req := userRequest(pi16Model(s.URL), "hi")
			req.Options.MaxRetryDelay = time.Minute
			events, msg := collect(t, context.Background(), req)
			if msg.StopReason != provider.StopReasonError || !strings.HasPrefix(msg.ErrorMessage, tc.want) {
				t.Fatalf("got %s %q, want %q", msg.StopReason, msg.ErrorMessage, tc.want)
			}
			if got := provider.IsRetryable(msg); got != tc.retryable {
				t.Errorf("retryable %v, want %v", got, tc.retryable)
			}
			if got := provider.IsContextOverflow(msg, 0); got != tc.overflow {
				t.Errorf("overflow %v, want %v", got, tc.overflow)
			}
			if eventTypes(events) != "error" || s.Count() != 1 {
				t.Errorf("events %s, %d requests", eventTypes(events), s.Count())
			}
		})
	}
}

func TestNoKeyNoRequest(t *testing.T) {
	s := loopback.New(t)
	req := userRequest(pi16Model(s.URL), "hi")
	req.Options.APIKey = ""
	_, msg := collect(t, context.Background(), req)
	if msg.ErrorMessage != "No API key for provider: mockgem" || s.Count() != 0 {
		t.Errorf("%q, %d requests", msg.ErrorMessage, s.Count())
	}
}

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
	s := loopback.New(t, stall(gt.NewStream("r", "m", 5).Chunk(gt.Text("partial", "")).Cut()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	msg := New(Config{}).Stream(ctx, userRequest(pi16Model(s.URL), "hi"), func(e *provider.AssistantEvent) {
		if e.Type == provider.EventTextDelta {
			cancel()
		}
	})
	if msg.StopReason != provider.StopReasonAborted || msg.ErrorMessage != "Request was aborted" || msg.Content[0].Text != "partial" {
		t.Errorf("aborted message %+v", msg)
	}
}

func TestIdleTimeout(t *testing.T) {
	s := loopback.New(t, stall(""))
	req := userRequest(pi16Model(s.URL), "hi")
	req.Options.IdleTimeout = 50 * time.Millisecond
	_, msg := collect(t, context.Background(), req)
	if msg.StopReason != provider.StopReasonError || !strings.HasPrefix(msg.ErrorMessage, "Request timed out") || !provider.IsRetryable(msg) {
		t.Errorf("stalled stream: %s %q", msg.StopReason, msg.ErrorMessage)
	}
}

func TestConnectionDropped(t *testing.T) {
	s := loopback.New(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.Write([]byte(gt.NewStream("r", "m", 5).Chunk(gt.Text("partial", "")).Cut()))
		w.(http.Flusher).Flush()
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close() // mid-chunk: the chunked body never ends
		}
	})
	_, msg := collect(t, context.Background(), userRequest(pi16Model(s.URL), "hi"))
	if msg.StopReason != provider.StopReasonError || !strings.HasPrefix(msg.ErrorMessage, "Connection lost") ||
		!provider.IsRetryable(msg) || msg.Content[0].Text != "partial" {
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
