package harness

import (
	"context"

	"github.com/pi-go/pi-go/internal/provider"
)

// sendRequest hands one request to the provider with the limits of settings.json the caller left
// unset: httpIdleTimeoutMs, contentIdleTimeoutMs and retry.maxAgentDelayMs (so that an error whose
// server asks for a longer wait says it will not be retried); with images.blockImages its images are
// replaced by text. Settings are read per request, as pi does, so a change applies to the next
// request.
func (s *Session) sendRequest(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	settings := s.opts.Settings.Settings()
	if req.Options.IdleTimeout == 0 {
		req.Options.IdleTimeout = settings.HTTPIdleTimeout()
	}
	if req.Options.ContentTimeout == 0 {
		req.Options.ContentTimeout = settings.ContentIdleTimeout()
	}
	if req.Options.MaxRetryDelay == 0 {
		req.Options.MaxRetryDelay = settings.MaxAgentDelay()
	}
	if settings.Images.BlockImages {
		req.Messages = withoutImages(req.Messages)
	}
	if prompt := s.runPromptOverride(); prompt != "" {
		req.SystemPrompt = prompt
	}
	return s.opts.Stream(ctx, req, emit)
}
