package google

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"google.golang.org/genai"

	"github.com/pi-go/pi-go/internal/provider"
)

// contentsCache keeps the encoded contents of the last request's transcript, so that a session's
// next request encodes only what is new. They are kept in an unlinked temporary file
// (provider.Spill), not in memory: they are as large as the request body, 45 MB at 5,000 turns.
//
// A message is known by its identity: the transcript holds pointers to messages that are not changed
// once they are in it (an edit, a compaction or a branch switch puts new messages there). Encoding
// resumes after a user message that became a content of its own: no tool call is pending there
// (provider.TransformMessages answers or drops them), and no later tool result joins a content before
// it. Encoded contents are never changed once written, so request bodies read them while later
// requests add theirs.
type contentsCache = provider.LastRequest[contentsState]

// contentsKey is everything besides the messages that the encoding depends on.
type contentsKey struct {
	provider, api, id string
	images            bool
}

// contentsState is one transcript encoded.
type contentsState struct {
	key    contentsKey
	in     []provider.Message    // the transcript
	spill  *provider.Spill       // its contents, encoded, each with the comma before it
	out    []provider.SpillRange // where each content is in spill
	bounds []contentsBound       // where encoding can resume, by ascending position
}

// contentsBound is a point after a user message: the transcript's first in messages became the
// first out contents.
type contentsBound struct{ in, out int }

// encode encodes req's transcript into st (nil st: from scratch, into a new spill made by newSpill)
// and returns st, keeping what st held for the messages before the last resume point the two
// transcripts share.
func (st *contentsState) encode(req *provider.Request, newSpill func() *provider.Spill) (*contentsState, error) {
	m := req.Model
	key := contentsKey{provider: m.Provider, api: m.API, id: m.ID, images: m.SupportsImages()}
	if st == nil || st.key != key {
		st = &contentsState{key: key, spill: newSpill()}
	}
	cur := req.Messages
	nb := provider.ResumePoints(st.in, cur, len(st.bounds), func(i int) int { return st.bounds[i].in })
	from := contentsBound{}
	if nb > 0 {
		from = st.bounds[nb-1]
	}
	st.in = append(st.in[:from.in], cur[from.in:]...)
	st.bounds = st.bounds[:nb]
	var err error
	if st.spill, st.out, err = st.spill.Compact(st.out[:from.out]); err != nil {
		return nil, err
	}
	w := newContentsWriter(m)
	// Closed contents go to the spill at each resume point, so that a resumed session's first request
	// never holds all of them in memory.
	var buf []byte
	spill := func() {
		for _, c := range w.out {
			buf = append(append(buf[:0], ','), c...)
			r, serr := st.spill.Add(buf)
			if serr != nil && err == nil {
				err = serr
			}
			st.out = append(st.out, r)
		}
		w.out = w.out[:0]
	}
	users := provider.NewUserCursor(cur, from.in)
	werr := w.write(provider.TransformMessages(cur[from.in:], m, normalizeID(m)), func(closed bool) {
		next := users.Next() // called for every user message, closed or not
		if closed {
			spill()
			st.bounds = append(st.bounds, contentsBound{in: next, out: len(st.out)})
		}
	})
	if werr != nil {
		return nil, werr
	}
	spill()
	if err != nil {
		return nil, err
	}
	return st, nil
}

// body returns what a request body needs of st: where to read the contents, and their runs there.
func (st *contentsState) body() (*contentsSource, error) {
	src, err := st.spill.Source()
	if err != nil {
		return nil, err
	}
	cs := &contentsSource{src: src, n: len(st.out)}
	for _, r := range st.out {
		if n := len(cs.runs); n > 0 && cs.runs[n-1].End() == r.Off {
			cs.runs[n-1].N += r.N
			continue
		}
		cs.runs = append(cs.runs, r)
	}
	return cs, nil
}

// contentsSource is a request's contents: runs of adjacent ones in src, each content with the comma
// before it (the first one's is not sent).
type contentsSource struct {
	src  io.ReaderAt
	runs []provider.SpillRange
	n    int // contents
}

// The SDK is handed one placeholder content and writes the rest of the body (the configuration,
// the system prompt, the tools) itself; contentsTransport puts the encoded contents in its place.
// Keys are in alphabetical order, so "contents" comes first.
const contentsPlaceholder = "pi-go: the contents go here"

var (
	placeholderContents = []*genai.Content{{Role: "user", Parts: []*genai.Part{{Text: contentsPlaceholder}}}}
	placeholderPrefix   = []byte(`{"contents":[{"parts":[{"text":"` + contentsPlaceholder + `"}],"role":"user"}]`)
)

// contentsTransport sends the SDK's request with the encoded contents in place of the placeholder.
type contentsTransport struct {
	base     http.RoundTripper
	contents *contentsSource
}

var errNoPlaceholder = errors.New("the Gemini SDK's request body does not start with the contents placeholder")

func (t *contentsTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil {
		return t.base.RoundTrip(req)
	}
	sdkBody, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	rest, ok := bytes.CutPrefix(sdkBody, placeholderPrefix)
	if !ok {
		return nil, errNoPlaceholder
	}
	body := newRequestBody(t.contents, rest)
	out := req.Clone(req.Context())
	out.Body = body.reader()
	out.ContentLength = body.size
	out.GetBody = func() (io.ReadCloser, error) { return body.reader(), nil }
	return t.base.RoundTrip(out)
}

// requestBody is `{"contents":[`, the contents separated by commas, `]`, then the rest of the
// SDK's body. The contents are read from where the cache keeps them while the body is sent: a 40 MB
// transcript is neither in memory nor copied into one body.
type requestBody struct {
	contents *contentsSource
	rest     []byte
	size     int64
}

const contentsHead = `{"contents":[`

func newRequestBody(contents *contentsSource, rest []byte) *requestBody {
	b := &requestBody{contents: contents, rest: rest}
	b.size = int64(len(contentsHead) + 1 + len(rest))
	for _, r := range contents.runs {
		b.size += r.N
	}
	if contents.n > 0 {
		b.size-- // the first content's comma
	}
	return b
}

// bytes is the whole body in one slice (for tests).
func (b *requestBody) bytes() ([]byte, error) {
	return io.ReadAll(b.reader())
}

func (b *requestBody) reader() io.ReadCloser { return &bodyReader{b: b, cur: []byte(contentsHead)} }

// bodyReader reads a requestBody: the head, the runs of contents, the closing bracket and the rest.
type bodyReader struct {
	b    *requestBody
	cur  []byte // what is left of the literal piece being read
	run  int    // the next run of contents
	off  int64  // the run being read: its next byte and the bytes left
	left int64
	tail int // 1 once the closing bracket was taken, 2 once the rest was
}

func (r *bodyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case len(r.cur) > 0:
			c := copy(p[n:], r.cur)
			n += c
			r.cur = r.cur[c:]
		case r.left > 0:
			c := int(min(int64(len(p)-n), r.left))
			if _, err := r.b.contents.src.ReadAt(p[n:n+c], r.off); err != nil {
				return n, fmt.Errorf("google: read the request's contents: %w", err)
			}
			r.off += int64(c)
			r.left -= int64(c)
			n += c
		case r.run < len(r.b.contents.runs):
			run := r.b.contents.runs[r.run]
			r.off, r.left = run.Off, run.N
			if r.run == 0 {
				r.off++ // no comma before the first content
				r.left--
			}
			r.run++
		case r.tail == 0:
			r.tail, r.cur = 1, closeBracket
		case r.tail == 1:
			r.tail, r.cur = 2, r.b.rest
		default:
			return n, io.EOF
		}
	}
	return n, nil
}

func (r *bodyReader) Close() error { return nil }

var closeBracket = []byte{']'}
