package extensions

import (
	"bytes"
	"context"
	"encoding/json"
)

// This file is the events around a provider request and the resources extensions contribute.

// BeforeProviderRequest runs the before_provider_request handlers on a request's payload (its JSON
// body) in load order, each seeing what the previous one returned, and returns the payload to send
// (payload itself when none replaced it). A handler that fails is reported and skipped, as pi's
// runner skips it.
func (h *Host) BeforeProviderRequest(ctx context.Context, payload []byte) []byte {
	cur := json.RawMessage(payload)
	h.emit(ctx, "before_provider_request", func() any {
		return map[string]any{"type": "before_provider_request", "payload": cur}
	}, func(res json.RawMessage, err error) bool {
		var a struct {
			Payload json.RawMessage `json:"payload"`
		}
		if err != nil || json.Unmarshal(res, &a) != nil || len(a.Payload) == 0 || string(a.Payload) == "null" {
			return false
		}
		cur = a.Payload
		return false
	})
	if bytes.Equal(cur, payload) {
		return payload
	}
	return cur
}

// BeforeProviderHeaders runs the before_provider_headers handlers on a request's headers (names in
// lower case) in load order, each process seeing the record as the previous one left it, and returns
// that record: a nil value deletes that header, as pi's null does. A process that answers null
// changed nothing; one that fails is reported and skipped.
func (h *Host) BeforeProviderHeaders(ctx context.Context, headers map[string]string) map[string]*string {
	cur := make(map[string]*string, len(headers))
	for k, v := range headers {
		cur[k] = &v
	}
	h.emit(ctx, "before_provider_headers", func() any {
		return map[string]any{"type": "before_provider_headers", "headers": cur}
	}, func(res json.RawMessage, err error) bool {
		var a struct {
			Headers map[string]*string `json:"headers"`
		}
		if err != nil || json.Unmarshal(res, &a) != nil || a.Headers == nil {
			return false
		}
		cur = a.Headers
		return false
	})
	return cur
}

// AfterProviderResponse tells the after_provider_response handlers a response's status and headers.
func (h *Host) AfterProviderResponse(status int, headers map[string]string) {
	h.Notify("after_provider_response", map[string]any{"type": "after_provider_response", "status": status, "headers": headers})
}

// DiscoveredResources are the paths resources_discover handlers contributed, each with the extension
// that gave it.
type DiscoveredResources struct {
	SkillPaths  []DiscoveredPath `json:"skillPaths"`
	PromptPaths []DiscoveredPath `json:"promptPaths"`
	ThemePaths  []DiscoveredPath `json:"themePaths"`
}

// DiscoveredPath is one contributed path.
type DiscoveredPath struct {
	Path          string `json:"path"`
	ExtensionPath string `json:"extensionPath"`
}

// ResourcesDiscover runs the resources_discover handlers (reason "startup" or "reload") and collects
// their paths in load order. The sidecar answers with paths already tagged with their extension; a
// plain process answers with bare strings (pi's ResourcesDiscoverResult), tagged with its own path.
func (h *Host) ResourcesDiscover(ctx context.Context, cwd, reason string) DiscoveredResources {
	var out DiscoveredResources
	for _, p := range h.subscribed(ctx, "resources_discover") {
		body, err := json.Marshal(map[string]any{"type": "resources_discover", "cwd": cwd, "reason": reason})
		if err != nil {
			return out
		}
		res, err := p.call(ctx, hostMessage{Type: msgEvent, Event: body}, h.cfg.CallTimeout, nil)
		if err != nil {
			if ctx.Err() != nil {
				return out
			}
			h.cfg.OnError(ExtensionError{ExtensionPath: p.path, Event: "resources_discover", Error: err.Error()})
			continue
		}
		var a struct {
			SkillPaths, PromptPaths, ThemePaths []json.RawMessage
		}
		if string(res) == "null" || json.Unmarshal(res, &a) != nil {
			continue
		}
		out.SkillPaths = append(out.SkillPaths, discoveredPaths(a.SkillPaths, p.path)...)
		out.PromptPaths = append(out.PromptPaths, discoveredPaths(a.PromptPaths, p.path)...)
		out.ThemePaths = append(out.ThemePaths, discoveredPaths(a.ThemePaths, p.path)...)
	}
	return out
}

func discoveredPaths(raws []json.RawMessage, extensionPath string) []DiscoveredPath {
	var out []DiscoveredPath
	for _, r := range raws {
		var s string
		if json.Unmarshal(r, &s) == nil {
			if s != "" {
				out = append(out, DiscoveredPath{Path: s, ExtensionPath: extensionPath})
			}
			continue
		}
		var d DiscoveredPath
		if json.Unmarshal(r, &d) == nil && d.Path != "" {
			if d.ExtensionPath == "" {
				d.ExtensionPath = extensionPath
			}
			out = append(out, d)
		}
	}
	return out
}
