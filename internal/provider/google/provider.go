// Package google streams answers from Google's Gemini API ("google-generative-ai" in pi's
// models.json) as pi 1.6's google provider does, through google.golang.org/genai, Google's own Go
// SDK: the transcript becomes contents with thinking replayed as thought parts carrying their
// thoughtSignature for the model that wrote them, tool calls as function calls and results as
// function responses; thinking is asked for by level (Gemini 3 and later) or token budget (2.5), as
// pi maps them (request.go); the streamed parts become text, thinking and tool-call blocks (stream.go).
//
// The contents are encoded by this package, byte for byte as the SDK would, and a session's next
// request encodes only the messages after the last prompt both share (contents.go, contentsbody.go):
// the SDK sends its body with the encoded contents in place of a placeholder.
//
// The SDK's retries are off (it retries only when asked; the harness retries visibly), and so is its
// automatic continuation, as in pi. The key is the call's (GEMINI_API_KEY is read by pi-go's
// configuration, never by the SDK from the environment).
//
// It knows the provider vocabulary and the wire format; nothing of the loop, tools, sessions or
// where keys come from.
package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/genai"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/blockstream"
)

// Config configures a Provider.
type Config struct {
	// HTTPClient sends the requests; nil means a client on http.DefaultTransport without an overall
	// timeout (a stream may last many minutes).
	HTTPClient *http.Client
}

// Provider streams Gemini answers. It is safe for concurrent use.
type Provider struct {
	client   *http.Client
	calls    atomic.Int64  // numbers the tool-call ids made up for calls that came without one
	contents contentsCache // the last request's encoded contents, to encode only what is new
}

// New returns a provider.
func New(cfg Config) *Provider {
	c := cfg.HTTPClient
	if c == nil {
		c = &http.Client{Transport: http.DefaultTransport}
	}
	return &Provider{client: provider.HookClient(c)} // extensions' before_provider_request / after_provider_response
}

// defaultBaseURL is Gemini's endpoint with its API version, as pi's models name it.
const defaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"

// Stream sends req and streams the answer into emit (see provider.Provider). Every failure ends the
// stream with a message whose StopReason is error or aborted, never a Go error or a panic.
func (p *Provider) Stream(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	if req == nil || req.Model == nil {
		return provider.NewBlockBuilder(&provider.Model{API: provider.APIGoogleGenerativeAI}, emit).
			Fail(provider.StopReasonError, "No model given for the request")
	}
	m := *req.Model
	m.API = provider.APIGoogleGenerativeAI // pi writes this API on every answer of the provider
	b := provider.NewBlockBuilder(&m, emit)
	key := req.Options.APIKey
	fail := func(ctx context.Context, msg string) *provider.AssistantMessage {
		if ctx.Err() != nil && !blockstream.Fired(ctx) {
			return b.Fail(provider.StopReasonAborted, "Request was aborted")
		}
		if len(key) >= 4 {
			msg = strings.ReplaceAll(msg, key, "[redacted]")
		}
		return b.Fail(provider.StopReasonError, msg)
	}
	if ctx.Err() != nil {
		return fail(ctx, "")
	}
	if key == "" {
		return fail(ctx, "No API key for provider: "+m.Provider)
	}
	cfg, err := buildConfig(req)
	if err != nil {
		return fail(ctx, err.Error())
	}
	st, err := p.contents.Take().encode(req, provider.NewSpillFile)
	if err != nil {
		// The temporary file could not be written: this request's contents are encoded in memory.
		if st, err = (*contentsState)(nil).encode(req, provider.NewMemorySpill); err != nil {
			return fail(ctx, err.Error())
		}
	}
	// The body reads the encoded contents, never changed once written, with its own list of where
	// they are (made before the state goes back, when another request may take it).
	contents, err := st.body()
	if err != nil {
		return fail(ctx, err.Error())
	}
	p.contents.Keep(st)

	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := blockstream.IdleTimeout(req.Options.IdleTimeout, m.Reasoning && req.Options.Reasoning != "" && req.Options.Reasoning != provider.ThinkingOff)
	watch := blockstream.StartWatchdog(idle, cancel)
	defer watch.Stop()

	client, bodies, err := p.newClient(callCtx, req, key, contents)
	if err != nil {
		return fail(ctx, "Cannot create the Gemini client: "+err.Error())
	}
	r := newReader(b, &m, func() int64 { return p.calls.Add(1) })
	sdkContents := placeholderContents
	if contents.n == 0 {
		sdkContents = nil // the SDK then writes no contents at all, which is what is sent
	}
	err = each(client.Models.GenerateContentStream(callCtx, m.ID, sdkContents, cfg), func(chunk *genai.GenerateContentResponse) {
		watch.Touch()
		b.Start()
		r.chunk(chunk)
	})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return fail(ctx, "")
		case blockstream.Fired(callCtx):
			return fail(callCtx, fmt.Sprintf("Request timed out: no data from %s for %s", m.BaseURL, idle))
		}
		return fail(ctx, errorText(err, req.Options.MaxRetryDelay))
	}
	r.closeCurrent()
	switch {
	case ctx.Err() != nil:
		return fail(ctx, "")
	case blockstream.Fired(callCtx):
		return fail(callCtx, fmt.Sprintf("Request timed out: no data from %s for %s", m.BaseURL, idle))
	case bodies.readErr() != nil:
		return fail(ctx, "Connection lost while streaming the answer: "+bodies.readErr().Error())
	case b.StopReason() == provider.StopReasonPending:
		return fail(ctx, "Google stream ended without a finish reason")
	case b.StopReason() == provider.StopReasonError:
		return fail(ctx, "Provider stopped with: "+b.RawStopReason())
	}
	return b.Finish()
}

// retryDelay is the wait a google.rpc.RetryInfo detail asks for ("37s").
func retryDelay(details []map[string]any) (time.Duration, bool) {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		if s, ok := d["retryDelay"].(string); ok {
			if wait, err := time.ParseDuration(s); err == nil && wait >= 0 {
				return wait, true
			}
		}
	}
	return 0, false
}

// sdkPanic is a panic of the SDK's stream decoder, which converts chunks with type assertions that
// malformed data fails (`{"candidates":""}`, found by FuzzStream).
type sdkPanic struct{ value any }

func (e sdkPanic) Error() string { return fmt.Sprint(e.value) }

// each calls f for every chunk of the stream until it ends or yields an error, which it returns. A
// panic inside the SDK while it decodes a chunk becomes an error (bad server data must end the
// answer, never the program); f's own panics are not caught.
func each(stream iter.Seq2[*genai.GenerateContentResponse, error], f func(*genai.GenerateContentResponse)) error {
	next, stop := iter.Pull2(stream)
	defer stop()
	for {
		chunk, err, ok := pull(next)
		switch {
		case err != nil:
			return err
		case !ok:
			return nil
		case chunk != nil:
			f(chunk)
		}
	}
}

func pull(next func() (*genai.GenerateContentResponse, error, bool)) (chunk *genai.GenerateContentResponse, err error, ok bool) {
	defer func() {
		if v := recover(); v != nil {
			chunk, err, ok = nil, sdkPanic{v}, false
		}
	}()
	return next()
}

// newClient makes an SDK client for one call: the model's base URL (which holds the API version),
// its headers and the call's, the key, and a transport that sends contents (nil: the SDK's own) in
// place of the SDK's placeholder.
func (p *Provider) newClient(ctx context.Context, req *provider.Request, key string, contents *contentsSource) (*genai.Client, *bodyErrors, error) {
	base := strings.TrimRight(req.Model.BaseURL, "/")
	if base == "" {
		base = defaultBaseURL
	}
	headers := http.Header{}
	for k, v := range req.Model.Headers {
		headers.Set(k, v)
	}
	for k, v := range req.Options.Headers {
		headers.Set(k, v)
	}
	root, version := splitVersion(base)
	hc := *p.client
	bodies := &bodyErrors{base: hc.Transport}
	if bodies.base == nil {
		bodies.base = http.DefaultTransport
	}
	hc.Transport = bodies
	if contents != nil && contents.n > 0 {
		hc.Transport = &contentsTransport{base: bodies, contents: contents}
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      key,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  &hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: root, APIVersion: version, Headers: headers},
	})
	return client, bodies, err
}

// splitVersion cuts a base URL as pi's models name it ("…/v1beta", the version included; pi's SDK
// appends no version to it) into the SDK's base URL and API version, which the SDK joins again. A
// base URL without a path gets the version ".", which the SDK's URL join drops: the SDK would put
// its default version there otherwise.
func splitVersion(base string) (root, version string) {
	u, err := url.Parse(base)
	if err != nil || strings.Trim(u.Path, "/") == "" {
		return base + "/", "."
	}
	i := strings.LastIndexByte(u.Path, '/')
	version = u.Path[i+1:]
	u.Path = u.Path[:i+1]
	return u.String(), version
}

// errorText words an error as pi's SDK does: "got status: <status>. <the error body>" for an error
// answer (its status says whether a retry may help), the transport's words otherwise. A wait the
// server asks for (its RetryInfo) beyond maxRetryDelay (when > 0) is said to end the attempts.
func errorText(err error, maxRetryDelay time.Duration) string {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		status := apiErr.Status
		if text := http.StatusText(apiErr.Code); text != "" && (status == "" || !strings.Contains(status, text)) {
			status = fmt.Sprintf("%d %s", apiErr.Code, text)
		}
		body := map[string]any{"code": apiErr.Code, "message": apiErr.Message, "status": apiErr.Status}
		if len(apiErr.Details) > 0 {
			body["details"] = apiErr.Details
		}
		raw, _ := json.Marshal(map[string]any{"error": body})
		msg := fmt.Sprintf("got status: %s. %s", status, raw)
		if wait, ok := retryDelay(apiErr.Details); ok && maxRetryDelay > 0 && wait > maxRetryDelay {
			msg += fmt.Sprintf(". Server asked to retry after %s (more than retry.maxAgentDelayMs %s)%s",
				wait, maxRetryDelay, provider.NotRetryingNote)
		}
		return msg
	}
	var p sdkPanic
	if errors.As(err, &p) {
		return "Malformed data in Gemini stream: the SDK could not read it (" + p.Error() + ")"
	}
	msg := err.Error()
	if strings.Contains(msg, "iterateResponseStream") {
		return "Malformed data in Gemini stream: " + msg
	}
	return "Connection error: " + msg
}
