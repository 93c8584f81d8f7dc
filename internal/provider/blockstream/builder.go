// Package blockstream assembles an assistant message block by block for the APIs whose streams name
// each block themselves: OpenAI Responses output items (a reasoning item, a message, a function call,
// each opened and closed by the server) and Gemini parts (a new block whenever a part switches between
// thought and text). provider.StreamBuilder keeps chat completions' one-text-one-thinking shape; these
// APIs need as many blocks of a kind as the server sends, each with its own signature, closed when the
// server says so.
//
// It emits pi's event sequence (start, *_start, *_delta, *_end, done or error) and knows nothing of any
// wire format.
package blockstream

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// Builder is used by one goroutine. Each event's Partial is a snapshot of its own (the block slice
// copied, the strings shared: they are only ever replaced, never written into), so a consumer may keep
// it and read it from any goroutine.
type Builder struct {
	emit    func(*provider.AssistantEvent)
	begun   time.Time
	mu      sync.Mutex // guards msg against Message readers on other goroutines
	msg     provider.AssistantMessage
	blocks  []*block // parallel to msg.Content
	started bool
	done    bool
}

type block struct {
	buf       strings.Builder // text, thinking or tool-call arguments as streamed
	parsedLen int             // arguments length at the last partial parse
	open      bool
}

// New starts a message for model; emit receives every event (it may be nil).
func New(model *provider.Model, emit func(*provider.AssistantEvent)) *Builder {
	b := &Builder{emit: emit, begun: time.Now()}
	b.msg = provider.AssistantMessage{
		Content:    []provider.Content{},
		API:        model.API,
		Provider:   model.Provider,
		Model:      model.ID,
		StopReason: provider.StopReasonPending,
		Timestamp:  b.begun.UnixMilli(),
	}
	return b
}

// Started reports whether Start was called.
func (b *Builder) Started() bool { return b.started }

// Len is the number of blocks so far.
func (b *Builder) Len() int { return len(b.msg.Content) }

// Block returns a copy of block i.
func (b *Builder) Block(i int) provider.Content { return b.msg.Content[i] }

// IsOpen reports whether block i was opened and not closed.
func (b *Builder) IsOpen(i int) bool { return i >= 0 && i < len(b.blocks) && b.blocks[i].open }

func (b *Builder) snapshot() *provider.AssistantMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.msg
	s.Content = slices.Clone(b.msg.Content)
	return &s
}

func (b *Builder) send(t provider.AssistantEventType, idx int, fill func(*provider.AssistantEvent)) {
	if b.emit == nil {
		return
	}
	e := &provider.AssistantEvent{Type: t, ContentIndex: idx, Partial: b.snapshot()}
	if fill != nil {
		fill(e)
	}
	b.emit(e)
}

// Start emits the start event, once (after the request succeeded).
func (b *Builder) Start() {
	if b.started {
		return
	}
	b.started = true
	b.send(provider.EventStart, 0, nil)
}

// Open appends block c (text, thinking or tool call, with whatever it already holds) and emits its
// *_start event; it returns the block's index. A tool call's Arguments are its arguments so far ("{}"
// when nil).
func (b *Builder) Open(c provider.Content) int {
	b.Start()
	st := &block{open: true}
	var t provider.AssistantEventType
	switch c.Type {
	case provider.ContentText:
		st.buf.WriteString(c.Text)
		t = provider.EventTextStart
	case provider.ContentThinking:
		st.buf.WriteString(c.Thinking)
		t = provider.EventThinkingStart
	default:
		if c.PartialArgs != nil {
			// Arguments the server sent with the call's announcement.
			st.buf.WriteString(*c.PartialArgs)
			st.parsedLen = st.buf.Len()
			c.Arguments = provider.RepairJSONObject(*c.PartialArgs)
		}
		if len(c.Arguments) == 0 {
			c.Arguments = provider.ToolCallContent("", "", nil).Arguments
		}
		t = provider.EventToolCallStart
	}
	b.mu.Lock()
	b.msg.Content = append(b.msg.Content, c)
	b.mu.Unlock()
	b.blocks = append(b.blocks, st)
	i := len(b.msg.Content) - 1
	b.send(t, i, nil)
	return i
}

// Append adds delta to block i (text, thinking or tool-call arguments) and emits the *_delta event.
func (b *Builder) Append(i int, delta string) {
	if delta == "" || !b.IsOpen(i) {
		return
	}
	st := b.blocks[i]
	st.buf.WriteString(delta)
	var t provider.AssistantEventType
	b.mu.Lock()
	c := &b.msg.Content[i]
	switch c.Type {
	case provider.ContentText:
		c.Text = st.buf.String()
		t = provider.EventTextDelta
	case provider.ContentThinking:
		c.Thinking = st.buf.String()
		t = provider.EventThinkingDelta
	default:
		text := st.buf.String()
		c.PartialArgs = &text
		// Re-parse while small, then whenever the text grew by an eighth: the partial arguments are
		// for display, and re-parsing a long argument on every fragment would be quadratic.
		if n := st.buf.Len(); n < 4096 || n-st.parsedLen >= st.parsedLen/8 {
			c.Arguments = provider.RepairJSONObject(text)
			st.parsedLen = n
		}
		t = provider.EventToolCallDelta
	}
	b.mu.Unlock()
	b.send(t, i, func(e *provider.AssistantEvent) { e.Delta = delta })
}

// SetArguments makes full the argument text of tool call i, as a server's final word on them: when
// it continues what was streamed, the rest is emitted as a delta; otherwise it replaces the text
// without an event.
func (b *Builder) SetArguments(i int, full string) {
	if !b.IsOpen(i) {
		return
	}
	st := b.blocks[i]
	cur := st.buf.String()
	if strings.HasPrefix(full, cur) {
		b.Append(i, full[len(cur):])
		return
	}
	st.buf.Reset()
	st.buf.WriteString(full)
	st.parsedLen = len(full)
	b.mu.Lock()
	c := &b.msg.Content[i]
	c.PartialArgs = &full
	c.Arguments = provider.RepairJSONObject(full)
	b.mu.Unlock()
}

// Arguments is the tool-call argument text streamed into block i so far.
func (b *Builder) Arguments(i int) string { return b.blocks[i].buf.String() }

// Update changes block i without an event (a signature arriving, the server's final text).
func (b *Builder) Update(i int, f func(c *provider.Content)) {
	b.mu.Lock()
	f(&b.msg.Content[i])
	b.mu.Unlock()
}

// Close ends block i: a tool call's arguments become the JSON object its streamed text makes (unless
// Update set them and nothing was streamed), and the *_end event is emitted. Closing a closed block
// does nothing.
func (b *Builder) Close(i int) {
	if !b.IsOpen(i) {
		return
	}
	st := b.blocks[i]
	st.open = false
	b.mu.Lock()
	c := &b.msg.Content[i]
	finalise(c)
	final := *c
	b.mu.Unlock()
	switch final.Type {
	case provider.ContentText:
		b.send(provider.EventTextEnd, i, func(e *provider.AssistantEvent) { e.Content = final.Text })
	case provider.ContentThinking:
		b.send(provider.EventThinkingEnd, i, func(e *provider.AssistantEvent) { e.Content = final.Thinking })
	default:
		b.send(provider.EventToolCallEnd, i, func(e *provider.AssistantEvent) { e.ToolCall = &final })
	}
}

// finalise turns a tool call's streamed text into its arguments and drops the streaming bookkeeping.
func finalise(c *provider.Content) {
	if c.Type != provider.ContentToolCall {
		return
	}
	if c.PartialArgs != nil {
		c.Arguments = provider.RepairJSONObject(*c.PartialArgs)
	}
	if len(c.Arguments) == 0 {
		c.Arguments = provider.ToolCallContent("", "", nil).Arguments
	}
	c.PartialArgs = nil
	c.StreamIndex = nil
}

// SetResponseID records the server's response id.
func (b *Builder) SetResponseID(id string) {
	b.mu.Lock()
	b.msg.ResponseID = id
	b.mu.Unlock()
}

// ResponseID is the id recorded so far.
func (b *Builder) ResponseID() string { return b.msg.ResponseID }

// SetUsage records the token usage.
func (b *Builder) SetUsage(u provider.Usage) {
	b.mu.Lock()
	b.msg.Usage = u
	b.mu.Unlock()
}

// Usage is the usage recorded so far.
func (b *Builder) Usage() provider.Usage { return b.msg.Usage }

// SetStopReason records the provider's raw stop reason and what it maps to; errMsg replaces the
// error text (empty clears it).
func (b *Builder) SetStopReason(raw string, r provider.StopReason, errMsg string) {
	b.mu.Lock()
	b.msg.RawStopReason = raw
	b.msg.StopReason = r
	b.msg.ErrorMessage = errMsg
	b.mu.Unlock()
}

// StopReason is the stop reason recorded so far.
func (b *Builder) StopReason() provider.StopReason { return b.msg.StopReason }

// ErrorMessage is the error text recorded so far.
func (b *Builder) ErrorMessage() string { return b.msg.ErrorMessage }

// RawStopReason is the provider's stop reason recorded so far.
func (b *Builder) RawStopReason() string { return b.msg.RawStopReason }

// HasToolCall reports whether the message has a tool-call block.
func (b *Builder) HasToolCall() bool {
	for i := range b.msg.Content {
		if b.msg.Content[i].Type == provider.ContentToolCall {
			return true
		}
	}
	return false
}

// Finish closes the blocks still open and emits done with the recorded stop reason, which the caller
// has checked is a finished one (stop, length or toolUse).
func (b *Builder) Finish() *provider.AssistantMessage {
	if b.done {
		return b.final()
	}
	for i := range b.blocks {
		b.Close(i)
	}
	b.done = true
	final := b.final()
	b.send(provider.EventDone, 0, func(e *provider.AssistantEvent) {
		e.Partial, e.Reason, e.Message = nil, final.StopReason, final
	})
	return final
}

// Fail ends the stream with an error or abort, keeping the content so far (open blocks are not
// closed, as pi's stream throws past them; tool calls keep the arguments they have).
func (b *Builder) Fail(reason provider.StopReason, errMsg string) *provider.AssistantMessage {
	if b.done {
		return b.final()
	}
	b.done = true
	b.mu.Lock()
	for i := range b.msg.Content {
		finalise(&b.msg.Content[i])
	}
	b.msg.StopReason = reason
	b.msg.ErrorMessage = errMsg
	b.mu.Unlock()
	final := b.final()
	b.send(provider.EventError, 0, func(e *provider.AssistantEvent) {
		e.Partial, e.Reason, e.Message = nil, reason, final
	})
	return final
}

// final is the finished message: a copy, timed in milliseconds from the builder's creation.
func (b *Builder) final() *provider.AssistantMessage {
	b.mu.Lock()
	if b.msg.DurationMs == nil {
		ms := (time.Since(b.begun) + time.Millisecond/2).Milliseconds()
		b.msg.DurationMs = &ms
	}
	b.mu.Unlock()
	return b.snapshot()
}
