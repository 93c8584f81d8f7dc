package responses

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/blockstream"
)

// Config configures a Provider.
type Config struct {
	// HTTPClient sends the requests; nil means http.DefaultClient's transport without an overall
	// timeout (a stream may last many minutes).
	HTTPClient *http.Client
}

// Provider streams answers from OpenAI's Responses API. It is safe for concurrent use.
type Provider struct {
	client *http.Client
}

// New returns a provider.
func New(cfg Config) *Provider {
	c := cfg.HTTPClient
	if c == nil {
		c = &http.Client{Transport: http.DefaultTransport}
	}
	return &Provider{client: provider.HookClient(c)} // extensions' before_provider_request / after_provider_response
}

const abortedMessage = "Request was aborted"

// Stream sends req and streams the answer into emit (see provider.Provider). Every failure ends the
// stream with a message whose StopReason is error or aborted, never a Go error or a panic.
func (p *Provider) Stream(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	if req == nil || req.Model == nil {
		return provider.NewBlockBuilder(&provider.Model{API: provider.APIOpenAIResponses}, emit).
			Fail(provider.StopReasonError, "No model given for the request")
	}
	m := req.Model
	b := provider.NewBlockBuilder(m, emit)
	headers := requestHeaders(req)
	secrets := secretsOf(req.Options.APIKey, headers)
	fail := func(ctx context.Context, msg string) *provider.AssistantMessage {
		if ctx.Err() != nil && !blockstream.Fired(ctx) {
			return b.Fail(provider.StopReasonAborted, abortedMessage)
		}
		return b.Fail(provider.StopReasonError, redact(msg, secrets))
	}
	if ctx.Err() != nil {
		return fail(ctx, "")
	}
	if req.Options.APIKey == "" && !hasHeader(headers, "authorization") && !hasHeader(headers, "cf-aig-authorization") {
		return fail(ctx, "No API key for provider: "+m.Provider)
	}
	base := strings.TrimRight(m.BaseURL, "/")
	if base == "" {
		return fail(ctx, fmt.Sprintf("Model %s has no base URL", m.String()))
	}
	body, err := buildBody(req)
	if err != nil {
		return fail(ctx, "Cannot build the request: "+err.Error())
	}

	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := blockstream.IdleTimeout(req.Options.IdleTimeout, m.Reasoning && effectiveLevel(m, req.Options.Reasoning) != provider.ThinkingOff)
	watch := blockstream.StartWatchdog(idle, cancel)
	defer watch.Stop()
	target := base + "/responses"
	timedOut := func(what string) string {
		return fmt.Sprintf("Request timed out: no %s from %s for %s", what, redactURL(target), idle)
	}

	resp, err := p.send(callCtx, req, base, body, headers)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return fail(ctx, "")
		case blockstream.Fired(callCtx):
			return fail(callCtx, timedOut("response"))
		case resp != nil && resp.StatusCode >= 400:
			return fail(ctx, httpErrorMessage(m, resp, req.Options.MaxRetryDelay))
		}
		return fail(ctx, "Connection error: "+err.Error())
	}
	defer resp.Body.Close()
	// Cancellation closes the body, which ends a blocked read whatever the transport does.
	stopClose := context.AfterFunc(callCtx, func() { resp.Body.Close() })
	defer stopClose()

	b.Start()
	proc := newProcessor(b, m)
	msg, err := proc.read(resp, watch.Touch)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return fail(ctx, "")
		case blockstream.Fired(callCtx):
			return fail(callCtx, timedOut("data"))
		}
		return fail(ctx, "Connection lost while streaming the answer: "+err.Error())
	}
	switch {
	case ctx.Err() != nil:
		return fail(ctx, "")
	case msg != "":
		return fail(ctx, msg)
	case b.StopReason() == provider.StopReasonPending:
		return fail(ctx, "OpenAI Responses stream ended without a stop reason")
	case b.StopReason() == provider.StopReasonError || b.StopReason() == provider.StopReasonAborted:
		return fail(ctx, errorText(proc))
	}
	return b.Finish()
}

// errorText is the error of a response that ended with an error status.
func errorText(proc *processor) string {
	if msg := proc.b.ErrorMessage(); msg != "" {
		return msg
	}
	return "An unknown error occurred"
}

// send posts the body through the SDK's Responses service, with its retries off (the harness retries
// visibly), and returns the response once its status is known. The SDK's typed stream is not read:
// the body is framed by the SDK's SSE decoder and decoded here (see the package doc).
func (p *Provider) send(ctx context.Context, req *provider.Request, base string, body []byte,
	headers map[string]string) (*http.Response, error) {
	// A service without the SDK's environment defaults (NewClient's): OPENAI_API_KEY,
	// OPENAI_BASE_URL or OPENAI_ORG_ID must not reach a call configured from pi's files.
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(p.client),
		option.WithMaxRetries(0),
		option.WithHeader("Accept", "text/event-stream"),
	}
	if req.Options.APIKey != "" {
		opts = append(opts, option.WithAPIKey(req.Options.APIKey))
	}
	for k, v := range headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	var resp *http.Response
	svc := responses.NewResponseService(opts...)
	stream := svc.NewStreaming(ctx, responses.ResponseNewParams{},
		option.WithRequestBody("application/json", body), option.WithResponseInto(&resp))
	if err := stream.Err(); err != nil {
		return resp, err
	}
	if resp == nil {
		return nil, errors.New("no response")
	}
	return resp, nil
}

// requestHeaders are the model's headers, the session headers pi sends when it caches by session,
// and the call's headers, later ones winning.
func requestHeaders(req *provider.Request) map[string]string {
	h := map[string]string{}
	for k, v := range req.Model.Headers {
		h[k] = v
	}
	if id := req.Options.SessionID; id != "" {
		if req.Model.Provider == "openrouter" || strings.Contains(req.Model.BaseURL, "openrouter.ai") {
			h["x-session-id"] = id
		} else {
			h["session-id"] = id
			h["x-client-request-id"] = id
		}
	}
	for k, v := range req.Options.Headers {
		h[k] = v
	}
	return h
}

func hasHeader(h map[string]string, name string) bool {
	for k, v := range h {
		if strings.EqualFold(k, name) && strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}

// httpErrorMessage words an error status as pi does: "<Provider> API error (<status>): <the error
// object>" (or the body's text), plus the server's requested wait when it is beyond what the harness
// will wait.
func httpErrorMessage(m *provider.Model, resp *http.Response, maxRetryDelay time.Duration) string {
	prefix := m.Provider + " API error"
	if m.Provider == "openai" {
		prefix = "OpenAI API error"
	}
	if resp == nil {
		return prefix + ": no response"
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	status := resp.StatusCode
	msg := fmt.Sprintf("%s (%d): %s", prefix, status, errorBodyText(status, raw))
	if wait, ok := provider.ServerRetryWait(resp.Header, time.Now()); ok && maxRetryDelay > 0 && wait > maxRetryDelay {
		msg += fmt.Sprintf(". Server asked to retry after %s (more than retry.maxAgentDelayMs %s)%s",
			wait.Round(time.Second), maxRetryDelay, provider.NotRetryingNote)
	}
	return msg
}

// errorBodyText is the part of an error body pi quotes: the "error" object as JSON; without one,
// the SDK's "<status> <body>" or "<status> status code (no body)".
func errorBodyText(status int, raw []byte) string {
	raw = bytes.TrimSpace(raw)
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		if e, ok := obj["error"]; ok && bytes.HasPrefix(bytes.TrimSpace(e), []byte("{")) && string(bytes.TrimSpace(e)) != "{}" {
			return compact(e)
		}
	}
	if len(raw) == 0 {
		return strconv.Itoa(status) + " status code (no body)"
	}
	text := strings.Join(strings.Fields(string(raw)), " ")
	if len(text) > 4000 {
		text = text[:4000] + "…"
	}
	return strconv.Itoa(status) + " " + text
}

// secretsOf lists what an error text must never quote: the key and secret header values.
func secretsOf(apiKey string, headers map[string]string) []string {
	var out []string
	if len(apiKey) >= 4 {
		out = append(out, apiKey)
	}
	for k, v := range headers {
		n := strings.ToLower(k)
		if strings.Contains(n, "auth") || strings.Contains(n, "key") || strings.Contains(n, "token") ||
			strings.Contains(n, "secret") || strings.Contains(n, "cookie") {
			v = strings.TrimSpace(strings.TrimPrefix(v, "Bearer "))
			if len(v) >= 4 {
				out = append(out, v)
			}
		}
	}
	return out
}

func redact(s string, secrets []string) string {
	for _, secret := range secrets {
		s = strings.ReplaceAll(s, secret, "[redacted]")
	}
	return s
}

func redactURL(raw string) string {
	if i := strings.Index(raw, "://"); i >= 0 {
		if at := strings.IndexByte(raw[i+3:], '@'); at >= 0 && !strings.Contains(raw[i+3:i+3+at], "/") {
			return raw[:i+3] + "[redacted]@" + raw[i+3+at+1:]
		}
	}
	return raw
}
