package openai

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// Config configures a Provider.
type Config struct {
	// HTTPClient sends the requests; nil means a default client with no overall timeout (streams may
	// last long) and bounded dial, TLS-handshake and response-header waits.
	HTTPClient *http.Client
	// IdleTimeout ends a call that receives no bytes for this long (waiting for the response headers
	// included) with a retryable error. 0 means DefaultIdleTimeout, or DefaultReasoningIdleTimeout for
	// a call that asks a reasoning model to think; a negative value disables it.
	// provider.StreamOptions.IdleTimeout overrides it per call.
	IdleTimeout time.Duration
	// ContentTimeout ends a call that receives no content (text, thinking, a tool call, the finish
	// reason, usage) for this long although bytes still arrive: keep-alive comments, empty deltas, a
	// body trickling in. 0 means the call's idle timeout; a negative value disables it.
	// provider.StreamOptions.ContentTimeout overrides it per call.
	ContentTimeout time.Duration
	// MaxRetries is how many times a request that failed before its answer began (no connection, or
	// status 408, 409, 429, 5xx) is sent again, after pi's SDK's waits; 0 sends it once. pi's default
	// is SDKMaxRetries; pi-go's command sends once, as the harness retries visibly.
	MaxRetries int
}

// Provider streams chat completions from any OpenAI-compatible server. It is safe for concurrent use.
type Provider struct {
	client         *http.Client
	idleTimeout    time.Duration
	contentTimeout time.Duration
	drainTimeout   time.Duration
	clock          clock
	maxRetries     int
	sleep          func(context.Context, time.Duration) error // the wait before a retry; tests replace it
	conv           convCache                                  // the last request's transcript, converted
}

// New returns a provider.
func New(cfg Config) *Provider {
	p := &Provider{client: cfg.HTTPClient, idleTimeout: cfg.IdleTimeout, contentTimeout: cfg.ContentTimeout,
		drainTimeout: drainTimeout, clock: realClock{}, maxRetries: max(cfg.MaxRetries, 0), sleep: sleepCtx}
	if p.client == nil {
		p.client = newDefaultClient()
	}
	p.client = provider.HookClient(p.client) // extensions' before_provider_request / after_provider_response
	return p
}

// abortedMessage is pi's text for a cancelled request.
const abortedMessage = "Request was aborted"

// Stream sends req and streams the answer into emit (see provider.Provider). It never returns a Go
// error and never panics on bad server data: every failure ends the stream with a message whose
// StopReason is error or aborted and whose ErrorMessage says what happened, without the API key.
func (p *Provider) Stream(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	if req == nil || req.Model == nil {
		b := provider.NewStreamBuilder(&provider.Model{}, emit)
		return b.Fail(provider.StopReasonError, "No model given for the request")
	}
	b := provider.NewStreamBuilder(req.Model, emit)
	m := req.Model
	headers := mergeHeaders(m.Headers, req.Options.Headers)
	red := newRedactor(req.Options.APIKey, headers)
	fail := func(ctx context.Context, msg string) *provider.AssistantMessage {
		if ctx.Err() != nil && !watchedOut(ctx) {
			return b.Fail(provider.StopReasonAborted, abortedMessage)
		}
		return b.Fail(provider.StopReasonError, red.apply(msg))
	}
	if ctx.Err() != nil {
		return fail(ctx, "")
	}

	c := resolveCompat(m)
	body, err := newCachedRequestBody(req, &c, &p.conv)
	if err != nil {
		return fail(ctx, "Cannot build the request: "+err.Error())
	}
	base := strings.TrimRight(m.BaseURL, "/")
	target := redactURL(base + "/chat/completions")
	if base == "" {
		return fail(ctx, fmt.Sprintf("Model %s has no base URL", m.String()))
	}

	idle := p.idleFor(req)
	content := p.contentFor(req, idle)
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watch := startIdleWatch(p.clock, idle, content, cancel)
	defer watch.stop()
	// timeoutText names what the watch saw; answering says whether the response had begun.
	timeoutText := func(answering bool) string {
		noContent := context.Cause(callCtx) == errNoContent
		switch {
		case !answering && noContent:
			return fmt.Sprintf("Request timed out: no response from %s for %s", target, seconds(content))
		case !answering:
			return fmt.Sprintf("Request timed out: no response from %s for %s", target, seconds(idle))
		case noContent:
			// Keep-alives, empty chunks or a trickle: say when bytes last came, not what they were.
			return fmt.Sprintf("Request timed out: no content from %s for %s (data last arrived %s ago)",
				target, seconds(content), seconds(watch.quiet()))
		}
		return fmt.Sprintf("Request timed out: no data from %s for %s (the stream stalled)", target, seconds(idle))
	}

	hc := &httpCall{client: p.client, url: base + "/chat/completions", apiKey: req.Options.APIKey, body: body,
		headers: headers, watch: watch, retries: p.maxRetries, sleep: p.sleep}
	defer hc.close()
	if err := hc.do(callCtx); err != nil {
		switch {
		case ctx.Err() != nil:
			return fail(ctx, "")
		case hc.resp != nil:
			// An error status, with as much of the body as arrived.
			ra, hasRA := hc.retryAfter()
			return fail(callCtx, httpErrorMessage(hc.resp.StatusCode, hc.errBody, target, ra, hasRA,
				req.Options.MaxRetryDelay))
		case callCtx.Err() != nil:
			return fail(callCtx, timeoutText(false))
		case hc.sent:
			return fail(callCtx, provider.ConnectionErrorMessage(err, target))
		}
		return fail(callCtx, fmt.Sprintf("Cannot send the request to %s: %v", target, err))
	}

	b.Start()
	r := &reader{b: b, model: m, sse: newSSEReader(hc.resp.Body), onContent: watch.touchContent,
		afterDone: func() { watch.answered(p.drainTimeout) }}
	msg := r.run()
	switch {
	case callCtx.Err() != nil && watchedOut(callCtx) && !r.finished():
		return fail(callCtx, timeoutText(true))
	case ctx.Err() != nil:
		// pi checks the abort signal after the stream too: a cancelled run never reports success.
		return fail(ctx, "")
	case msg != "":
		return fail(callCtx, msg)
	}
	return b.Finish()
}

// idleFor is the idle timeout of one call: the call's, else the provider's, else the default.
func (p *Provider) idleFor(req *provider.Request) time.Duration {
	idle := p.idleTimeout
	if req.Options.IdleTimeout != 0 {
		idle = req.Options.IdleTimeout
	}
	if idle != 0 {
		return idle
	}
	if req.Model.Reasoning && effectiveLevel(req.Model, req.Options.Reasoning) != provider.ThinkingOff {
		// Servers that hide the reasoning (OpenAI) send nothing while the model thinks.
		return DefaultReasoningIdleTimeout
	}
	return DefaultIdleTimeout
}

// contentFor is the content timeout of one call: the call's, else the provider's, else the call's idle
// timeout (so keep-alives never keep a stream alive longer than silence would).
func (p *Provider) contentFor(req *provider.Request, idle time.Duration) time.Duration {
	switch {
	case req.Options.ContentTimeout != 0:
		return req.Options.ContentTimeout
	case p.contentTimeout != 0:
		return p.contentTimeout
	}
	return idle
}

// watchedOut reports whether ctx was cancelled by the idle watch rather than by the caller.
func watchedOut(ctx context.Context) bool {
	cause := context.Cause(ctx)
	return cause == errIdle || cause == errNoContent
}

func mergeHeaders(model, call map[string]string) map[string]string {
	if len(model) == 0 && len(call) == 0 {
		return nil
	}
	out := make(map[string]string, len(model)+len(call))
	for k, v := range model {
		out[k] = v
	}
	for k, v := range call {
		out[k] = v
	}
	return out
}
