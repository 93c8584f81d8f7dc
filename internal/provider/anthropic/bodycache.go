package anthropic

import (
	"io"
	"net/http"
	"slices"
	"sync"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
)

// bodyCache keeps the last request's body, so that a session's next request writes only what is new
// at the end of its transcript: converting and escaping the whole transcript again (and copying it
// into a new 40 MB body) made each request of a 5,000-turn session cost a third of a second before
// its first byte was sent.
//
// A message is known by its identity: the transcript holds pointers to messages that are not changed
// once they are in it (an edit, a compaction or a branch switch puts new messages there). Writing
// resumes after a user message, where nothing before it can change what follows: no tool call is
// pending (provider.TransformMessages answers or drops them there) and consecutive tool results, the
// only messages converted together, end there.
//
// The body is written in place into the cached buffer: a request owns the state from Take until its
// body is no longer read (see bodyLease), then gives it back with Keep.
type bodyCache = provider.LastRequest[bodyState]

// bodyKey is everything besides the messages that the messages' bytes depend on.
type bodyKey struct {
	provider, api, id                  string
	images                             bool
	allowEmptySignature, effort, oauth bool
}

// bodyState is one request's body: buf[:head] is `{"model":…,"messages":[`, then come the messages
// (and the effort markers before the answers they belong to), the last one with the cache breakpoint
// when it has one, then the rest of the body.
type bodyState struct {
	key    bodyKey
	in     []provider.Message // the transcript
	buf    []byte
	head   int
	wire   []wireRef   // the messages written, in order
	bounds []bodyBound // where writing can resume, by ascending position
	// msgEnd is where the messages end without the last one's breakpoint; clean holds the last
	// message as written before the breakpoint went in (nil: it has none).
	msgEnd int
	clean  []byte
}

// wireRef is where a written message starts, and what its content is: an answer (no breakpoint), a
// prompt's string (the breakpoint turns it into a text block) or blocks.
type wireRef struct {
	start int
	kind  wireKind
}

type wireKind uint8

const (
	wireAssistant wireKind = iota
	wireUserString
	wireUserBlocks
)

// bodyBound is a point after a user message: the transcript's first in messages became the first
// wire messages, which end at byte end of the buffer.
type bodyBound struct {
	in, wire, end int
}

// writeMessages writes req's transcript into st (nil st: a new buffer) and returns st, keeping what
// st held for the messages before the last resume point the two transcripts share. The buffer then
// ends with the messages, the last one's breakpoint included when cacheControl is not "".
func (st *bodyState) writeMessages(req *provider.Request, key bodyKey, o convertOptions, cacheControl string) *bodyState {
	m := req.Model
	if st == nil || st.key != key {
		st = &bodyState{key: key}
		st.buf = append(st.buf, `{"model":`...)
		st.buf = jsonx.AppendString(st.buf, m.ID)
		st.buf = append(st.buf, `,"messages":[`...)
		st.head = len(st.buf)
		st.msgEnd = st.head
	}
	// Back to the messages as they were written, without the last one's breakpoint.
	if st.clean != nil {
		st.buf = append(st.buf[:st.wire[len(st.wire)-1].start], st.clean...)
		st.clean = nil
	}
	st.buf = st.buf[:st.msgEnd]

	cur := req.Messages
	nb := provider.ResumePoints(st.in, cur, len(st.bounds), func(i int) int { return st.bounds[i].in })
	from := bodyBound{end: st.head}
	if nb > 0 {
		from = st.bounds[nb-1]
	}
	st.in = append(st.in[:from.in], cur[from.in:]...)
	st.bounds = st.bounds[:nb]
	st.wire = st.wire[:from.wire]
	st.buf = st.buf[:from.end]

	var userWire []int // the wire count after each user message of cur[from.in:]
	conv := convertMessages(provider.TransformMessages(cur[from.in:], m, normalizeToolCallID), o,
		func(wire int) { userWire = append(userWire, wire) })

	// Room for the new messages up front, so that a long transcript is not copied into ever larger
	// arrays as it is written (which cost more than writing it).
	need := 0
	for i := range conv.messages {
		need += conv.messages[i].encodedLen() + 1
	}
	need += len(conv.assistantLevels) * 64
	if len(st.buf)+need > cap(st.buf) {
		room := len(st.buf) + need + 4096
		st.buf = append(make([]byte, 0, room+room/8), st.buf...)
	}
	ends := make([]int, len(conv.messages))
	for i := range conv.messages {
		if o.effort {
			if level, ok := conv.assistantLevels[i]; ok {
				st.comma()
				st.buf = appendEffortMarker(st.buf, level)
			}
		}
		st.comma()
		w := &conv.messages[i]
		ref := wireRef{start: len(st.buf), kind: wireUserBlocks}
		switch {
		case w.assistant:
			ref.kind = wireAssistant
		case w.str != nil:
			ref.kind = wireUserString
		}
		st.wire = append(st.wire, ref)
		st.buf = w.appendTo(st.buf)
		ends[i] = len(st.buf)
	}
	// The k-th call of afterUser was for the k-th user message of cur[from.in:].
	users := provider.NewUserCursor(cur, from.in)
	for _, wire := range userWire {
		end := from.end
		if wire > 0 {
			end = ends[wire-1]
		}
		st.bounds = append(st.bounds, bodyBound{in: users.Next(), wire: from.wire + wire, end: end})
	}
	st.msgEnd = len(st.buf)
	if cacheControl != "" && len(st.wire) > 0 {
		st.addBreakpoint(cacheControl)
	}
	return st
}

// comma separates the next message from the one before it.
func (st *bodyState) comma() {
	if len(st.buf) > st.head {
		st.buf = append(st.buf, ',')
	}
}

// addBreakpoint puts the cache breakpoint on the last message's last block when it is a user
// message's, keeping the message as it was in st.clean.
func (st *bodyState) addBreakpoint(cacheControl string) {
	last := st.wire[len(st.wire)-1]
	if last.kind == wireAssistant {
		return
	}
	msg := st.buf[last.start:st.msgEnd]
	st.clean = slices.Clone(msg)
	switch last.kind {
	case wireUserString:
		// {"role":"user","content":"…"} becomes {"role":"user","content":[{"type":"text","text":"…",<cc>}]}:
		// a text block's text is escaped as the string was.
		text := st.clean[len(`{"role":"user","content":`) : len(st.clean)-1]
		st.buf = append(st.buf[:last.start], `{"role":"user","content":[{"type":"text","text":`...)
		st.buf = append(st.buf, text...)
	default:
		// …}]} : the breakpoint goes before the last block's closing brace.
		st.buf = st.buf[:st.msgEnd-len(`}]}`)]
	}
	st.buf = append(st.buf, `,"cache_control":`...)
	st.buf = append(st.buf, cacheControl...)
	st.buf = append(st.buf, `}]}`...)
}

// bodyLease gives a request's body back to the cache once nothing reads it any more: the call is over
// and every reader the HTTP client took of the body is closed. The transport closes a request's
// body when it has written it, which can be after the response arrived (a server may answer before
// reading everything); writing the next body into the array before then would change what is sent.
type bodyLease struct {
	mu      sync.Mutex
	readers int
	ended   bool
	release func()
}

func newBodyLease(release func()) *bodyLease { return &bodyLease{release: release} }

// track is the SDK middleware that counts the readers of the request's body, those made for a
// redirect included.
func (l *bodyLease) track(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = l.open(req.Body)
	}
	if getBody := req.GetBody; getBody != nil {
		req.GetBody = func() (io.ReadCloser, error) {
			rc, err := getBody()
			if err != nil {
				return nil, err
			}
			return l.open(rc), nil
		}
	}
	return next(req)
}

func (l *bodyLease) open(rc io.ReadCloser) io.ReadCloser {
	l.mu.Lock()
	l.readers++
	l.mu.Unlock()
	return &leasedBody{ReadCloser: rc, lease: l}
}

// end says the call is over: no reader is taken after it.
func (l *bodyLease) end() {
	l.mu.Lock()
	l.ended = true
	l.mu.Unlock()
	l.releaseIfDone()
}

func (l *bodyLease) closed() {
	l.mu.Lock()
	l.readers--
	l.mu.Unlock()
	l.releaseIfDone()
}

func (l *bodyLease) releaseIfDone() {
	l.mu.Lock()
	release := l.release
	if !l.ended || l.readers > 0 {
		release = nil
	}
	if release != nil {
		l.release = nil
	}
	l.mu.Unlock()
	if release != nil {
		release()
	}
}

// leasedBody is one reader of a leased body; its first Close counts.
type leasedBody struct {
	io.ReadCloser
	lease *bodyLease
	once  sync.Once
}

func (b *leasedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.lease.closed)
	return err
}
