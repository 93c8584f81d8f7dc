package anthropic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/pi-go/pi-go/internal/provider"
)

// Config configures a Provider.
type Config struct {
	// HTTPClient sends the requests; nil means http.DefaultClient's transport with no overall timeout
	// (streams may last long).
	HTTPClient *http.Client
	// CacheRetention is the prompt-cache retention (pi's PI_CACHE_RETENTION); "" means short.
	CacheRetention CacheRetention
}

// Provider streams Anthropic Messages. It is safe for concurrent use.
type Provider struct {
	client    *http.Client
	retention CacheRetention
	bodies    bodyCache // the last request's body, to write only what is new into the next one
}

// New returns a provider.
func New(cfg Config) *Provider {
	p := &Provider{client: cfg.HTTPClient, retention: cfg.CacheRetention}
	if p.client == nil {
		p.client = &http.Client{}
	}
	p.client = provider.HookClient(p.client) // extensions' before_provider_request / after_provider_response
	return p
}

// abortedMessage is pi's text for a cancelled request.
const abortedMessage = "Request was aborted"

// apiVersion is the anthropic-version pi's SDK sends.
const apiVersion = "2023-06-01"

// Stream sends req and streams the answer into emit (see provider.Provider). Every failure ends the
// stream with an error or aborted message; it never returns a Go error.
func (p *Provider) Stream(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	if req == nil || req.Model == nil {
		return provider.NewBlockBuilder(&provider.Model{}, emit).Fail(provider.StopReasonError, "No model given for the request")
	}
	m := req.Model
	b := provider.NewBlockBuilder(m, emit)
	fail := func(msg string) *provider.AssistantMessage {
		if ctx.Err() != nil {
			return b.Fail(provider.StopReasonAborted, abortedMessage)
		}
		return b.Fail(provider.StopReasonError, redact(msg, req.Options.APIKey))
	}
	if ctx.Err() != nil {
		return fail("")
	}
	headers := mergeHeaders(m.Headers, req.Options.Headers)
	if req.Options.APIKey == "" && !hasHeader(headers, "authorization") && !hasHeader(headers, "x-api-key") {
		return fail("No API key for provider: " + m.Provider)
	}
	built, err := buildCachedRequest(req, p.retention, p.bodies.Take())
	if err != nil {
		return fail("Cannot build the request: " + err.Error())
	}
	lease := newBodyLease(func() { p.bodies.Keep(built.state) })
	defer lease.end()
	if built.effort != "" {
		b.SetProviderThinkingLevel(built.effort)
	}
	base := strings.TrimRight(m.BaseURL, "/")
	if base == "" {
		return fail("Model " + m.String() + " has no base URL")
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(p.client),
		option.WithMaxRetries(0), // the harness retries, visibly
		option.WithHeader("anthropic-version", apiVersion),
		option.WithHeader("accept", "application/json"),
		option.WithHeader("anthropic-dangerous-direct-browser-access", "true"),
		option.WithHeaderDel("authorization"),
		option.WithMiddleware(lease.track),
	}
	oauth := isOAuthToken(req.Options.APIKey)
	switch {
	case oauth:
		opts = append(opts, option.WithHeader("authorization", "Bearer "+req.Options.APIKey),
			option.WithHeader("user-agent", "claude-cli/"+claudeCodeVersion), option.WithHeader("x-app", "cli"))
	case req.Options.APIKey != "":
		opts = append(opts, option.WithHeader("x-api-key", req.Options.APIKey))
	}
	if len(built.betas) > 0 && !hasHeader(headers, "anthropic-beta") {
		opts = append(opts, option.WithHeader("anthropic-beta", strings.Join(built.betas, ",")))
	}
	for k, v := range headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	client := sdk.NewClient(opts...)
	idle := idleTimeout(req)
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var timer *time.Timer
	if idle > 0 {
		timer = time.AfterFunc(idle, func() { cancel(errIdle) })
		defer timer.Stop()
	}
	stalled := func() string {
		return fmt.Sprintf("Request timed out: no data from %s for %s", base, idle)
	}
	var resp *http.Response
	err = client.Post(callCtx, "v1/messages", built.body, &resp)
	if err != nil {
		if ctx.Err() != nil {
			return fail("")
		}
		if context.Cause(callCtx) == errIdle {
			return fail(stalled())
		}
		var apiErr *sdk.Error
		if errors.As(err, &apiErr) {
			return fail(statusMessage(apiErr, req.Options.MaxRetryDelay))
		}
		return fail(provider.ConnectionErrorMessage(err, base))
	}
	defer resp.Body.Close()
	if timer != nil {
		timer.Reset(idle)
		resp.Body = &touchReader{ReadCloser: resp.Body, touch: func() { timer.Reset(idle) }}
	}
	b.Start()
	d := newDecoder(b, m)
	if oauth {
		d.tools = make([]string, 0, len(req.Tools))
		for _, t := range req.Tools {
			d.tools = append(d.tools, t.Name)
		}
	}
	stream := ssestream.NewDecoder(resp)
	for stream.Next() {
		ev := stream.Event()
		// The SDK's decoder ends every data line with "\n"; pi joins them without a last one.
		if msg := d.handle(ev.Type, bytes.TrimSuffix(ev.Data, []byte("\n"))); msg != "" {
			return fail(msg)
		}
	}
	if err := stream.Err(); err != nil {
		if ctx.Err() != nil {
			return fail("")
		}
		if context.Cause(callCtx) == errIdle {
			return fail(stalled())
		}
		return fail(connectionLostMessage(err))
	}
	if ctx.Err() != nil {
		return fail("")
	}
	if msg := d.finish(); msg != "" {
		return fail(msg)
	}
	return b.Finish()
}

// Idle timeouts: how long a request may wait for the response headers or between two reads of the
// body before it ends with a retryable error (pi 1.6's httpIdleTimeoutMs; longer when the model is
// asked to think, as some thinking arrives only at the end).
const (
	DefaultIdleTimeout          = 5 * time.Minute
	DefaultReasoningIdleTimeout = 10 * time.Minute
)

var errIdle = errors.New("idle timeout")

func idleTimeout(req *provider.Request) time.Duration {
	switch idle := req.Options.IdleTimeout; {
	case idle < 0:
		return 0
	case idle > 0:
		return idle
	}
	if req.Model.Reasoning && req.Options.Reasoning != "" && req.Options.Reasoning != provider.ThinkingOff {
		return DefaultReasoningIdleTimeout
	}
	return DefaultIdleTimeout
}

// touchReader calls touch after every read that returned data.
type touchReader struct {
	io.ReadCloser
	touch func()
}

func (r *touchReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if n > 0 {
		r.touch()
	}
	return n, err
}

func mergeHeaders(model, call map[string]string) map[string]string {
	out := make(map[string]string, len(model)+len(call))
	for k, v := range model {
		out[k] = v
	}
	for k, v := range call {
		out[k] = v
	}
	return out
}

func hasHeader(h map[string]string, name string) bool {
	for k, v := range h {
		if strings.EqualFold(k, name) && strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}
