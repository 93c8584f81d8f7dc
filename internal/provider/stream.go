package provider

import (
	"encoding/json"
	"strings"
	"sync"
	"time"
)

// StreamBuilder assembles an assistant message from stream deltas and emits pi's event sequence. It
// follows pi 0.73.1's openai-completions semantics: at most one text block and one thinking block (later
// deltas of a kind extend the same block), tool calls keyed by stream index (or id), and every block
// closed at the end of the stream in content order.
//
// Events carry the builder's own message as their Partial, as pi's do, not a copy: a copy per event
// costs the size of the message so far, which made one answer with thousands of tool calls quadratic
// in memory and time. A consumer reads Partial while it handles the event; one that keeps the message
// (a UI drawing on another goroutine) takes AssistantEvent.Snapshot, which the builder's lock makes
// safe from any goroutine. The final message (done, error, and what Finish and Fail return) is a copy
// of its own.
//
// A StreamBuilder is used by one goroutine; Snapshot may be called from any.
type StreamBuilder struct {
	emit func(*AssistantEvent)
	// begun is when the builder was made, just before the request: the final message's DurationMs
	// counts from here (a monotonic reading).
	begun time.Time
	// mu guards msg: the builder holds it while it changes the message, snapshots while they copy it.
	mu      sync.RWMutex
	msg     AssistantMessage
	started bool
	done    bool

	text     strings.Builder
	textIdx  int
	think    strings.Builder
	thinkIdx int

	tools   []*toolCallState
	byIndex map[int]*toolCallState
	byID    map[string]*toolCallState
}

type toolCallState struct {
	contentIdx int
	args       strings.Builder
	parsedLen  int
}

// NewStreamBuilder starts a message for model; emit receives every event (it may be nil).
func NewStreamBuilder(model *Model, emit func(*AssistantEvent)) *StreamBuilder {
	b := &StreamBuilder{emit: emit, begun: time.Now(), textIdx: -1, thinkIdx: -1}
	b.msg = AssistantMessage{
		Content:    []Content{},
		API:        model.API,
		Provider:   model.Provider,
		Model:      model.ID,
		StopReason: StopReasonPending,
		Timestamp:  b.begun.UnixMilli(),
	}
	if b.msg.API == "" {
		b.msg.API = APIOpenAICompletions
	}
	return b
}

// Started reports whether Start was called.
func (b *StreamBuilder) Started() bool { return b.started }

// HasContent reports whether any block was opened.
func (b *StreamBuilder) HasContent() bool { return len(b.msg.Content) > 0 }

// snapshot returns an immutable copy of the message so far. Block strings are shared: they come from
// builders that only ever append, so earlier strings never change; a block's arguments and partial
// arguments are replaced, never written into.
func (b *StreamBuilder) snapshot() *AssistantMessage {
	b.mu.RLock()
	defer b.mu.RUnlock()
	s := b.msg
	s.Content = make([]Content, len(b.msg.Content))
	copy(s.Content, b.msg.Content)
	return &s
}

// event returns a new event of type t for block idx whose Partial is the builder's message.
func (b *StreamBuilder) event(t AssistantEventType, idx int) *AssistantEvent {
	return &AssistantEvent{Type: t, ContentIndex: idx, Partial: &b.msg, source: b}
}

func (b *StreamBuilder) send(e *AssistantEvent) {
	if b.emit != nil {
		b.emit(e)
	}
}

// Start emits the start event (after the request succeeded; connection errors never start a stream).
func (b *StreamBuilder) Start() {
	if b.started {
		return
	}
	b.started = true
	b.send(b.event(EventStart, 0))
}

// SetResponseID records the server's completion id (the first one wins).
func (b *StreamBuilder) SetResponseID(id string) {
	if b.msg.ResponseID == "" {
		b.mu.Lock()
		b.msg.ResponseID = id
		b.mu.Unlock()
	}
}

// SetResponseModel records the model the server says answered, when it differs from the requested one
// (the first one wins).
func (b *StreamBuilder) SetResponseModel(model string) {
	if model == "" || b.msg.ResponseModel != "" {
		return
	}
	b.mu.Lock()
	b.msg.ResponseModel = model
	b.mu.Unlock()
}

// SetUsage records the token usage.
func (b *StreamBuilder) SetUsage(u Usage) {
	b.mu.Lock()
	b.msg.Usage = u
	b.mu.Unlock()
}

// SetStopReason records the provider's stop reason (raw, as sent) and what it maps to; errMsg is
// kept for error reasons.
func (b *StreamBuilder) SetStopReason(raw string, r StopReason, errMsg string) {
	b.mu.Lock()
	b.msg.RawStopReason = raw
	b.msg.StopReason = r
	if errMsg != "" {
		b.msg.ErrorMessage = errMsg
	}
	b.mu.Unlock()
}

// StopReason is the stop reason recorded so far.
func (b *StreamBuilder) StopReason() StopReason { return b.msg.StopReason }

// Text appends visible text.
func (b *StreamBuilder) Text(delta string) {
	if delta == "" {
		return
	}
	b.Start()
	if b.textIdx < 0 {
		b.textIdx = len(b.msg.Content)
		b.mu.Lock()
		b.msg.Content = append(b.msg.Content, Content{Type: ContentText})
		b.mu.Unlock()
		b.send(b.event(EventTextStart, b.textIdx))
	}
	b.text.WriteString(delta)
	b.mu.Lock()
	b.msg.Content[b.textIdx].Text = b.text.String()
	b.mu.Unlock()
	e := b.event(EventTextDelta, b.textIdx)
	e.Delta = delta
	b.send(e)
}

// Thinking appends reasoning text; field is the name of the delta field it came from (the signature).
func (b *StreamBuilder) Thinking(delta, field string) {
	if delta == "" {
		return
	}
	b.Start()
	if b.thinkIdx < 0 {
		b.thinkIdx = len(b.msg.Content)
		b.mu.Lock()
		b.msg.Content = append(b.msg.Content, Content{Type: ContentThinking, ThinkingSignature: field})
		b.mu.Unlock()
		b.send(b.event(EventThinkingStart, b.thinkIdx))
	}
	b.think.WriteString(delta)
	b.mu.Lock()
	b.msg.Content[b.thinkIdx].Thinking = b.think.String()
	b.mu.Unlock()
	e := b.event(EventThinkingDelta, b.thinkIdx)
	e.Delta = delta
	b.send(e)
}

// ToolCall adds a tool-call fragment. index is the stream index (nil when the server sends none); id and
// name are applied when non-empty; argsFragment is appended to the arguments text.
func (b *StreamBuilder) ToolCall(index *int, id, name, argsFragment string) {
	b.Start()
	var st *toolCallState
	if index != nil {
		st = b.byIndex[*index]
	}
	if st == nil && id != "" {
		st = b.byID[id]
	}
	if st == nil {
		st = &toolCallState{contentIdx: len(b.msg.Content)}
		empty := ""
		block := Content{Type: ContentToolCall, ID: id, Name: name, Arguments: emptyObject, PartialArgs: &empty}
		if index != nil {
			i := *index
			block.StreamIndex = &i
		}
		b.mu.Lock()
		b.msg.Content = append(b.msg.Content, block)
		b.mu.Unlock()
		b.tools = append(b.tools, st)
		if index != nil {
			if b.byIndex == nil {
				b.byIndex = map[int]*toolCallState{}
			}
			b.byIndex[*index] = st
		}
		if id != "" {
			if b.byID == nil {
				b.byID = map[string]*toolCallState{}
			}
			b.byID[id] = st
		}
		b.send(b.event(EventToolCallStart, st.contentIdx))
	}
	if index != nil && b.msg.Content[st.contentIdx].StreamIndex == nil {
		// Found by id: remember its index too, so later index-only fragments land here.
		i := *index
		b.mu.Lock()
		b.msg.Content[st.contentIdx].StreamIndex = &i
		b.mu.Unlock()
		if b.byIndex == nil {
			b.byIndex = map[int]*toolCallState{}
		}
		b.byIndex[i] = st
	}
	if id != "" {
		// Gateways that change ids mid-stream: every id seen names this block.
		if b.byID == nil {
			b.byID = map[string]*toolCallState{}
		}
		b.byID[id] = st
	}
	var args json.RawMessage
	if argsFragment != "" {
		st.args.WriteString(argsFragment)
		// Re-parse while small, then whenever the text grew by an eighth: the partial arguments are for
		// display, and re-parsing a long argument on every fragment would be quadratic.
		if n := st.args.Len(); n < 4096 || n-st.parsedLen >= st.parsedLen/8 {
			args = RepairJSONObject(st.args.String())
			st.parsedLen = n
		}
	}
	var partial *string
	if argsFragment != "" {
		// A new string each time: snapshots taken earlier keep pointing to the text they saw.
		text := st.args.String()
		partial = &text
	}
	b.mu.Lock()
	block := &b.msg.Content[st.contentIdx]
	if block.ID == "" && id != "" {
		block.ID = id
	}
	if block.Name == "" && name != "" {
		block.Name = name
	}
	if args != nil {
		block.Arguments = args
	}
	if partial != nil {
		block.PartialArgs = partial
	}
	b.mu.Unlock()
	e := b.event(EventToolCallDelta, st.contentIdx)
	e.Delta = argsFragment
	b.send(e)
}

// SetThoughtSignature attaches provider metadata to the tool call with the given id.
func (b *StreamBuilder) SetThoughtSignature(id, sig string) {
	if st := b.byID[id]; st != nil {
		b.mu.Lock()
		b.msg.Content[st.contentIdx].ThoughtSignature = sig
		b.mu.Unlock()
	}
}

// closeBlocks emits the *_end events of every block in content order and finalises tool calls.
func (b *StreamBuilder) closeBlocks() {
	for i := range b.msg.Content {
		c := &b.msg.Content[i]
		switch c.Type {
		case ContentText:
			e := b.event(EventTextEnd, i)
			e.Content = c.Text
			b.send(e)
		case ContentThinking:
			e := b.event(EventThinkingEnd, i)
			e.Content = c.Thinking
			b.send(e)
		case ContentToolCall:
			b.mu.Lock()
			finaliseToolCall(c)
			b.mu.Unlock()
			tc := *c
			e := b.event(EventToolCallEnd, i)
			e.ToolCall = &tc
			b.send(e)
		}
	}
}

func finaliseToolCall(c *Content) {
	if c.PartialArgs != nil {
		c.Arguments = RepairJSONObject(*c.PartialArgs)
	}
	if len(c.Arguments) == 0 {
		c.Arguments = emptyObject
	}
	c.PartialArgs = nil
	c.StreamIndex = nil
}

// Finish closes the blocks and emits done; the stream ended normally with the recorded stop reason.
// If that reason is error (a content filter, say) it emits error instead.
func (b *StreamBuilder) Finish() *AssistantMessage {
	if b.done {
		return b.final()
	}
	b.closeBlocks()
	if b.msg.StopReason == StopReasonPending {
		// No stop reason arrived, yet the stream ended normally ([DONE]): pi-go takes that as a
		// finished answer, as pi 0.73.1 did.
		b.mu.Lock()
		b.msg.StopReason = StopReasonStop
		b.mu.Unlock()
	}
	if b.msg.StopReason == StopReasonError || b.msg.StopReason == StopReasonAborted {
		msg := b.msg.ErrorMessage
		if msg == "" {
			msg = "Provider returned an error stop reason"
		}
		return b.fail(b.msg.StopReason, msg, false)
	}
	b.done = true
	final := b.final()
	b.send(&AssistantEvent{Type: EventDone, Reason: final.StopReason, Message: final})
	return final
}

// Fail ends the stream with an error or abort, keeping the partial content. An abort of a started stream
// closes the blocks first (*_end events), as pi does when the SDK ends the iteration on cancel; an error
// mid-stream does not (pi's iterator throws before it can close them).
func (b *StreamBuilder) Fail(reason StopReason, errMsg string) *AssistantMessage {
	if b.done {
		return b.final()
	}
	return b.fail(reason, errMsg, b.started && reason == StopReasonAborted)
}

func (b *StreamBuilder) fail(reason StopReason, errMsg string, close bool) *AssistantMessage {
	if close {
		b.closeBlocks()
	} else {
		b.mu.Lock()
		for i := range b.msg.Content {
			if b.msg.Content[i].Type == ContentToolCall {
				finaliseToolCall(&b.msg.Content[i])
			}
		}
		b.mu.Unlock()
	}
	b.done = true
	b.mu.Lock()
	b.msg.StopReason = reason
	b.msg.ErrorMessage = errMsg
	b.mu.Unlock()
	final := b.final()
	b.send(&AssistantEvent{Type: EventError, Reason: reason, Message: final})
	return final
}

// final is the finished message: a copy, timed as pi's event stream times it (milliseconds from the
// builder's creation, rounded).
func (b *StreamBuilder) final() *AssistantMessage {
	m := b.snapshot()
	if m.DurationMs == nil {
		ms := (time.Since(b.begun) + time.Millisecond/2).Milliseconds()
		m.DurationMs = &ms
		b.mu.Lock()
		b.msg.DurationMs = m.DurationMs
		b.mu.Unlock()
	}
	return m
}

// ParseArguments decodes a tool call's arguments into dst.
func (c *Content) ParseArguments(dst any) error {
	args := c.Arguments
	if len(args) == 0 {
		args = emptyObject
	}
	return json.Unmarshal(args, dst)
}
