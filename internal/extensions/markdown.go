package extensions

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Markdown transformers (pi 1.6's pi.registerMarkdownTransformer): display-only rewrites of the
// markdown the TUI is about to render. pi runs them in-process and synchronously; here each is a
// round trip, so the TUI caches their answers and never waits for one (internal/tui/mdx.go).

// DefaultMarkdownTypes are the surfaces a transformer registered without messageTypes runs on
// (pi's DEFAULT_MARKDOWN_MESSAGE_TYPES).
var DefaultMarkdownTypes = []string{"user", "assistant", "assistant-thinking"}

// markdownTimeout bounds one transform: a transformer is meant to be cheap, and the TUI shows the
// markdown untransformed meanwhile, so a stuck one must not hold the chain for the event deadline.
const markdownTimeout = 5 * time.Second

// MarkdownTransformerSpec is a process's transformer: the surfaces it runs on (nil: the defaults).
// The sidecar's is the union of its extensions' (it chains them itself).
type MarkdownTransformerSpec struct {
	MessageTypes []string `json:"messageTypes,omitempty"`
}

func (s *MarkdownTransformerSpec) types() []string {
	if s == nil {
		return nil
	}
	if s.MessageTypes == nil {
		return DefaultMarkdownTypes
	}
	return s.MessageTypes
}

// MarkdownContext is pi's context of a transformer call.
type MarkdownContext struct {
	MessageType    string `json:"messageType"`
	IsStreaming    bool   `json:"isStreaming"`
	AvailableWidth int    `json:"availableWidth"`
	// MessageID and Timestamp are the session entry's, for a message drawn from the session file
	// (a resumed session); empty for live messages.
	MessageID string `json:"messageId,omitempty"`
	Timestamp string `json:"timestamp,omitempty"`
}

// MarkdownTransformers lists the surfaces some extension transforms (nil: none, and the TUI asks
// nothing).
func (h *Host) MarkdownTransformers() []string {
	if !h.Started() {
		return nil
	}
	var out []string
	for _, p := range h.live(context.Background()) {
		for _, t := range p.markdownSpec().types() {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// TransformMarkdown runs the transformers of c.MessageType over markdown, in load order, each on the
// previous one's output. A failing one keeps the markdown so far and the chain goes on (as pi's
// throwing transformer); its error is returned beside the result.
func (h *Host) TransformMarkdown(ctx context.Context, markdown string, c MarkdownContext) (string, error) {
	var cdata json.RawMessage
	var firstErr error
	for _, p := range h.live(ctx) {
		if !slices.Contains(p.markdownSpec().types(), c.MessageType) {
			continue
		}
		if cdata == nil {
			var err error
			if cdata, err = json.Marshal(c); err != nil {
				return markdown, err
			}
		}
		md := markdown
		res, err := p.call(ctx, hostMessage{Type: msgTransformMD, Markdown: &md, Context: cdata}, min(h.cfg.CallTimeout, markdownTimeout), nil)
		if err == nil {
			var r *struct {
				Markdown *string `json:"markdown"`
			}
			if err = json.Unmarshal(res, &r); err == nil && r != nil && r.Markdown != nil {
				markdown = *r.Markdown
			}
		}
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("markdown transformer (%s): %w", p.path, err)
		}
	}
	return markdown, firstErr
}

// markdownSpec is the process's transformer now (nil: none).
func (p *process) markdownSpec() *MarkdownTransformerSpec {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.regs.MarkdownTransformer
}

// setMarkdownSpec applies a "markdownTransformer" request: the process registered, replaced or
// withdrew its transformer after register.
func (p *process) setMarkdownSpec(params json.RawMessage) error {
	var s *MarkdownTransformerSpec
	if err := json.Unmarshal(params, &s); err != nil {
		return fmt.Errorf("markdownTransformer: %w", err)
	}
	if s != nil && s.MessageTypes != nil && len(s.MessageTypes) == 0 {
		s = nil // an empty list runs nowhere: the same as none
	}
	p.mu.Lock()
	p.regs.MarkdownTransformer = s
	p.mu.Unlock()
	return nil
}
