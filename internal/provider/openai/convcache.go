package openai

import "github.com/pi-go/pi-go/internal/provider"

// convCache keeps the converted form of the last request's transcript, with the size of each chat
// message as the body writes it, so that a session's next request converts and sizes only what is
// new: a session's transcript grows at its end, and converting the whole of it again (and measuring
// its escaped strings) made every request of a 5,000-turn session cost tens of milliseconds before
// its first byte was sent.
//
// A message is known by its identity: the transcript holds pointers to messages that are not
// changed once they are in it (an edit, a compaction or a branch switch puts new messages there).
// Conversion resumes after a user message, where nothing before it can change what follows: no
// tool call is pending (provider.TransformMessages answers or drops them there) and the converter's
// only state is the last role it wrote.
type convCache = provider.LastRequest[convState]

// convKey is everything besides the messages that the conversion depends on.
type convKey struct {
	provider, api, id                  string
	reasoning, images                  bool
	toolResultName, assistantAfterTool bool
	thinkingAsText, reasoningContent   bool
	cacheControl                       bool
}

func keyOf(m *provider.Model, c *compat) convKey {
	return convKey{provider: m.Provider, api: m.API, id: m.ID, reasoning: m.Reasoning, images: m.SupportsImages(),
		toolResultName: c.requiresToolResultName, assistantAfterTool: c.requiresAssistantAfterToolResult,
		thinkingAsText: c.requiresThinkingAsText, reasoningContent: c.requiresReasoningContentOnAssistant,
		cacheControl: c.anthropicCacheControl}
}

// convState is one transcript converted: its chat messages are written in spill, as the body sends
// them, and only where each one is stays in memory.
type convState struct {
	key    convKey
	in     []provider.Message // the transcript
	spill  *provider.Spill
	msgs   []provider.SpillRange // its chat messages (the system prompt not included), each with the comma before it
	wire   []wireMessage         // the same as structs, kept only for compat.anthropicCacheControl, which marks the last text of the body per request
	bounds []convBound           // where conversion can resume, by ascending position
}

// convBound is a point after a user message: the transcript's first in messages became the first
// wire chat messages, the last of them of role lastRole.
type convBound struct {
	in, wire int
	lastRole string
}

// convert converts req's transcript into st (nil st: from scratch, into a new spill made by
// newSpill) and returns st, reusing what st held for the messages before the last resume point the
// two transcripts share.
func (st *convState) convert(req *provider.Request, c *compat, newSpill func() *provider.Spill) (*convState, error) {
	m := req.Model
	key := keyOf(m, c)
	if st == nil || st.key != key {
		st = &convState{key: key, spill: newSpill()}
	}
	cur := req.Messages
	nb := provider.ResumePoints(st.in, cur, len(st.bounds), func(i int) int { return st.bounds[i].in })
	from := convBound{}
	if nb > 0 {
		from = st.bounds[nb-1]
	}
	st.in = append(st.in[:from.in], cur[from.in:]...)
	st.bounds = st.bounds[:nb]
	st.msgs = st.msgs[:from.wire]
	keepWire := c.anthropicCacheControl
	if keepWire {
		st.wire = st.wire[:from.wire]
	} else {
		st.wire = nil
	}
	var err error
	if st.spill, st.msgs, err = st.spill.Compact(st.msgs); err != nil {
		return nil, err
	}

	// The chat messages are written to the spill after each user message, so that a resumed
	// session's first request never holds all of them as structs.
	cv := converter{m: m, c: c, lastRole: from.lastRole}
	var w jsonWriter
	write := func() {
		for i := range cv.out {
			w.reset()
			w.b = append(w.b, ',')
			w.message(&cv.out[i])
			r, aerr := st.spill.Add(w.b)
			if aerr != nil && err == nil {
				err = aerr
			}
			st.msgs = append(st.msgs, r)
		}
		if keepWire {
			st.wire = append(st.wire, cv.out...)
		}
		cv.out = cv.out[:0]
	}
	users := provider.NewUserCursor(cur, from.in)
	cv.run(provider.TransformMessages(cur[from.in:], m, normalizeToolCallID(m)), func() {
		write()
		st.bounds = append(st.bounds, convBound{in: users.Next(), wire: len(st.msgs), lastRole: cv.lastRole})
	})
	write()
	if err != nil {
		return nil, err
	}
	return st, nil
}
