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
	// there yet: out is then the answer for markdown[:n] (an earlier state of a streaming text; n 0
	// and out "" for none), the caller draws it followed by the rest of markdown as it is, and draws
	// again once the answer is in. The caller joins the two: a streaming text's stand-in grows by
	// the delta, not by a copy of the whole text per frame.
	Transform(markdown string, c MarkdownContext) (out string, n int, ok bool)
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
	out, rest, ok := transformSplit(t, text, c)
	return out + rest, ok
}

// transformSplit is transformWith's result in two parts, the transformer's answer (or the stand-in
// for a prefix) and the rest of text, as it is, to draw after it.
func transformSplit(t MarkdownTransformer, text string, c MarkdownContext) (out, rest string, ok bool) {
	if t == nil {
		return "", text, true
	}
	end := len(strings.TrimRightFunc(text, unicode.IsSpace))
	lead := len(text[:end]) - len(strings.TrimLeftFunc(text[:end], unicode.IsSpace))
	if lead == end {
		return "", text, true
	}
	out, n, ok := t.Transform(text[lead:end], c)
	if ok {
		n = end - lead
	}
	return out, text[lead+n:], ok
}

// joiner joins a streaming text's transform and the rest of the text into one string, growing it
// in place while the transform stays and the rest only grows (a frame adds the delta, not a copy of
// the whole answer). Strings it handed out are never written to.
type joiner struct {
	buf        strings.Builder
	head, tail string
}

func (j *joiner) join(head, tail string) string {
	if tail == "" {
		return head
	}
	if head == "" {
		return tail
	}
	if j.buf.Len() == 0 || head != j.head || !strings.HasPrefix(tail, j.tail) {
		j.buf = strings.Builder{}
		j.buf.Grow(len(head) + 2*len(tail) + 256)
		j.buf.WriteString(head)
		j.head, j.tail = head, ""
	}
	j.buf.WriteString(tail[len(j.tail):])
	j.tail = tail
	return j.buf.String()
}
