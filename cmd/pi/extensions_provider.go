package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/pi-go/pi-go/internal/extensions"
	"github.com/pi-go/pi-go/internal/provider"
)

// The extension events of this file: before_provider_request, before_provider_headers,
// provider_stream_event and
// after_provider_response around the agent's model requests, session_compact_failed, and
// resources_discover (the skill, prompt and theme paths extensions contribute at start-up and on
// /reload).

// RequestHooks are the provider hooks of one agent request; nil when no extension handles any
// event, so the request goes out untouched.
func (e *extensionHost) RequestHooks(ctx context.Context) provider.RequestHooks {
	p := &providerEvents{host: e.host,
		before: e.host.HasHandlers(ctx, "before_provider_request"),
		after:  e.host.HasHandlers(ctx, "after_provider_response")}
	headers := e.host.HasHandlers(ctx, "before_provider_headers")
	stream := e.host.HasHandlers(ctx, "provider_stream_event")
	if stream {
		if m := e.sess.Model(); m != nil {
			p.provider, p.api, p.model = m.Provider, m.API, m.ID
		}
	}
	// Each optional event is its own interface (provider.HeaderHooks, provider.StreamEventHooks), so
	// that a request whose events have no handler takes none of their paths.
	switch {
	case headers && stream:
		return headerStreamEvents{p}
	case headers:
		return headerEvents{p}
	case stream:
		return streamEvents{p}
	case p.before || p.after:
		return p
	}
	return nil
}

type providerEvents struct {
	host                 *extensions.Host
	before, after        bool
	provider, api, model string // the request's model, for provider_stream_event
}

type headerEvents struct{ *providerEvents }

func (p headerEvents) BeforeHeaders(ctx context.Context, headers map[string]string) map[string]*string {
	return p.host.BeforeProviderHeaders(ctx, headers)
}

type streamEvents struct{ *providerEvents }

func (p streamEvents) StreamEvent(_ context.Context, data json.RawMessage) {
	p.host.Notify("provider_stream_event", providerStreamEvent{Data: data, Type: "provider_stream_event",
		Provider: p.provider, API: p.api, Model: p.model})
}

type headerStreamEvents struct{ *providerEvents }

func (p headerStreamEvents) BeforeHeaders(ctx context.Context, headers map[string]string) map[string]*string {
	return headerEvents(p).BeforeHeaders(ctx, headers)
}

func (p headerStreamEvents) StreamEvent(ctx context.Context, data json.RawMessage) {
	streamEvents(p).StreamEvent(ctx, data)
}

// providerStreamEvent is pi's ProviderStreamEvent, its fields in pi's order.
type providerStreamEvent struct {
	Data     json.RawMessage `json:"data"`
	Type     string          `json:"type"`
	Provider string          `json:"provider"`
	API      string          `json:"api"`
	Model    string          `json:"model"`
}

func (p *providerEvents) BeforeRequest(ctx context.Context, body []byte) []byte {
	if !p.before {
		return body
	}
	return p.host.BeforeProviderRequest(ctx, body)
}

func (p *providerEvents) AfterResponse(_ context.Context, status int, headers map[string]string) {
	if p.after {
		p.host.AfterProviderResponse(status, headers)
	}
}

// CompactionFailed raises session_compact_failed.
func (e *extensionHost) CompactionFailed(reason, errorMessage string, aborted, fromExtension bool) {
	e.host.Notify("session_compact_failed", compactFailedEvent{Type: "session_compact_failed", Reason: reason,
		ErrorMessage: errorMessage, Aborted: aborted, FromExtension: fromExtension})
}

// compactFailedEvent is pi's SessionCompactFailedEvent, its fields in pi's order. willRetry is always
// false: a failed compaction retries nothing.
type compactFailedEvent struct {
	Type          string `json:"type"`
	Reason        string `json:"reason"`
	ErrorMessage  string `json:"errorMessage,omitempty"`
	Aborted       bool   `json:"aborted"`
	WillRetry     bool   `json:"willRetry"`
	FromExtension bool   `json:"fromExtension"`
}

// extensionResources are the paths resources_discover handlers gave last.
type extensionResources struct {
	mu    sync.Mutex
	found extensions.DiscoveredResources
}

// DiscoverResources raises resources_discover and keeps the paths for the next read of the
// resources (reason "reload": /reload, which reads them right after). Before the extensions are
// ready there is nothing to ask: the start-up discovery comes with them.
func (e *extensionHost) DiscoverResources(ctx context.Context, reason string) {
	if !e.host.Started() || !e.host.HasHandlers(ctx, "resources_discover") {
		return
	}
	found := e.host.ResourcesDiscover(ctx, e.sess.Cwd(), reason)
	e.resources.mu.Lock()
	e.resources.found = found
	e.resources.mu.Unlock()
	if u := e.tuiUI(); u != nil {
		var themes []string
		for _, p := range found.ThemePaths {
			path := p.Path
			if home := os.Getenv("HOME"); home != "" && (path == "~" || strings.HasPrefix(path, "~/")) {
				path = filepath.Join(home, path[1:])
			}
			themes = append(themes, resolveFrom(e.sess.Cwd(), path))
		}
		u.SetThemePaths(themes)
	}
}

// discoverAtStartup is resources_discover after session_start: the templates and skills are read
// again if they already were.
func (e *extensionHost) discoverAtStartup(ctx context.Context) {
	if !e.host.HasHandlers(ctx, "resources_discover") {
		return
	}
	e.DiscoverResources(ctx, "startup")
	e.sess.RefreshResources()
}

// resourcePaths are the skill and prompt paths extensions contributed (none without extensions).
func (e *extensionHost) resourcePaths() (skills, prompts []string) {
	if e == nil {
		return nil, nil
	}
	e.resources.mu.Lock()
	defer e.resources.mu.Unlock()
	for _, p := range e.resources.found.SkillPaths {
		skills = append(skills, p.Path)
	}
	for _, p := range e.resources.found.PromptPaths {
		prompts = append(prompts, p.Path)
	}
	return slices.Clip(skills), slices.Clip(prompts)
}
