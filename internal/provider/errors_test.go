package provider

import "testing"

func errMsg(text string) *AssistantMessage {
	return &AssistantMessage{StopReason: StopReasonError, ErrorMessage: text}
}

func TestIsContextOverflow(t *testing.T) {
	overflow := []string{
		"prompt is too long: 213462 tokens > 200000 maximum",
		`413 {"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`,
		"400 Your input exceeds the context window of this model. Please adjust your input and try again.",
		"The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
		"This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
		"Please reduce the length of the messages or completion.",
		"This endpoint's maximum context length is 128000 tokens. However, you requested about 130000 tokens",
		"prompt token count of 140000 exceeds the limit of 128000",
		"the request exceeds the available context size, try increasing it",
		"tokens to keep from the initial prompt is greater than the context length",
		"invalid params, context window exceeds limit",
		"Your request exceeded model token limit: 262144 (requested: 300000)",
		"Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length",
		"model_context_window_exceeded",
		"prompt too long; exceeded max context length by 1200 tokens",
		"context_length_exceeded",
		"Too many tokens in the request",
		"token limit exceeded",
		"400 status code (no body)",
		"413 (no body)",
	}
	for _, text := range overflow {
		if !IsContextOverflow(errMsg(text), 0) {
			t.Errorf("not an overflow: %q", text)
		}
	}
	notOverflow := []string{
		"Throttling error: Too many tokens, please wait",
		"429 Rate limit reached: too many tokens per minute",
		"500 Internal server error",
		"402 status code (no body)",
		"Request timed out: no data from http://x for 2m0s",
	}
	for _, text := range notOverflow {
		if IsContextOverflow(errMsg(text), 0) {
			t.Errorf("wrongly an overflow: %q", text)
		}
	}
	aborted := &AssistantMessage{StopReason: StopReasonAborted, ErrorMessage: "prompt is too long"}
	if IsContextOverflow(aborted, 0) || IsContextOverflow(nil, 100) {
		t.Error("only errors are overflows by text")
	}

	silent := &AssistantMessage{StopReason: StopReasonStop, Usage: Usage{Input: 120000, CacheRead: 10000}}
	if !IsContextOverflow(silent, 128000) || IsContextOverflow(silent, 0) || IsContextOverflow(silent, 200000) {
		t.Error("silent overflow: input + cacheRead above the window")
	}
	truncated := &AssistantMessage{StopReason: StopReasonLength, Usage: Usage{Input: 127000, Output: 0}}
	if !IsContextOverflow(truncated, 128000) {
		t.Error("length stop with no output and a full window is an overflow")
	}
	truncated.Usage.Output = 5
	if IsContextOverflow(truncated, 128000) {
		t.Error("length stop with output is not an overflow")
	}
}

func TestIsRetryable(t *testing.T) {
	retryable := []string{
		"overloaded_error", "529 Overloaded", "Provider returned error", "429 Rate limit reached", "rate_limit_exceeded",
		"Too Many Requests", "500 oops", "502 status code (no body)", "503 Service Unavailable", "504 Gateway Timeout",
		"service_unavailable", "Internal server error", "internal_error", "network error", "Connection error.",
		"Connection refused by http://127.0.0.1:1/v1/chat/completions: is the server running?",
		"Connection lost while streaming the answer: unexpected EOF", "WebSocket closed", "websocket error",
		"other side closed", "fetch failed", "upstream connect error", "reset before headers", "socket hang up",
		"Stream ended without a finish reason or [DONE]: the server closed the connection early",
		"http2 request did not get a response", "Request timed out: no data from http://x for 2m0s", "timeout",
		"terminated", "retry delay 90s exceeds the maximum",
		"408 Request Timeout",
		`429 {"code":"13080","message":"slow down"}`,
	}
	for _, text := range retryable {
		if !IsRetryable(errMsg(text)) {
			t.Errorf("not retryable: %q", text)
		}
	}
	notRetryable := []*AssistantMessage{
		errMsg("401 Incorrect API key provided"),
		errMsg("400 Invalid parameter: store"),
		errMsg("TLS error talking to https://x: x509: certificate signed by unknown authority"),
		errMsg("Malformed JSON in stream chunk 3 (unexpected end of JSON input): \"{\""),
		errMsg("500 prompt is too long: 300000 tokens"), // an overflow is compacted, not retried
		// A client error stays one whatever words its body uses.
		errMsg("400 Invalid value for 'timeout': must be an integer"),
		errMsg("401 Upstream authentication service unavailable"),
		errMsg("403 Forbidden: rate limit exempt keys only"),
		errMsg("404 <html><title>502 Bad Gateway</title></html>"),
		// pi-go's own texts for faults a retry cannot fix.
		errMsg("Connection refused by http://127.0.0.1:1/v1/chat/completions: nothing is listening on 127.0.0.1:1" + NotRetryingNote),
		errMsg("429 Rate limit reached (retry after 2m0s). Server asked to retry after 120 s" + NotRetryingNote),
		// pi 1.6's quota and billing limits.
		errMsg("429 You exceeded your current quota, please check your plan and billing details. insufficient_quota"),
		errMsg(`429 {"code":"1308","message":"Usage limit reached"}`),
		errMsg(""),
		{StopReason: StopReasonAborted, ErrorMessage: "Request was aborted"},
		{StopReason: StopReasonStop, ErrorMessage: "503"},
		nil,
	}
	for _, m := range notRetryable {
		if IsRetryable(m) {
			t.Errorf("wrongly retryable: %+v", m)
		}
	}
}

// A URL in an error text (pi-go names it) never makes the error retryable: its port is not a status.
func TestURLsInErrorsAreNotStatusCodes(t *testing.T) {
	for _, port := range []string{"42927", "5000", "50312", "8503"} {
		msg := &AssistantMessage{StopReason: StopReasonError,
			ErrorMessage: "TLS error talking to https://127.0.0.1:" + port + "/v1/chat/completions: x509: certificate signed by unknown authority"}
		if IsRetryable(msg) {
			t.Errorf("port %s made %q retryable", port, msg.ErrorMessage)
		}
	}
	msg := &AssistantMessage{StopReason: StopReasonError, ErrorMessage: "503 Service Unavailable (POST http://127.0.0.1:8080/v1/chat/completions)"}
	if !IsRetryable(msg) {
		t.Errorf("%q is retryable", msg.ErrorMessage)
	}
}

func TestReportedContextWindow(t *testing.T) {
	cases := []struct {
		text string
		want int
	}{
		{"400 This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.", 8192},
		{"400 request (9000 tokens) exceeds the available context size (4096 tokens), try increasing it", 4096},
		{`400 {"code":400,"message":"the request exceeds the available context size","n_prompt_tokens":9000,"n_ctx":32768}`, 32768},
		{"prompt is too long: 215000 tokens > 200000 maximum", 200000},
		{"the request exceeds the available context size, try increasing it", 0},
		{"429 rate limit: maximum context length is 8192 tokens", 0}, // not an overflow
	}
	for _, c := range cases {
		got, ok := ReportedContextWindow(&AssistantMessage{StopReason: StopReasonError, ErrorMessage: c.text})
		if got != c.want || ok != (c.want > 0) {
			t.Errorf("%q: got %d %v, want %d", c.text, got, ok, c.want)
		}
	}
	if _, ok := ReportedContextWindow(&AssistantMessage{StopReason: StopReasonStop, ErrorMessage: "maximum context length is 8192 tokens"}); ok {
		t.Error("only failed answers report a window")
	}
}
