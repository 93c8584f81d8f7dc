package provider

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// BlockBuilder assembles an assistant message block by block, for the APIs whose streams name each
// block themselves: Anthropic content blocks (any number of text and thinking blocks, each with its
// own signature, opened and closed by index), OpenAI Responses output items (a reasoning item, a
// message, a function call, each opened and closed by the server) and Gemini parts (a new block whenever a part switches between
// thought and text). StreamBuilder keeps chat completions' one-text-one-thinking shape; these APIs
// need as many blocks of a kind as the server sends, each with its own signature, closed when the
// server says so. It emits pi's event sequence and knows no wire format.
//
// Events carry the builder's own message as their Partial, as StreamBuilder's do (a copy per event
// would cost the size of the message so far: quadratic in an answer of thousands of blocks); a
// consumer reads it while it handles the event and takes AssistantEvent.Snapshot to keep it, which
// the builder's lock makes safe from any goroutine. Block strings are only ever replaced, never
// written into, so snapshots share them. A BlockBuilder is used by one goroutine; Snapshot may be
// called from any.
type BlockBuilder struct {
	emit    func(*AssistantEvent)
	begun   time.Time
	mu      sync.RWMutex // held while msg changes; snapshots take it to read
	msg     AssistantMessage
	blocks  []*openBlock // parallel to msg.Content
	started bool
	done    bool
}

type openBlock struct {
	buf       strings.Builder // text, thinking or tool-call arguments as streamed
	parsedLen int             // arguments length at the last partial parse
	open      bool
}

// NewBlockBuilder starts a message for model; emit receives every event (it may be nil).
func NewBlockBuilder(model *Model, emit func(*AssistantEvent)) *BlockBuilder {
	b := &BlockBuilder{emit: emit, begun: time.Now()}
	b.msg = AssistantMessage{
		Content:    []Content{},
		API:        model.API,
		Provider:   model.Provider,
		Model:      model.ID,
		StopReason: StopReasonPending,
		Timestamp:  b.begun.UnixMilli(),
	}
	return b
}

// Started reports whether Start was called.
func (b *BlockBuilder) Started() bool { return b.started }

// Len is the number of blocks so far.
func (b *BlockBuilder) Len() int { return len(b.msg.Content) }

// Block returns a copy of block i.
func (b *BlockBuilder) Block(i int) Content { return b.msg.Content[i] }

// Kind is the type of block i.
func (b *BlockBuilder) Kind(i int) string { return b.msg.Content[i].Type }

// IsOpen reports whether block i was opened and not closed.
func (b *BlockBuilder) IsOpen(i int) bool { return i >= 0 && i < len(b.blocks) && b.blocks[i].open }

func (b *BlockBuilder) snapshot() *AssistantMessage {
	b.mu.RLock()
	defer b.mu.RUnlock()
	s := b.msg
	s.Content = slices.Clone(b.msg.Content)
	return &s
}

func (b *BlockBuilder) send(t AssistantEventType, idx int, fill func(*AssistantEvent)) {
	if b.emit == nil {
		return
	}
	e := &AssistantEvent{Type: t, ContentIndex: idx, Partial: &b.msg, source: b}
	if fill != nil {
		fill(e)
	}
	b.emit(e)
}

// Start emits the start event, once (after the request succeeded).
func (b *BlockBuilder) Start() {
	if b.started {
		return
	}
	b.started = true
	b.send(EventStart, 0, nil)
}

// Open appends block c (text, thinking or tool call, with whatever it already holds) and emits its
// *_start event; it returns the block's index. A tool call's Arguments are its arguments so far ("{}"
// when nil).
func (b *BlockBuilder) Open(c Content) int {
	b.Start()
	st := &openBlock{open: true}
	var t AssistantEventType
	switch c.Type {
	case ContentText:
		st.buf.WriteString(c.Text)
		t = EventTextStart
	case ContentThinking:
		st.buf.WriteString(c.Thinking)
		t = EventThinkingStart
	default:
		if c.PartialArgs != nil {
			// Arguments the server sent with the call's announcement.
			st.buf.WriteString(*c.PartialArgs)
			st.parsedLen = st.buf.Len()
			c.Arguments = RepairJSONObject(*c.PartialArgs)
		}
		if len(c.Arguments) == 0 {
			c.Arguments = ToolCallContent("", "", nil).Arguments
		}
		t = EventToolCallStart
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
func (b *BlockBuilder) Append(i int, delta string) {
	if delta == "" || !b.IsOpen(i) {
		return
	}
	st := b.blocks[i]
	st.buf.WriteString(delta)
	var t AssistantEventType
	b.mu.Lock()
	c := &b.msg.Content[i]
	switch c.Type {
	case ContentText:
		c.Text = st.buf.String()
		t = EventTextDelta
	case ContentThinking:
		c.Thinking = st.buf.String()
		t = EventThinkingDelta
	default:
		text := st.buf.String()
		c.PartialArgs = &text
		// Re-parse while small, then whenever the text grew by an eighth: the partial arguments are
		// for display, and re-parsing a long argument on every fragment would be quadratic.
		if n := st.buf.Len(); n < 4096 || n-st.parsedLen >= st.parsedLen/8 {
			c.Arguments = RepairJSONObject(text)
			st.parsedLen = n
		}
		t = EventToolCallDelta
	}
	b.mu.Unlock()
	b.send(t, i, func(e *AssistantEvent) { e.Delta = delta })
}

// SetArguments makes full the argument text of tool call i, as a server's final word on them: when
// it continues what was streamed, the rest is emitted as a delta; otherwise it replaces the text
// without an event.
func (b *BlockBuilder) SetArguments(i int, full string) {
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
	c.Arguments = RepairJSONObject(full)
	b.mu.Unlock()
}

// Arguments is the tool-call argument text streamed into block i so far.
func (b *BlockBuilder) Arguments(i int) string { return b.blocks[i].buf.String() }

// Update changes block i without an event (a signature arriving, the server's final text).
func (b *BlockBuilder) Update(i int, f func(c *Content)) {
	b.mu.Lock()
	f(&b.msg.Content[i])
	b.mu.Unlock()
}

// Close ends block i: a tool call's arguments become the JSON object its streamed text makes (unless
// Update set them and nothing was streamed), and the *_end event is emitted. Closing a closed block
// does nothing.
func (b *BlockBuilder) Close(i int) {
	if !b.IsOpen(i) {
		return
	}
	st := b.blocks[i]
	st.open = false
	b.mu.Lock()
	c := &b.msg.Content[i]
	finaliseBlock(c)
	final := *c
	b.mu.Unlock()
	switch final.Type {
	case ContentText:
		b.send(EventTextEnd, i, func(e *AssistantEvent) { e.Content = final.Text })
	case ContentThinking:
		b.send(EventThinkingEnd, i, func(e *AssistantEvent) { e.Content = final.Thinking })
	default:
		b.send(EventToolCallEnd, i, func(e *AssistantEvent) { e.ToolCall = &final })
	}
}

// finaliseBlock turns a tool call's streamed text into its arguments and drops the streaming bookkeeping.
func finaliseBlock(c *Content) {
	if c.Type != ContentToolCall {
		return
	}
	if c.PartialArgs != nil {
		c.Arguments = RepairJSONObject(*c.PartialArgs)
	}
	if len(c.Arguments) == 0 {
		c.Arguments = ToolCallContent("", "", nil).Arguments
	}
	c.PartialArgs = nil
	c.StreamIndex = nil
}

// SetResponseID records the server's response id.
func (b *BlockBuilder) SetResponseID(id string) {
	b.mu.Lock()
	b.msg.ResponseID = id
	b.mu.Unlock()
}

// SetResponseModel records the model the server says answered, when the server names one (the first
// one wins).
func (b *BlockBuilder) SetResponseModel(model string) {
	if model == "" || b.msg.ResponseModel != "" {
		return
	}
	b.mu.Lock()
	b.msg.ResponseModel = model
	b.mu.Unlock()
}

// SetProviderThinkingLevel records the effort an effort-marker model was given.
func (b *BlockBuilder) SetProviderThinkingLevel(level string) {
	b.mu.Lock()
	b.msg.ProviderThinkingLevel = level
	b.mu.Unlock()
}

// ResponseID is the id recorded so far.
func (b *BlockBuilder) ResponseID() string { return b.msg.ResponseID }

// SetUsage records the token usage.
func (b *BlockBuilder) SetUsage(u Usage) {
	b.mu.Lock()
	b.msg.Usage = u
	b.mu.Unlock()
}

// Usage is the usage recorded so far.
func (b *BlockBuilder) Usage() Usage { return b.msg.Usage }

// SetStopReason records the provider's raw stop reason and what it maps to; errMsg replaces the
// error text (empty clears it).
func (b *BlockBuilder) SetStopReason(raw string, r StopReason, errMsg string) {
	b.mu.Lock()
	b.msg.RawStopReason = raw
	b.msg.StopReason = r
	b.msg.ErrorMessage = errMsg
	b.mu.Unlock()
}

// StopReason is the stop reason recorded so far.
func (b *BlockBuilder) StopReason() StopReason { return b.msg.StopReason }

// ErrorMessage is the error text recorded so far.
func (b *BlockBuilder) ErrorMessage() string { return b.msg.ErrorMessage }

// RawStopReason is the provider's stop reason recorded so far.
func (b *BlockBuilder) RawStopReason() string { return b.msg.RawStopReason }

// HasToolCall reports whether the message has a tool-call block.
func (b *BlockBuilder) HasToolCall() bool {
	for i := range b.msg.Content {
		if b.msg.Content[i].Type == ContentToolCall {
			return true
		}
	}
	return false
}

// Finish closes the blocks still open and emits done with the recorded stop reason, which the caller
// has checked is a finished one (stop, length or toolUse).
func (b *BlockBuilder) Finish() *AssistantMessage {
	if b.done {
		return b.final()
	}
	for i := range b.blocks {
		b.Close(i)
	}
	b.done = true
	final := b.final()
	b.send(EventDone, 0, func(e *AssistantEvent) {
		e.Partial, e.Reason, e.Message = nil, final.StopReason, final
	})
	return final
}

// Fail ends the stream with an error or abort, keeping the content so far (open blocks are not
// closed, as pi's stream throws past them; tool calls keep the arguments they have).
func (b *BlockBuilder) Fail(reason StopReason, errMsg string) *AssistantMessage {
	if b.done {
		return b.final()
	}
	b.done = true
	b.mu.Lock()
	for i := range b.msg.Content {
		finaliseBlock(&b.msg.Content[i])
	}
	b.msg.StopReason = reason
	b.msg.ErrorMessage = errMsg
	b.mu.Unlock()
	final := b.final()
	b.send(EventError, 0, func(e *AssistantEvent) {
		e.Partial, e.Reason, e.Message = nil, reason, final
	})
	return final
}

// final is the finished message: a copy, timed in milliseconds from the builder's creation.
func (b *BlockBuilder) final() *AssistantMessage {
	b.mu.Lock()
	if b.msg.DurationMs == nil {
		ms := (time.Since(b.begun) + time.Millisecond/2).Milliseconds()
		b.msg.DurationMs = &ms
	}
	b.mu.Unlock()
	return b.snapshot()
}
