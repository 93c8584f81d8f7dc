package provider

import "strings"

// Block-by-block building, for APIs whose streams open and close each content block themselves
// (Anthropic Messages: any number of text and thinking blocks, each with its own signature, ended by
// the server). The methods add to the same message as Text, Thinking and ToolCall; a block closed here
// is not closed again when the stream finishes.

// blockState is the text of one block opened by OpenText or OpenThinking.
type blockState struct {
	// text grows by appending only, so the strings String returned earlier (in partial messages a
	// consumer kept) never change, and no delta copies the text so far.
	text   strings.Builder
	sig    strings.Builder
	closed bool
}

func (b *StreamBuilder) block(i int) *blockState {
	if b.blocks == nil {
		b.blocks = map[int]*blockState{}
	}
	st := b.blocks[i]
	if st == nil {
		st = &blockState{}
		b.blocks[i] = st
	}
	return st
}

// OpenText adds an empty text block and emits text_start; it returns the block's content index.
func (b *StreamBuilder) OpenText() int {
	b.Start()
	i := len(b.msg.Content)
	b.mu.Lock()
	b.msg.Content = append(b.msg.Content, Content{Type: ContentText})
	b.mu.Unlock()
	b.block(i)
	b.send(b.event(EventTextStart, i))
	return i
}

// OpenThinking adds a thinking block and emits thinking_start; it returns the block's content index.
// A redacted block carries its opaque payload as the signature and a placeholder as its text.
func (b *StreamBuilder) OpenThinking(text, signature string, redacted bool) int {
	b.Start()
	i := len(b.msg.Content)
	b.mu.Lock()
	b.msg.Content = append(b.msg.Content, Content{Type: ContentThinking, Thinking: text,
		ThinkingSignature: signature, Redacted: redacted})
	b.mu.Unlock()
	st := b.block(i)
	st.text.WriteString(text)
	st.sig.WriteString(signature)
	b.send(b.event(EventThinkingStart, i))
	return i
}

// AppendText adds delta to the text block at index i and emits text_delta.
func (b *StreamBuilder) AppendText(i int, delta string) {
	st := b.blocks[i]
	if st == nil || b.msg.Content[i].Type != ContentText {
		return
	}
	st.text.WriteString(delta)
	text := st.text.String()
	b.mu.Lock()
	b.msg.Content[i].Text = text
	b.mu.Unlock()
	e := b.event(EventTextDelta, i)
	e.Delta = delta
	b.send(e)
}

// AppendThinking adds delta to the thinking block at index i and emits thinking_delta.
func (b *StreamBuilder) AppendThinking(i int, delta string) {
	st := b.blocks[i]
	if st == nil || b.msg.Content[i].Type != ContentThinking {
		return
	}
	st.text.WriteString(delta)
	text := st.text.String()
	b.mu.Lock()
	b.msg.Content[i].Thinking = text
	b.mu.Unlock()
	e := b.event(EventThinkingDelta, i)
	e.Delta = delta
	b.send(e)
}

// AppendSignature adds to the signature of the thinking block at index i (no event: signatures are
// not shown).
func (b *StreamBuilder) AppendSignature(i int, sig string) {
	st := b.blocks[i]
	if st == nil || b.msg.Content[i].Type != ContentThinking {
		return
	}
	st.sig.WriteString(sig)
	s := st.sig.String()
	b.mu.Lock()
	b.msg.Content[i].ThinkingSignature = s
	b.mu.Unlock()
}

// OpenToolCall adds a tool call with the given stream index, id and name and emits toolcall_start only;
// its arguments arrive through ToolCall with the same index. It returns the block's content index.
func (b *StreamBuilder) OpenToolCall(index int, id, name string) int {
	b.Start()
	st := &toolCallState{contentIdx: len(b.msg.Content)}
	empty := ""
	idx := index
	b.mu.Lock()
	b.msg.Content = append(b.msg.Content, Content{Type: ContentToolCall, ID: id, Name: name, Arguments: emptyObject,
		PartialArgs: &empty, StreamIndex: &idx})
	b.mu.Unlock()
	b.tools = append(b.tools, st)
	if b.byIndex == nil {
		b.byIndex = map[int]*toolCallState{}
	}
	b.byIndex[index] = st
	if id != "" {
		if b.byID == nil {
			b.byID = map[string]*toolCallState{}
		}
		b.byID[id] = st
	}
	b.send(b.event(EventToolCallStart, st.contentIdx))
	return st.contentIdx
}

// CloseBlock emits the end event of the block at content index i (text_end, thinking_end or
// toolcall_end with the finished arguments); a block is closed once.
func (b *StreamBuilder) CloseBlock(i int) {
	if i < 0 || i >= len(b.msg.Content) {
		return
	}
	st := b.block(i)
	if st.closed {
		return
	}
	st.closed = true
	b.closeBlock(i)
}

// closeBlock emits the end event of block i.
func (b *StreamBuilder) closeBlock(i int) {
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

// closed reports whether block i was closed by CloseBlock.
func (b *StreamBuilder) closed(i int) bool {
	st := b.blocks[i]
	return st != nil && st.closed
}

// SetProviderThinkingLevel records the effort an effort-marker model was given.
func (b *StreamBuilder) SetProviderThinkingLevel(level string) {
	b.mu.Lock()
	b.msg.ProviderThinkingLevel = level
	b.mu.Unlock()
}
