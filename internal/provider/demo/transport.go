package demo

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRequestBody bounds what the demo reads of a request (a transcript with a few images fits).
const maxRequestBody = 64 << 20

// transport answers like an OpenAI chat-completions endpoint; see NewTransport.
type transport struct {
	delay    time.Duration
	delayErr error // a bad PI_DEMO_DELAY, reported on every chat request
	now      func() time.Time
}

// NewTransport returns the demo endpoint as an http.RoundTripper. It answers, for any host:
//   - POST …/chat/completions: the scripted reply, streamed as OpenAI's SSE chunks when "stream" is
//     true (with a usage chunk when stream_options.include_usage is set, then "data: [DONE]"), else as
//     one chat.completion object;
//   - GET …/models: a list holding the demo model;
//   - anything else: OpenAI's JSON error with status 404 (unknown URL) or 405 (wrong method).
//
// Bad request bodies get a 400 with OpenAI's error shape, saying what is wrong. The stream honours the
// request's context: cancelling it ends the body's Read at once with the context's error. No
// goroutine outlives a request.
func NewTransport(opts Options) http.RoundTripper {
	d, err := opts.delay()
	return &transport{delay: d, delayErr: err, now: opts.now}
}

// HTTPClient is an *http.Client whose transport is NewTransport(opts); give it to the OpenAI-compatible
// provider together with Model(). It has no timeout: streams end by themselves or by cancellation.
func HTTPClient(opts Options) *http.Client {
	return &http.Client{Transport: NewTransport(opts)}
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	body := &bodyReader{r: req.Body, hash: sha256.New(), limit: maxRequestBody}
	path := strings.TrimRight(req.URL.Path, "/")
	isChat := strings.HasSuffix(path, "/chat/completions") || path == "chat/completions"
	var conv *conversation
	var parseErr error
	if req.Body != nil {
		// The chat body is decoded as it is read (a resumed session sends tens of megabytes, of which
		// the script needs the tools and the last messages); the rest is read for the size and the ids.
		if isChat && req.Method == http.MethodPost && t.delayErr == nil {
			size := req.ContentLength
			if size <= 0 {
				size = -1
			}
			conv, parseErr = readRequest(body, size, false)
		}
		_, err := io.Copy(io.Discard, body)
		req.Body.Close()
		if err == nil && body.n <= maxRequestBody {
			var re *requestError
			if parseErr != nil && !errors.As(parseErr, &re) {
				err = parseErr // the reader failed while the request was decoded
			}
		}
		if err != nil && !errors.Is(err, errBodyTooLarge) {
			return nil, fmt.Errorf("demo: reading the request body: %w", err)
		}
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	switch {
	case isChat:
		if req.Method != http.MethodPost {
			return errorResponse(req, http.StatusMethodNotAllowed, "method_not_allowed", "",
				fmt.Sprintf("Invalid method for URL (%s %s): use POST.", req.Method, req.URL.Path)), nil
		}
		if body.n > maxRequestBody {
			return errorResponse(req, http.StatusRequestEntityTooLarge, "request_too_large", "",
				fmt.Sprintf("The request body is larger than the demo model accepts (%d MB).", maxRequestBody>>20)), nil
		}
		if req.Body == nil {
			// No body at all: decode the empty one, for the same answer as an empty body.
			conv, parseErr = readRequest(bytes.NewReader(nil), 0, false)
		}
		var sum [sha256.Size]byte
		body.hash.Sum(sum[:0])
		return t.chat(req, conv, parseErr, sum), nil
	case strings.HasSuffix(path, "/models") && req.Method == http.MethodGet:
		return jsonResponse(req, http.StatusOK, modelList()), nil
	}
	return errorResponse(req, http.StatusNotFound, "unknown_url", "",
		fmt.Sprintf("Unknown request URL: %s %s. The offline demo model only answers POST /chat/completions and GET /models.", req.Method, req.URL.Path)), nil
}

// errBodyTooLarge stops reading a request body past maxRequestBody.
var errBodyTooLarge = errors.New("demo: request body too large")

// bodyReader reads a request body for the decoder, hashing and counting it, and stops with
// errBodyTooLarge once it has read more than limit bytes.
type bodyReader struct {
	r     io.Reader
	hash  hash.Hash
	n     int64
	limit int64
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.r == nil {
		return 0, io.EOF
	}
	if b.n > b.limit {
		return 0, errBodyTooLarge
	}
	if room := b.limit + 1 - b.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.r.Read(p)
	b.hash.Write(p[:n])
	b.n += int64(n)
	return n, err
}

// chat answers a chat-completions request: c is the decoded body (or parseErr says why it is not
// one), sum the body's SHA-256.
func (t *transport) chat(req *http.Request, c *conversation, parseErr error, sum [sha256.Size]byte) *http.Response {
	if t.delayErr != nil {
		return errorResponse(req, http.StatusBadRequest, "demo_config", "", t.delayErr.Error())
	}
	if parseErr != nil {
		var re *requestError
		if errors.As(parseErr, &re) {
			return errorResponse(req, http.StatusBadRequest, "", re.Param, re.Message)
		}
		return errorResponse(req, http.StatusBadRequest, "", "", parseErr.Error())
	}
	r := plan(c)
	finish := "stop"
	if len(r.Calls) > 0 {
		finish = "tool_calls"
	}
	if r.limit(c.MaxTokens) {
		finish = "length"
	}
	u := estimateUsage(c, r)
	// Ids derive from the request, so a transcript always gets the same ones (tests) and different
	// requests get different ones.
	id := "chatcmpl-" + base62(sum[:], 24)
	callIDs := make([]string, len(r.Calls))
	for i := range r.Calls {
		callSum := sha256.Sum256(append(sum[:], byte(i)))
		callIDs[i] = "call_" + base62(callSum[:], 24)
	}
	created := t.now().Unix()
	if !c.Stream {
		return jsonResponse(req, http.StatusOK, completionObject(id, c.Model, created, r, finish, u, callIDs))
	}
	events := renderStream(id, c.Model, created, c.IncludeUsage, r, finish, u, t.delay, callIDs)
	h := http.Header{}
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Request-Id", "req_"+base62(sum[8:], 24))
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    http.StatusOK,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          newSSEBody(req.Context(), events),
		ContentLength: -1,
		Request:       req,
	}
}

// completionObject is the non-streaming answer (stream: false).
func completionObject(id, model string, created int64, r reply, finish string, u usage, callIDs []string) any {
	type function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type toolCall struct {
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	msg := map[string]any{"role": "assistant", "content": r.Text, "refusal": nil}
	if r.Thinking != "" {
		msg["reasoning_content"] = r.Thinking
	}
	if len(r.Calls) > 0 {
		calls := make([]toolCall, len(r.Calls))
		for i, c := range r.Calls {
			calls[i] = toolCall{ID: callIDs[i], Type: "function", Function: function{Name: c.Name, Arguments: c.Args}}
		}
		msg["tool_calls"] = calls
		if r.Text == "" {
			msg["content"] = nil
		}
	}
	return map[string]any{
		"id":                 id,
		"object":             "chat.completion",
		"created":            created,
		"model":              model,
		"system_fingerprint": "fp_pigodemo",
		"choices": []any{map[string]any{
			"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish,
		}},
		"usage": map[string]any{
			"prompt_tokens":     u.prompt,
			"completion_tokens": u.completion,
			"total_tokens":      u.prompt + u.completion,
			"prompt_tokens_details": map[string]int{
				"cached_tokens": u.cached, "audio_tokens": 0,
			},
			"completion_tokens_details": map[string]int{
				"reasoning_tokens": u.reasoning, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
			},
		},
	}
}

func modelList() any {
	m := Model()
	return map[string]any{
		"object": "list",
		"data":   []any{map[string]any{"id": m.ID, "object": "model", "created": 0, "owned_by": "pi-go"}},
	}
}

// errorResponse is OpenAI's error object: {"error":{"message","type","param","code"}}.
func errorResponse(req *http.Request, status int, code, param, msg string) *http.Response {
	e := map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	if param != "" {
		e["param"] = param
	}
	return jsonResponse(req, status, map[string]any{"error": e})
}

func jsonResponse(req *http.Request, status int, v any) *http.Response {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only maps of strings and numbers are encoded here; this cannot fail, but answer sanely anyway.
		buf.Reset()
		buf.WriteString(`{"error":{"message":"demo: encoding the response failed","type":"server_error","param":null,"code":null}}`)
		status = http.StatusInternalServerError
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	return &http.Response{
		Status:        strconv.Itoa(status) + " " + http.StatusText(status),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(buf.Bytes())),
		ContentLength: int64(buf.Len()),
		Request:       req,
	}
}

const base62Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// base62 writes n (at most len(sum)) characters derived from the bytes of a digest.
func base62(sum []byte, n int) string {
	out := make([]byte, n)
	for i := range out {
		out[i] = base62Digits[int(sum[i])%len(base62Digits)]
	}
	return string(out)
}
