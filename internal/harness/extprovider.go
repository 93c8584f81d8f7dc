package harness

import (
	"context"

	"github.com/pi-go/pi-go/internal/provider"
)

// This file is the extension events around the agent's model requests (before_provider_request,
// after_provider_response), a failed compaction (session_compact_failed) and the resources
// extensions add (resources_discover).

// ProviderHook is implemented by hooks that watch the agent's provider requests: RequestHooks
// returns the hooks for one request, nil when no extension handles those events (then the request
// is sent as built, with nothing decoded or copied).
type ProviderHook interface {
	RequestHooks(ctx context.Context) provider.RequestHooks
}

// agentRequest is sendRequest for the agent's own requests: extensions see (and may replace) their
// payload. Compaction and branch summaries go through sendRequest alone, as pi's do not run
// onPayload.
func (s *Session) agentRequest(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	if h, ok := s.opts.Hooks.(ProviderHook); ok {
		ctx = provider.WithRequestHooks(ctx, h.RequestHooks(ctx))
	}
	return s.sendRequest(ctx, req, emit)
}

// CompactionFailedHook is told of a compaction that started and failed or was cancelled (pi's
// session_compact_failed): errorMessage is empty when aborted; fromExtension when the summary
// came from a session_before_compact handler.
type CompactionFailedHook interface {
	CompactionFailed(reason, errorMessage string, aborted, fromExtension bool)
}

// compactionFailed announces a failed compaction to the extensions. willRetry is always false
// there: the turn is not retried after a failed compaction.
func (s *Session) compactionFailed(reason, errorMessage string, aborted, fromExtension bool) {
	if h, ok := s.opts.Hooks.(CompactionFailedHook); ok {
		h.CompactionFailed(reason, errorMessage, aborted, fromExtension)
	}
}

// RefreshResources reads the templates and skills again if they have been read (an extension
// contributed paths after they were: resources_discover), so the next prompt and "/" completion
// see them.
func (s *Session) RefreshResources() {
	s.res.loadMu.Lock()
	defer s.res.loadMu.Unlock()
	if s.res.set.Load() != nil {
		s.res.set.Store(s.loadResources())
	}
}

// ResourcesHook is implemented by hooks that contribute resource paths (pi's resources_discover):
// DiscoverResources asks the extensions, and the next read of the resources (LoadResources) includes
// their paths.
type ResourcesHook interface {
	DiscoverResources(ctx context.Context, reason string)
}

// discoverResources asks the extensions for their resource paths before the resources are read again.
func (s *Session) discoverResources(reason string) {
	if h, ok := s.opts.Hooks.(ResourcesHook); ok {
		h.DiscoverResources(context.Background(), reason)
	}
}
