package render

import (
	"strings"
	"unicode"
)

// Markdown surfaces, as pi names them for its markdown transformers (MarkdownContext.MessageType).
const (
	MDUser      = "user"
	MDAssistant = "assistant"
	MDThinking  = "assistant-thinking"
	MDCustom    = "custom"  // custom messages drawn by pi-go, expanded skill blocks
	MDSummary   = "summary" // expanded compaction and branch summaries
)

// MarkdownTransformer rewrites markdown before it is rendered (extensions' registerMarkdownTransformer).
// Its methods are called from any goroutine that renders and must not block.
type MarkdownTransformer interface {
	// Applies reports whether markdown of messageType is transformed at all: when it is not, the
	// renderer draws as if there were no transformer.
	Applies(messageType string) bool
	// Transform returns the markdown to render in place of markdown. ok false says the answer is not
	// there yet: out is a stand-in (markdown itself, or an earlier answer for a prefix of it) and the
	// caller draws again once the answer is in.
	Transform(markdown string, c MarkdownContext) (out string, ok bool)
}

// MarkdownContext is what a transformer is told about the markdown (pi's context).
type MarkdownContext struct {
	MessageType string
	Streaming   bool
	// Width is the number of columns the markdown is laid out in.
	Width int
	// MessageID and Timestamp are the session entry's (a resumed conversation); empty otherwise.
	MessageID, Timestamp string
	// Slot names a text that streams (one part of an assistant message being answered), so that a
	// transformer can keep one request per text in flight.
	Slot any
}

// mdMeta is the session entry a message was read from, for a transformer's context.
type mdMeta struct{ id, ts string }

type transformerBox struct{ t MarkdownTransformer }

// SetMarkdownTransformer makes every later rendering go through t (nil: none).
func (r *Renderer) SetMarkdownTransformer(t MarkdownTransformer) {
	if t == nil {
		r.mdx.Store(nil)
		return
	}
	r.mdx.Store(&transformerBox{t})
}

// transformer is the transformer for messageType, or nil: without one, rendering costs nothing more.
func (r *Renderer) transformer(messageType string) MarkdownTransformer {
	b := r.mdx.Load()
	if b == nil || !b.t.Applies(messageType) {
		return nil
	}
	return b.t
}

// transform is text as the transformer of messageType leaves it (text itself without one). Like
// pi, the transformer sees the text without its surrounding white space; what trails it is kept, as
// the block splitter of a streaming text needs it.
func (r *Renderer) transform(text, messageType string, width int, meta mdMeta) string {
	out, _ := r.transformWith(r.transformer(messageType), text, MarkdownContext{MessageType: messageType, Width: width,
		MessageID: meta.id, Timestamp: meta.ts})
	return out
}

func (r *Renderer) transformWith(t MarkdownTransformer, text string, c MarkdownContext) (string, bool) {
	if t == nil {
		return text, true
	}
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return text, true
	}
	out, ok := t.Transform(trimmed, c)
	return out + text[len(strings.TrimRightFunc(text, unicode.IsSpace)):], ok
}
