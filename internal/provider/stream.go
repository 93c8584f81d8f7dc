package provider

import (
	"encoding/json"
	"strings"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// StreamBuilder assembles an assistant message from stream deltas and emits pi's event sequence with
// immutable snapshots. It follows pi 0.73.1's openai-completions semantics: at most one text block and
// one thinking block (later deltas of a kind extend the same block), tool calls keyed by stream index
// (or id), and every block closed at the end of the stream in content order.
//
// A StreamBuilder is used by one goroutine.
type StreamBuilder struct {
	emit    func(*AssistantEvent)
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
	b := &StreamBuilder{emit: emit, textIdx: -1, thinkIdx: -1}
	b.msg = AssistantMessage{
		Content:    []Content{},
		API:        model.API,
		Provider:   model.Provider,
		Model:      model.ID,
		StopReason: StopReasonStop,
		Timestamp:  Now(),
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
// builders that only ever append, so earlier strings never change.
func (b *StreamBuilder) snapshot() *AssistantMessage {
	s := b.msg
	s.Content = make([]Content, len(b.msg.Content))
	copy(s.Content, b.msg.Content)
	return &s
}

// Streamed events and their snapshots are allocated together: one allocation per delta instead of three
// (event, message, content slice), which is most of what the builder costs on a long stream. Keeping the
// partial message keeps its event alive too; both are small.
type (
	eventSnapshot struct {
		ev  AssistantEvent
		msg AssistantMessage
		// args holds the partial arguments of the tool call this event updates.
		args string
	}
	eventSnapshot1 struct {
		eventSnapshot
		content [1]Content
	}
	eventSnapshot2 struct {
		eventSnapshot
		content [2]Content
	}
	eventSnapshot3 struct {
		eventSnapshot
		content [3]Content
	}
	eventSnapshot4 struct {
		eventSnapshot
		content [4]Content
	}
)

// event returns a new event of type t for block idx whose Partial is a snapshot of the message so far.
func (b *StreamBuilder) event(t AssistantEventType, idx int) (*AssistantEvent, *eventSnapshot) {
	n := len(b.msg.Content)
	var s *eventSnapshot
	var content []Content
	switch {
	case n <= 1:
		a := &eventSnapshot1{}
		s, content = &a.eventSnapshot, a.content[:n:n]
	case n == 2:
		a := &eventSnapshot2{}
		s, content = &a.eventSnapshot, a.content[:n:n]
	case n == 3:
		a := &eventSnapshot3{}
		s, content = &a.eventSnapshot, a.content[:n:n]
	case n == 4:
		a := &eventSnapshot4{}
		s, content = &a.eventSnapshot, a.content[:n:n]
	default:
		s, content = &eventSnapshot{}, make([]Content, n)
	}
	copy(content, b.msg.Content)
	s.msg = b.msg
	s.msg.Content = content
	s.ev.Type, s.ev.ContentIndex, s.ev.Partial = t, idx, &s.msg
	return &s.ev, s
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
	e, _ := b.event(EventStart, 0)
	b.send(e)
}

// SetResponseID records the server's completion id (the first one wins).
func (b *StreamBuilder) SetResponseID(id string) {
	if b.msg.ResponseID == "" {
		b.msg.ResponseID = id
	}
}

// SetResponseModel records the model the server says answered, when it differs from the requested one
// (pi 0.73.1's "responseModel"; the first one wins).
func (b *StreamBuilder) SetResponseModel(model string) {
	if model == "" || b.msg.Extra["responseModel"] != nil {
		return
	}
	data := jsonx.AppendString(nil, model)
	// A fresh map: earlier snapshots share the old one (nil here, as nothing else sets Extra).
	extra := make(map[string]json.RawMessage, len(b.msg.Extra)+1)
	for k, v := range b.msg.Extra {
		extra[k] = v
	}
	extra["responseModel"] = data
	b.msg.Extra = extra
}

// SetUsage records the token usage.
func (b *StreamBuilder) SetUsage(u Usage) { b.msg.Usage = u }

// SetStopReason records the mapped finish reason; errMsg is kept for error reasons.
func (b *StreamBuilder) SetStopReason(r StopReason, errMsg string) {
	b.msg.StopReason = r
	if errMsg != "" {
		b.msg.ErrorMessage = errMsg
	}
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
		b.msg.Content = append(b.msg.Content, Content{Type: ContentText})
		e, _ := b.event(EventTextStart, b.textIdx)
		b.send(e)
	}
	b.text.WriteString(delta)
	b.msg.Content[b.textIdx].Text = b.text.String()
	e, _ := b.event(EventTextDelta, b.textIdx)
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
		b.msg.Content = append(b.msg.Content, Content{Type: ContentThinking, ThinkingSignature: field})
		e, _ := b.event(EventThinkingStart, b.thinkIdx)
		b.send(e)
	}
	b.think.WriteString(delta)
	b.msg.Content[b.thinkIdx].Thinking = b.think.String()
	e, _ := b.event(EventThinkingDelta, b.thinkIdx)
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
		b.msg.Content = append(b.msg.Content, block)
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
		e, _ := b.event(EventToolCallStart, st.contentIdx)
		b.send(e)
	}
	block := &b.msg.Content[st.contentIdx]
	if index != nil && block.StreamIndex == nil {
		// Found by id: remember its index too, so later index-only fragments land here.
		i := *index
		block.StreamIndex = &i
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
	if block.ID == "" && id != "" {
		block.ID = id
	}
	if block.Name == "" && name != "" {
		block.Name = name
	}
	if argsFragment != "" {
		st.args.WriteString(argsFragment)
		// Re-parse while small, then whenever the text grew by an eighth: the partial arguments are for
		// display, and re-parsing a long argument on every fragment would be quadratic.
		if n := st.args.Len(); n < 4096 || n-st.parsedLen >= st.parsedLen/8 {
			block.Arguments = RepairJSONObject(st.args.String())
			st.parsedLen = n
		}
	}
	e, snap := b.event(EventToolCallDelta, st.contentIdx)
	e.Delta = argsFragment
	if argsFragment != "" {
		// The new arguments text lives in the event's own allocation; this snapshot and the later ones
		// point to it, and nothing ever writes it again.
		snap.args = st.args.String()
		block.PartialArgs = &snap.args
		snap.msg.Content[st.contentIdx].PartialArgs = &snap.args
	}
	b.send(e)
}

// SetThoughtSignature attaches provider metadata to the tool call with the given id.
func (b *StreamBuilder) SetThoughtSignature(id, sig string) {
	if st := b.byID[id]; st != nil {
		b.msg.Content[st.contentIdx].ThoughtSignature = sig
	}
}

// closeBlocks emits the *_end events of every block in content order and finalises tool calls.
func (b *StreamBuilder) closeBlocks() {
	for i := range b.msg.Content {
		c := &b.msg.Content[i]
		switch c.Type {
		case ContentText:
			e, _ := b.event(EventTextEnd, i)
			e.Content = c.Text
			b.send(e)
		case ContentThinking:
			e, _ := b.event(EventThinkingEnd, i)
			e.Content = c.Thinking
			b.send(e)
		case ContentToolCall:
			b.finaliseToolCall(c)
			tc := *c
			e, _ := b.event(EventToolCallEnd, i)
			e.ToolCall = &tc
			b.send(e)
		}
	}
}

func (b *StreamBuilder) finaliseToolCall(c *Content) {
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
		for i := range b.msg.Content {
			if b.msg.Content[i].Type == ContentToolCall {
				b.finaliseToolCall(&b.msg.Content[i])
			}
		}
	}
	b.done = true
	b.msg.StopReason = reason
	b.msg.ErrorMessage = errMsg
	final := b.final()
	b.send(&AssistantEvent{Type: EventError, Reason: reason, Message: final})
	return final
}

func (b *StreamBuilder) final() *AssistantMessage { return b.snapshot() }

// ParseArguments decodes a tool call's arguments into dst.
func (c *Content) ParseArguments(dst any) error {
	args := c.Arguments
	if len(args) == 0 {
		args = emptyObject
	}
	return json.Unmarshal(args, dst)
}
