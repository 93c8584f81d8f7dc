package openai

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

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
	// MaxRetries is how many times a request that failed before its answer began (no connection, or
	// status 408, 409, 429, 5xx) is sent again, after pi's SDK's waits; 0 sends it once. pi-go's command
	// uses SDKMaxRetries, pi's default.
	MaxRetries int
}

// Provider streams chat completions from any OpenAI-compatible server. It is safe for concurrent use.
type Provider struct {
	client       *http.Client
	idleTimeout  time.Duration
	drainTimeout time.Duration
	clock        clock
	maxRetries   int
	sleep        func(context.Context, time.Duration) error // the wait before a retry; tests replace it
}

// New returns a provider.
func New(cfg Config) *Provider {
	p := &Provider{client: cfg.HTTPClient, idleTimeout: cfg.IdleTimeout, drainTimeout: drainTimeout, clock: realClock{},
		maxRetries: max(cfg.MaxRetries, 0), sleep: sleepCtx}
	if p.client == nil {
		p.client = newDefaultClient()
	}
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
		if ctx.Err() != nil && context.Cause(ctx) != errIdle {
			return b.Fail(provider.StopReasonAborted, abortedMessage)
		}
		return b.Fail(provider.StopReasonError, red.apply(msg))
	}
	if ctx.Err() != nil {
		return fail(ctx, "")
	}

	c := resolveCompat(m)
	body, err := newRequestBody(req, &c)
	if err != nil {
		return fail(ctx, "Cannot build the request: "+err.Error())
	}
	base := strings.TrimRight(m.BaseURL, "/")
	target := redactURL(base + "/chat/completions")
	if base == "" {
		return fail(ctx, fmt.Sprintf("Model %s has no base URL", m.String()))
	}

	idle := p.idleFor(req)
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watch := startIdleWatch(p.clock, idle, cancel)
	defer watch.stop()
	idleText := func() string {
		return fmt.Sprintf("Request timed out: no data from %s for %s", target, idle)
	}

	doer := &callDoer{client: p.client, body: body, headers: headers, watch: watch, retries: p.maxRetries, sleep: p.sleep}
	defer doer.close()
	cfg := goopenai.DefaultConfig(req.Options.APIKey)
	cfg.BaseURL = base
	cfg.HTTPClient = doer
	// go-openai builds the request and interprets error statuses; the body is read by our SSE reader
	// (go-openai's line reader counts keep-alive comments against a limit and cannot tell [DONE] from a
	// dropped connection), so the stream object itself is only closed.
	stream, err := goopenai.NewClientWithConfig(cfg).CreateChatCompletionStream(callCtx,
		goopenai.ChatCompletionRequest{Model: m.ID})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return fail(ctx, "")
		case doer.resp != nil:
			// An error status, with as much of the body as arrived.
			ra, hasRA := doer.retryAfter()
			return fail(callCtx, httpErrorMessage(doer.resp.StatusCode, doer.errBody.Bytes(), ra, hasRA))
		case callCtx.Err() != nil:
			return fail(callCtx, idleText())
		}
		if doer.called {
			return fail(callCtx, transportErrorMessage(doer.err, target))
		}
		return fail(callCtx, fmt.Sprintf("Cannot send the request to %s: %v", target, err))
	}
	defer stream.Close()

	b.Start()
	r := &reader{b: b, model: m, sse: newSSEReader(doer.resp.Body), afterDone: func() { watch.shorten(p.drainTimeout) }}
	msg := r.run()
	switch {
	case callCtx.Err() != nil && context.Cause(callCtx) == errIdle && !r.finished():
		return fail(callCtx, idleText())
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
