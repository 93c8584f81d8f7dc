package extensions

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pi-go/pi-go/internal/provider"
)

// VirtualModelChange is an extension's pi.registerVirtualModel(model) or
// pi.unregisterVirtualModel(provider, id), as the requests "registerVirtualModel" and
// "unregisterVirtualModel" bring them (docs/extension-protocol.md).
type VirtualModelChange struct {
	Provider, ID string
	// Model is the catalog entry (nil: unregistered).
	Model *provider.Model
	// Route asks the extension's route() which physical model answers one request.
	Route         func(ctx context.Context, req RouteRequest) (Route, error)
	ExtensionPath string
}

// RouteRequest is what route() is asked with (pi's ModelRouteRequest without its signal, which is
// the call's context).
type RouteRequest struct {
	// Model is the selected virtual model, ThinkingLevel the selected level.
	Model         *provider.Model
	ThinkingLevel provider.ThinkingLevel
	// Reason is "user", "continuation", "retry" or "direct".
	Reason string
	// Previous is the physical model and level of the latest successful answer in Messages.
	Previous *RoutePrevious
	// Failed, for "retry", is the failed answer: its physical model and level, and the message.
	Failed *RouteFailed
	// SystemPrompt and Messages are the request's conversation.
	SystemPrompt string
	Messages     []provider.Message
	// State is the router state last stored on the session branch (nil: none).
	State json.RawMessage
}

// RoutePrevious names a physical model and level that answered.
type RoutePrevious struct {
	Provider      string                 `json:"provider"`
	ID            string                 `json:"id"`
	ThinkingLevel provider.ThinkingLevel `json:"thinkingLevel,omitempty"`
}

// RouteFailed is a failed answer a retry follows.
type RouteFailed struct {
	RoutePrevious
	Message *provider.AssistantMessage
}

// Route is route()'s answer: the physical model (by provider and id) and level.
type Route struct {
	Provider      string                 `json:"provider"`
	ID            string                 `json:"id"`
	ThinkingLevel provider.ThinkingLevel `json:"thinkingLevel"`
	// State, when set, is new router state to store on the session branch (route() returned an
	// object other than request.state).
	State json.RawMessage `json:"state,omitempty"`
}

// msgRouteModel asks an extension's virtual model where one request goes (virtual.go).
const msgRouteModel = "route_model"

// virtualModelRequest is the params of "registerVirtualModel" and "unregisterVirtualModel".
type virtualModelRequest struct {
	Provider       string                   `json:"provider"`
	ID             string                   `json:"id"`
	Name           string                   `json:"name"`
	ThinkingLevels []provider.ThinkingLevel `json:"thinkingLevels"`
	ContextWindow  int                      `json:"contextWindow"`
	MaxTokens      int                      `json:"maxTokens"`
	Input          []string                 `json:"input"`
	ExtensionPath  string                   `json:"extensionPath"`
}

// handleVirtualModel applies a virtual model request of process p through Config.OnVirtualModel.
func (h *Host) handleVirtualModel(p *process, method string, params json.RawMessage) error {
	var r virtualModelRequest
	if err := json.Unmarshal(params, &r); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if r.Provider == "" || r.ID == "" {
		return fmt.Errorf("%s: a virtual model needs a provider and an id", method)
	}
	for _, l := range r.ThinkingLevels {
		if !provider.IsThinkingLevel(string(l)) {
			return fmt.Errorf("%s %s/%s: unknown thinking level %q", method, r.Provider, r.ID, l)
		}
	}
	if r.ExtensionPath == "" && p != nil {
		r.ExtensionPath = p.path
	}
	if h.cfg.OnVirtualModel == nil {
		return nil
	}
	change := VirtualModelChange{Provider: r.Provider, ID: r.ID, ExtensionPath: r.ExtensionPath}
	if method == "registerVirtualModel" {
		m := provider.VirtualModel(r.Provider, r.ID, r.Name, r.ThinkingLevels, r.ContextWindow, r.MaxTokens, r.Input)
		change.Model = &m
		if p != nil {
			change.Route = func(ctx context.Context, req RouteRequest) (Route, error) { return routeModel(ctx, p, req) }
		}
	}
	return h.cfg.OnVirtualModel(change)
}

// routeModel asks process p's route() for one request: route_model out, the route back.
func routeModel(ctx context.Context, p *process, req RouteRequest) (Route, error) {
	messages := req.Messages
	if messages == nil {
		messages = []provider.Message{}
	}
	model, err := json.Marshal(req.Model)
	if err != nil {
		return Route{}, fmt.Errorf("route %s/%s: model: %w", req.Model.Provider, req.Model.ID, err)
	}
	fields := map[string]any{
		"thinkingLevel": req.ThinkingLevel, "reason": req.Reason, "previous": req.Previous,
		"systemPrompt": req.SystemPrompt, "messages": messages, "state": req.State,
	}
	if f := req.Failed; f != nil {
		fields["failed"] = map[string]any{"provider": f.Provider, "id": f.ID, "thinkingLevel": f.ThinkingLevel, "message": f.Message}
	}
	body, err := json.Marshal(fields)
	if err != nil {
		return Route{}, fmt.Errorf("route %s/%s: request: %w", req.Model.Provider, req.Model.ID, err)
	}
	res, err := p.call(ctx, hostMessage{Type: msgRouteModel, Model: model, Context: body}, 0, nil)
	if err != nil {
		return Route{}, fmt.Errorf("Virtual model %s/%s: route failed: %w", req.Model.Provider, req.Model.ID, err)
	}
	var route Route
	if err := json.Unmarshal(res, &route); err != nil || route.Provider == "" || route.ID == "" {
		return Route{}, fmt.Errorf("Virtual model %s/%s: route returned no model", req.Model.Provider, req.Model.ID)
	}
	return route, nil
}
