package extensions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/pi-go/pi-go/internal/provider"
)

// ProviderChange is an extension's pi.registerProvider(name, config) or pi.unregisterProvider(name),
// as the requests "registerProvider" and "unregisterProvider" bring them (docs/extension-protocol.md).
type ProviderChange struct {
	Name string
	// Config is the registration's data part, as the extension sent it (nil: unregistered).
	Config json.RawMessage
	// StreamSimple: the config has its own stream function for the models of its api; Stream
	// streams them through the extension.
	StreamSimple bool
	Stream       provider.Provider
	// Auth is the provider's own authentication (an OAuth login, a native provider's key
	// resolution), nil without any.
	Auth *ProviderAuth
	// Native: a pi-ai Provider object, which streams all its models itself (Stream is set).
	Native        bool
	ExtensionPath string
}

// providerRequest is the params of "registerProvider" and "unregisterProvider".
type providerRequest struct {
	Name          string          `json:"name"`
	Config        json.RawMessage `json:"config"`
	StreamSimple  bool            `json:"streamSimple"`
	OAuth         json.RawMessage `json:"oauth"` // false, true or {name}
	Native        bool            `json:"native"`
	APIKey        bool            `json:"apiKeyConfigured"`
	ExtensionPath string          `json:"extensionPath"`
}

// oauthName is the login's display name of a registration's "oauth" field ("" without a login).
func (r *providerRequest) oauthName() string {
	switch string(r.OAuth) {
	case "", "null", "false":
		return ""
	case "true":
		return r.Name
	}
	var o struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(r.OAuth, &o) != nil {
		return ""
	}
	if o.Name == "" {
		return r.Name
	}
	return o.Name
}

// processKey finds, in a request's context, the process that sent it.
type processKey struct{}

// handleProvider applies a provider request of process p through Config.OnProvider.
func (h *Host) handleProvider(p *process, method string, params json.RawMessage) error {
	var r providerRequest
	if err := json.Unmarshal(params, &r); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if r.Name == "" {
		return fmt.Errorf("%s: no provider name", method)
	}
	if r.ExtensionPath == "" && p != nil {
		r.ExtensionPath = p.path
	}
	if h.cfg.OnProvider == nil {
		return nil
	}
	change := ProviderChange{Name: r.Name, ExtensionPath: r.ExtensionPath}
	if method == "registerProvider" {
		if len(r.Config) == 0 || string(r.Config) == "null" {
			r.Config = json.RawMessage("{}")
		}
		change.Config, change.StreamSimple, change.Native = r.Config, r.StreamSimple || r.Native, r.Native
		if change.StreamSimple && p != nil {
			change.Stream = &providerStream{p: p, name: r.Name}
		}
		if name := r.oauthName(); (name != "" || r.Native) && p != nil {
			change.Auth = &ProviderAuth{h: h, p: p, name: r.Name, OAuthName: name, IsNative: r.Native, APIKeyConfigured: r.APIKey}
		}
	}
	return h.cfg.OnProvider(change)
}

// providerStream streams a request through an extension's stream function: stream_provider out,
// stream_update events back (pi's AssistantMessageEvents without their partial message), the final
// message as the result. Cancelling the request's context cancels the call, which aborts the
// extension's AbortSignal.
type providerStream struct {
	p    *process
	name string
}

// streamEvent is one stream_update: an AssistantMessageEvent as pi's stream emits it, minus the
// partial message; a *_start event carries the block it opens, a toolcall_end the finished call.
type streamEvent struct {
	Type         string            `json:"type"`
	ContentIndex int               `json:"contentIndex"`
	Delta        string            `json:"delta"`
	Block        *provider.Content `json:"block"`
	ToolCall     *provider.Content `json:"toolCall"`
}

// abortedMessage is the error message of an aborted answer, as pi-go's API packages write it.
const abortedMessage = "Request was aborted"

func (s *providerStream) Stream(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	b := provider.NewBlockBuilder(req.Model, emit)
	msg, err := streamMessage(s.name, req)
	if err != nil {
		return b.Fail(provider.StopReasonError, err.Error())
	}
	// Updates arrive on the process's reader; they are applied here, on the caller's goroutine,
	// so a slow consumer of emit never holds the reader (and the extension's other answers).
	var (
		mu      sync.Mutex
		pending []json.RawMessage
		wake    = make(chan struct{}, 1)
	)
	update := func(raw json.RawMessage) {
		mu.Lock()
		pending = append(pending, raw)
		mu.Unlock()
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	type outcome struct {
		res json.RawMessage
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := s.p.call(ctx, msg, 0, update)
		done <- outcome{res, err}
	}()
	blocks := map[int]int{} // the extension's content index → the builder's
	apply := func() {
		mu.Lock()
		batch := pending
		pending = nil
		mu.Unlock()
		for _, raw := range batch {
			applyStreamEvent(b, blocks, raw)
		}
	}
	for {
		select {
		case <-wake:
			apply()
		case out := <-done:
			apply() // every update was delivered before the result
			return finishStream(ctx, b, out.res, out.err)
		}
	}
}

// streamMessage is the stream_provider message of a request.
func streamMessage(name string, req *provider.Request) (hostMessage, error) {
	model, err := json.Marshal(req.Model)
	if err != nil {
		return hostMessage{}, fmt.Errorf("stream %s: model: %w", name, err)
	}
	tools := req.Tools
	if tools == nil {
		tools = []provider.ToolDefinition{}
	}
	messages := req.Messages
	if messages == nil {
		messages = []provider.Message{}
	}
	context, err := json.Marshal(map[string]any{"systemPrompt": req.SystemPrompt, "messages": messages, "tools": tools})
	if err != nil {
		return hostMessage{}, fmt.Errorf("stream %s: context: %w", name, err)
	}
	o := req.Options
	opts := map[string]any{"sessionId": o.SessionID}
	if o.APIKey != "" {
		opts["apiKey"] = o.APIKey
	}
	if o.Reasoning != "" && o.Reasoning != provider.ThinkingOff {
		opts["reasoning"] = o.Reasoning
	}
	if o.MaxTokens > 0 {
		opts["maxTokens"] = o.MaxTokens
	}
	if o.Temperature != nil {
		opts["temperature"] = *o.Temperature
	}
	if len(o.Headers) > 0 {
		opts["headers"] = o.Headers
	}
	options, err := json.Marshal(opts)
	if err != nil {
		return hostMessage{}, fmt.Errorf("stream %s: options: %w", name, err)
	}
	return hostMessage{Type: msgStream, Name: name, Model: model, Context: context, Options: options}, nil
}

// applyStreamEvent replays one event of the extension's stream on b. Events that name a block b
// does not have are dropped: the final message settles the content.
func applyStreamEvent(b *provider.BlockBuilder, blocks map[int]int, raw json.RawMessage) {
	var e streamEvent
	if json.Unmarshal(raw, &e) != nil {
		return
	}
	switch e.Type {
	case "start":
		b.Start()
	case "text_start", "thinking_start", "toolcall_start":
		c := provider.Content{}
		if e.Block != nil {
			c = *e.Block
		}
		c.Type = map[string]string{"text_start": provider.ContentText, "thinking_start": provider.ContentThinking,
			"toolcall_start": provider.ContentToolCall}[e.Type]
		if c.Type == provider.ContentToolCall {
			c.Arguments, c.PartialArgs = nil, nil // arguments come as deltas, or whole at toolcall_end
		}
		blocks[e.ContentIndex] = b.Open(c)
	case "text_delta", "thinking_delta", "toolcall_delta":
		if i, ok := blocks[e.ContentIndex]; ok {
			b.Append(i, e.Delta)
		}
	case "text_end", "thinking_end", "toolcall_end":
		i, ok := blocks[e.ContentIndex]
		if !ok {
			return
		}
		if e.ToolCall != nil {
			call := *e.ToolCall
			if len(call.Arguments) > 0 {
				b.SetArguments(i, string(call.Arguments))
			}
			b.Update(i, func(c *provider.Content) {
				if call.ID != "" {
					c.ID = call.ID
				}
				if call.Name != "" {
					c.Name = call.Name
				}
			})
		}
		b.Close(i)
	}
}

// finishStream ends b with the call's outcome: the extension's final message, its failure, or the
// abort.
func finishStream(ctx context.Context, b *provider.BlockBuilder, res json.RawMessage, err error) *provider.AssistantMessage {
	if ctx.Err() != nil {
		return b.Fail(provider.StopReasonAborted, abortedMessage)
	}
	if err != nil {
		if errors.Is(err, ErrExited) {
			return b.Fail(provider.StopReasonError, "Extension provider stream ended: "+err.Error())
		}
		return b.Fail(provider.StopReasonError, err.Error())
	}
	m, derr := provider.UnmarshalMessage(res)
	final, ok := m.(*provider.AssistantMessage)
	if derr != nil || !ok {
		return b.Fail(provider.StopReasonError, "Extension provider stream returned no assistant message")
	}
	switch final.StopReason {
	case provider.StopReasonError, provider.StopReasonAborted:
		text := final.ErrorMessage
		if text == "" {
			text = "Extension provider stream failed"
		}
		return b.Fail(final.StopReason, text)
	case provider.StopReasonStop, provider.StopReasonLength, provider.StopReasonToolUse:
	default:
		return b.Fail(provider.StopReasonError, fmt.Sprintf("Extension provider stream ended with stop reason %q", final.StopReason))
	}
	if b.Len() == 0 {
		// A stream that sent no block events: its final message is the content.
		for _, c := range final.Content {
			b.Close(b.Open(c))
		}
	}
	b.Start()
	b.SetUsage(final.Usage)
	if final.ResponseID != "" {
		b.SetResponseID(final.ResponseID)
	}
	b.SetStopReason(string(final.StopReason), final.StopReason, "")
	return b.Finish()
}
