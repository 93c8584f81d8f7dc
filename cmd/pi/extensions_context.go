package main

import (
	"context"
	"encoding/json"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
)

// ContextWithSystem raises pi 1.6's context_with_system after the context handlers: the request's
// whole transcript, system messages included (harness.ContextWithSystemHook).
func (e *extensionHost) ContextWithSystem(ctx context.Context, msgs []provider.Message) []provider.Message {
	return e.rewriteMessages(ctx, "context_with_system", msgs, e.host.ContextWithSystem)
}

// rewriteMessages hands msgs, as pi writes them, to the handlers of event and decodes what they
// returned (nil: no handler, or no change it could read, the error shown).
func (e *extensionHost) rewriteMessages(ctx context.Context, event string, msgs []provider.Message,
	emit func(context.Context, json.RawMessage) json.RawMessage) []provider.Message {
	if !e.host.HasHandlers(ctx, event) {
		return nil
	}
	data, err := provider.MarshalJS(msgs)
	if err != nil {
		e.ui.reportError(extensions.ExtensionError{Event: event, Error: err.Error()})
		return nil
	}
	res := emit(ctx, data)
	if res == nil {
		return nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(res, &raws); err != nil {
		e.ui.reportError(extensions.ExtensionError{Event: event, Error: "messages: " + err.Error()})
		return nil
	}
	out := make([]provider.Message, 0, len(raws))
	for _, r := range raws {
		m, err := provider.UnmarshalMessage(r)
		if err != nil {
			e.ui.reportError(extensions.ExtensionError{Event: event, Error: "message: " + err.Error()})
			return nil
		}
		out = append(out, m)
	}
	return out
}

var _ harness.ContextWithSystemHook = (*extensionHost)(nil)

// scopedModelsJS is ctx.scopedModels as pi gives it: each model with the thinking level its pattern
// named (nil: no scope).
func scopedModelsJS(scoped []provider.ScopedModel) json.RawMessage {
	if len(scoped) == 0 {
		return nil
	}
	type scopedModel struct {
		Model         json.RawMessage `json:"model"`
		ThinkingLevel string          `json:"thinkingLevel,omitempty"`
	}
	out := make([]scopedModel, 0, len(scoped))
	for _, sm := range scoped {
		if sm.Model == nil {
			continue
		}
		m, err := provider.MarshalJS(sm.Model)
		if err != nil {
			continue
		}
		out = append(out, scopedModel{Model: m, ThinkingLevel: string(sm.Thinking)})
	}
	data, _ := json.Marshal(out)
	return data
}
