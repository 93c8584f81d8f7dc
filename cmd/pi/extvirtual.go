package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// extensionVirtualModels applies the virtual models extensions register (pi.registerVirtualModel)
// to pi-go's models, and streams their requests: each is routed by the extension's route() to a
// physical model, then streamed by pi-go's own provider for it. The selection (model_change) names
// the virtual model; the answer names the physical model and level, as pi 1.6 records them.
type extensionVirtualModels struct {
	a *app
	// mu guards routes: each registered virtual model's route, by "provider/id".
	mu     sync.Mutex
	routes map[string]func(context.Context, extensions.RouteRequest) (extensions.Route, error)
	// failed is the latest failed answer of each virtual model, by "provider/id", with the
	// conversation it answered: a request with the same conversation is its retry.
	failed map[string]failedRoute
	// bound is the host's session once it exists: its branch keeps the routers' state.
	bound *atomic.Pointer[harness.Session]
}

// failedRoute is a failed answer of a virtual model's request and that request's conversation.
type failedRoute struct {
	extensions.RouteFailed
	count int
	last  string
}

// lastMessage is the last message of a conversation as JSON: a retry's conversation is rebuilt, so
// its messages are equal, not the same values.
func lastMessage(msgs []provider.Message) string {
	if len(msgs) == 0 {
		return ""
	}
	b, err := json.Marshal(msgs[len(msgs)-1])
	if err != nil {
		return ""
	}
	return string(b)
}

// newExtensionVirtualModels is made with the extension host, before it can start: the router
// serves the virtual API from then on.
func (a *app) newExtensionVirtualModels(bound *atomic.Pointer[harness.Session]) *extensionVirtualModels {
	v := &extensionVirtualModels{a: a, bound: bound, routes: map[string]func(context.Context, extensions.RouteRequest) (extensions.Route, error){}}
	a.streamRouter().HandleAPI(provider.APIVirtual, v)
	return v
}

// apply is the extension host's OnVirtualModel.
func (v *extensionVirtualModels) apply(c extensions.VirtualModelChange) error {
	key := c.Provider + "/" + c.ID
	v.mu.Lock()
	defer v.mu.Unlock()
	if c.Model == nil {
		delete(v.routes, key)
		v.a.registry.UnregisterVirtualModel(c.Provider, c.ID)
		return nil
	}
	v.routes[key] = c.Route
	v.a.registry.RegisterVirtualModel(*c.Model)
	return nil
}

func (v *extensionVirtualModels) route(m *provider.Model) func(context.Context, extensions.RouteRequest) (extensions.Route, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.routes[m.Provider+"/"+m.ID]
}

// Stream routes one request of a virtual model and streams it with the physical model chosen. A
// route that fails, or names a model pi-go does not have or has no key for, ends the request with
// an error answer, as pi does.
func (v *extensionVirtualModels) Stream(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	fail := func(format string, args ...any) *provider.AssistantMessage {
		if ctx.Err() != nil {
			return provider.NewStreamBuilder(req.Model, emit).Fail(provider.StopReasonAborted, "Request was aborted")
		}
		return provider.NewStreamBuilder(req.Model, emit).Fail(provider.StopReasonError, fmt.Sprintf(format, args...))
	}
	route := v.route(req.Model)
	if route == nil {
		return fail("Virtual model %s/%s is not registered", req.Model.Provider, req.Model.ID)
	}
	selected := req.Options.Reasoning
	if selected == "" {
		selected = provider.ThinkingOff
	}
	rr := extensions.RouteRequest{Model: req.Model, ThinkingLevel: selected,
		Reason: routeReason(req.Messages), Previous: previousRoute(req.Messages),
		SystemPrompt: req.SystemPrompt, Messages: req.Messages}
	store := v.store()
	if provider.IsDirectRequest(ctx) {
		rr.Reason, store = "direct", nil // no state either way
	} else if f := v.retryOf(req); f != nil {
		rr.Reason, rr.Failed = "retry", f
	}
	rr.State = routerState(store, req.Model)
	r, err := route(ctx, rr)
	if err != nil {
		return fail("%v", err)
	}
	if len(r.State) > 0 && store != nil {
		// Stored before the request is sent, and kept if it fails, as pi does.
		data := virtualStateData{Provider: req.Model.Provider, ModelID: req.Model.ID, State: r.State}
		if _, err := store.AppendCustomEntry(virtualStateEntry, data); err != nil {
			return fail("Virtual model %s/%s: storing its state: %v", req.Model.Provider, req.Model.ID, err)
		}
	}
	phys := v.a.registry.Find(r.Provider, r.ID)
	switch {
	case phys == nil:
		return fail("Virtual model %s/%s routed to %s/%s, which is not in the catalog", req.Model.Provider, req.Model.ID, r.Provider, r.ID)
	case provider.IsVirtual(phys):
		return fail("Virtual model %s/%s cannot route to virtual model %s/%s", req.Model.Provider, req.Model.ID, r.Provider, r.ID)
	case !v.a.hasAuth(phys.Provider):
		return fail("Virtual model %s/%s routed to %s/%s, whose provider has no credentials", req.Model.Provider, req.Model.ID, r.Provider, r.ID)
	}
	level := provider.ClampThinkingLevel(phys, r.ThinkingLevel)
	key, headers, err := v.a.requestAuth(ctx, phys)
	if err != nil {
		return fail("%v", err)
	}
	physical := *req
	physical.Model = phys
	physical.Options.APIKey = key
	physical.Options.Reasoning = ""
	if level != provider.ThinkingOff {
		physical.Options.Reasoning = level
	}
	if len(headers) > 0 {
		merged := maps.Clone(headers)
		maps.Copy(merged, req.Options.Headers)
		physical.Options.Headers = merged
	}
	final := v.a.streamRouter().Stream(ctx, &physical, emit)
	if final != nil {
		final.ThinkingLevel = level
		v.remember(req, final)
	}
	return final
}

// retryOf is the failed answer whose conversation req repeats (the harness's retry), or nil.
func (v *extensionVirtualModels) retryOf(req *provider.Request) *extensions.RouteFailed {
	v.mu.Lock()
	defer v.mu.Unlock()
	f, ok := v.failed[req.Model.Provider+"/"+req.Model.ID]
	if !ok || f.count != len(req.Messages) || f.last == "" || f.last != lastMessage(req.Messages) {
		return nil
	}
	return &f.RouteFailed
}

// remember keeps a failed answer for the retry that may follow, and forgets it after a success.
func (v *extensionVirtualModels) remember(req *provider.Request, final *provider.AssistantMessage) {
	key := req.Model.Provider + "/" + req.Model.ID
	v.mu.Lock()
	defer v.mu.Unlock()
	if final.StopReason != provider.StopReasonError || len(req.Messages) == 0 {
		delete(v.failed, key)
		return
	}
	if v.failed == nil {
		v.failed = map[string]failedRoute{}
	}
	v.failed[key] = failedRoute{
		RouteFailed: extensions.RouteFailed{
			RoutePrevious: extensions.RoutePrevious{Provider: final.Provider, ID: final.Model, ThinkingLevel: final.ThinkingLevel},
			Message:       final,
		},
		count: len(req.Messages), last: lastMessage(req.Messages),
	}
}

// routeReason is pi's reason of a request from its conversation: "user" for the first request after
// a user message, "continuation" for the others of the agent loop.
func routeReason(msgs []provider.Message) string {
	if len(msgs) > 0 && msgs[len(msgs)-1].Role() == provider.RoleUser {
		return "user"
	}
	return "continuation"
}

// previousRoute is the physical model and level of the latest successful answer in msgs.
func previousRoute(msgs []provider.Message) *extensions.RoutePrevious {
	for i := len(msgs) - 1; i >= 0; i-- {
		am, ok := msgs[i].(*provider.AssistantMessage)
		if !ok || am.StopReason == provider.StopReasonError || am.StopReason == provider.StopReasonAborted {
			continue
		}
		if am.API == provider.APIVirtual {
			continue
		}
		return &extensions.RoutePrevious{Provider: am.Provider, ID: am.Model, ThinkingLevel: am.ThinkingLevel}
	}
	return nil
}

// virtualStateEntry is the custom entry that keeps router state on the session branch (pi 1.6's
// VIRTUAL_MODEL_STATE_ENTRY), virtualStateData its data.
const virtualStateEntry = "pi.virtual-model-state"

type virtualStateData struct {
	Provider string          `json:"provider"`
	ModelID  string          `json:"modelId"`
	State    json.RawMessage `json:"state"`
}

// store is the session the extensions see (nil before it exists).
func (v *extensionVirtualModels) store() *session.Manager {
	if sess := v.bound.Load(); sess != nil {
		return sess.Store()
	}
	return nil
}

// routerState is the state m's router last stored on the current branch of store (nil: none).
func routerState(store *session.Manager, m *provider.Model) json.RawMessage {
	if store == nil {
		return nil
	}
	path := store.Path("")
	for i := len(path) - 1; i >= 0; i-- {
		e := path[i]
		if e.Type != session.TypeCustom || e.CustomType != virtualStateEntry {
			continue
		}
		var d virtualStateData
		if json.Unmarshal(e.Data, &d) == nil && d.Provider == m.Provider && d.ModelID == m.ID {
			return d.State
		}
	}
	return nil
}
