package harness

import (
	"context"

	"github.com/pi-go/pi-go/internal/provider"
)

// SectionSource adds system prompt sections after pi's own on every prompt, as pi's extensions
// fill systemPromptOptions.sections in before_agent_start (the MCP manager's mcp_servers). When a
// section changes, the next prompt appends the change to the transcript as a system message, so the
// earlier messages stay cached.
type SectionSource interface {
	// Prepare runs when a prompt starts, before its sections are read (MCP waits there for the
	// servers with direct tools).
	Prepare(ctx context.Context)
	// Sections are the sections now, Text unwrapped, in order. Called whenever the prompt is shown
	// too, so it must return quickly.
	Sections() []provider.PromptSection
}

// sourceSections are the sections of the session's SectionSource (nil: none).
func (s *Session) sourceSections() []provider.PromptSection {
	if s.opts.Sections == nil {
		return nil
	}
	return s.opts.Sections.Sections()
}
