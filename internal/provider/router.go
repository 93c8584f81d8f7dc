package provider

import (
	"context"
	"sync"
)

// Router sends each request to the Provider that speaks its model's API (Model.API), as pi's
// api-registry does: openai-completions today, anthropic-messages, openai-responses and
// google-generative-ai as their packages arrive. A Provider registered for the model's provider name
// comes first: one that answers for itself whatever API its models name (the offline demo; an
// extension's provider with its own stream function).
//
// The API packages import this one, so the router cannot import them: the program registers them
// (cmd/pi). Register everything before the first Stream; Stream is then safe for concurrent use.
type Router struct {
	apis      map[string]Provider
	providers map[string]Provider
	// streams are the stream functions extensions register while pi-go runs (router_streams.go).
	streamsMu sync.RWMutex
	streams   map[providerAPI]Provider
}

// NewRouter returns a router with nothing registered: every request fails until an API is.
func NewRouter() *Router {
	return &Router{apis: map[string]Provider{}, providers: map[string]Provider{}}
}

// HandleAPI makes p stream the requests whose model speaks api, replacing any earlier registration.
func (r *Router) HandleAPI(api string, p Provider) { r.apis[api] = p }

// HandleProvider makes p stream every request to a model of the named provider, whatever its API.
func (r *Router) HandleProvider(name string, p Provider) { r.providers[name] = p }

// Stream hands req to its provider (see Provider). A request it cannot route ends as an error message,
// as every provider failure does: no model, or an API nothing speaks (pi's words for it).
func (r *Router) Stream(ctx context.Context, req *Request, emit func(*AssistantEvent)) *AssistantMessage {
	if req == nil || req.Model == nil {
		return NewStreamBuilder(&Model{}, emit).Fail(StopReasonError, "No model given for the request")
	}
	if p, ok := r.providers[req.Model.Provider]; ok {
		return p.Stream(ctx, req, emit)
	}
	if p := r.stream(req.Model.Provider, req.Model.API); p != nil {
		return p.Stream(ctx, req, emit)
	}
	api := req.Model.API
	if api == "" {
		api = APIOpenAICompletions // as the stream builder and the openai package read a model without one
	}
	if p, ok := r.apis[api]; ok {
		return p.Stream(ctx, req, emit)
	}
	return NewStreamBuilder(req.Model, emit).Fail(StopReasonError, "No API provider registered for api: "+api)
}
