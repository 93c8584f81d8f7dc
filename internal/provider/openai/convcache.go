package openai

import (
	"sort"

	"github.com/pi-go/pi-go/internal/provider"
)

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
}

func keyOf(m *provider.Model, c *compat) convKey {
	return convKey{provider: m.Provider, api: m.API, id: m.ID, reasoning: m.Reasoning, images: m.SupportsImages(),
		toolResultName: c.requiresToolResultName, assistantAfterTool: c.requiresAssistantAfterToolResult,
		thinkingAsText: c.requiresThinkingAsText, reasoningContent: c.requiresReasoningContentOnAssistant}
}

// convState is one transcript converted. Request bodies never share its slices: they get copies.
type convState struct {
	key    convKey
	in     []provider.Message // the transcript
	wire   []wireMessage      // its chat messages (the system prompt not included)
	sizes  []int64            // the length of each as the body writes it
	bounds []convBound        // where conversion can resume, by ascending position
}

// convBound is a point after a user message: the transcript's first in messages became the first
// wire chat messages, the last of them of role lastRole.
type convBound struct {
	in, wire int
	lastRole string
}

// convert converts req's transcript into st (nil st: from scratch) and returns st, reusing what
// st held for the messages before the last resume point the two transcripts share.
func (st *convState) convert(req *provider.Request, c *compat) *convState {
	m := req.Model
	key := keyOf(m, c)
	if st == nil || st.key != key {
		st = &convState{key: key}
	}
	cur := req.Messages
	k := provider.SharedPrefix(st.in, cur)
	// The last resume point within the shared part.
	nb := sort.Search(len(st.bounds), func(i int) bool { return st.bounds[i].in > k })
	from := convBound{}
	if nb > 0 {
		from = st.bounds[nb-1]
	}
	st.in = append(st.in[:from.in], cur[from.in:]...)
	st.bounds = st.bounds[:nb]
	// About one chat message a transcript message: room for them all, so that a resumed session's
	// first request does not grow the lists (and leave their old arrays as garbage) many times.
	if room := from.wire + len(cur) - from.in + 16; cap(st.wire) < room {
		room += room / 8
		st.wire = append(make([]wireMessage, 0, room), st.wire[:from.wire]...)
		st.sizes = append(make([]int64, 0, room), st.sizes[:from.wire]...)
	}
	st.sizes = st.sizes[:from.wire]

	cv := converter{m: m, c: c, out: st.wire[:from.wire], lastRole: from.lastRole}
	next := from.in // where to look for the next user message of the transcript
	cv.run(provider.TransformMessages(cur[from.in:], m, normalizeToolCallID(m)), func() {
		// TransformMessages keeps every user message, in order.
		for next < len(cur) {
			next++
			if _, ok := cur[next-1].(*provider.UserMessage); ok {
				break
			}
		}
		st.bounds = append(st.bounds, convBound{in: next, wire: len(cv.out), lastRole: cv.lastRole})
	})
	st.wire = cv.out
	for range len(st.wire) - len(st.sizes) {
		st.sizes = append(st.sizes, -1)
	}
	sizeMessages(st.wire, st.sizes)
	return st
}
