package google

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"sort"

	"google.golang.org/genai"

	"github.com/pi-go/pi-go/internal/provider"
)

// contentsCache keeps the encoded contents of the last request's transcript, so that a session's
// next request encodes only what is new.
//
// A message is known by its identity: the transcript holds pointers to messages that are not changed
// once they are in it (an edit, a compaction or a branch switch puts new messages there). Encoding
// resumes after a user message that became a content of its own: no tool call is pending there
// (provider.TransformMessages answers or drops them), and no later tool result joins a content before
// it. Encoded contents are never changed once written, so request bodies share them.
type contentsCache = provider.LastRequest[contentsState]

// contentsKey is everything besides the messages that the encoding depends on.
type contentsKey struct {
	provider, api, id string
	images            bool
}

// contentsState is one transcript encoded.
type contentsState struct {
	key    contentsKey
	in     []provider.Message // the transcript
	out    [][]byte           // its contents, encoded
	bounds []contentsBound    // where encoding can resume, by ascending position
}

// contentsBound is a point after a user message: the transcript's first in messages became the
// first out contents.
type contentsBound struct{ in, out int }

// encode encodes req's transcript into st (nil st: from scratch) and returns st, keeping what st
// held for the messages before the last resume point the two transcripts share.
func (st *contentsState) encode(req *provider.Request) (*contentsState, error) {
	m := req.Model
	key := contentsKey{provider: m.Provider, api: m.API, id: m.ID, images: m.SupportsImages()}
	if st == nil || st.key != key {
		st = &contentsState{key: key}
	}
	cur := req.Messages
	k := provider.SharedPrefix(st.in, cur)
	nb := sort.Search(len(st.bounds), func(i int) bool { return st.bounds[i].in > k })
	from := contentsBound{}
	if nb > 0 {
		from = st.bounds[nb-1]
	}
	st.in = append(st.in[:from.in], cur[from.in:]...)
	st.bounds = st.bounds[:nb]
	w := newContentsWriter(m)
	w.out = st.out[:from.out]
	next := from.in // where to look for the next user message of the transcript
	err := w.write(provider.TransformMessages(cur[from.in:], m, normalizeID(m)), func(closed bool) {
		// TransformMessages keeps every user message, in order.
		for next < len(cur) {
			next++
			if _, ok := cur[next-1].(*provider.UserMessage); ok {
				break
			}
		}
		if closed {
			st.bounds = append(st.bounds, contentsBound{in: next, out: len(w.out)})
		}
	})
	if err != nil {
		return nil, err
	}
	st.out = w.out
	return st, nil
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
	contents [][]byte
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
// SDK's body. It is read in place: a 40 MB transcript is not copied into one body.
type requestBody struct {
	contents [][]byte
	rest     []byte
	size     int64
}

const contentsHead = `{"contents":[`

func newRequestBody(contents [][]byte, rest []byte) *requestBody {
	b := &requestBody{contents: contents, rest: rest}
	b.size = int64(len(contentsHead) + max(len(contents)-1, 0) + 1 + len(rest))
	for _, c := range contents {
		b.size += int64(len(c))
	}
	return b
}

// bytes is the whole body in one slice (for tests).
func (b *requestBody) bytes() []byte {
	out := make([]byte, 0, b.size)
	out = append(out, contentsHead...)
	for i, c := range b.contents {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, c...)
	}
	out = append(out, ']')
	return append(out, b.rest...)
}

func (b *requestBody) reader() io.ReadCloser { return &bodyReader{b: b} }

// bodyReader reads a requestBody's pieces one after the other: the head, each content with a comma
// between two, the closing bracket and the rest.
type bodyReader struct {
	b     *requestBody
	piece int    // the next piece to take
	cur   []byte // what is left of the piece being read
}

func (r *bodyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.cur) == 0 {
			next, ok := r.b.piece(r.piece)
			if !ok {
				return n, io.EOF
			}
			r.piece++
			r.cur = next
			continue
		}
		c := copy(p[n:], r.cur)
		n += c
		r.cur = r.cur[c:]
	}
	return n, nil
}

func (r *bodyReader) Close() error { return nil }

// piece is the body's i-th piece, false after the last.
func (b *requestBody) piece(i int) ([]byte, bool) {
	if i == 0 {
		return []byte(contentsHead), true
	}
	i--
	if n := 2*len(b.contents) - 1; n > 0 {
		if i < n {
			if i%2 == 1 {
				return comma, true
			}
			return b.contents[i/2], true
		}
		i -= n
	}
	switch i {
	case 0:
		return closeBracket, true
	case 1:
		return b.rest, true
	}
	return nil, false
}

var (
	comma        = []byte{','}
	closeBracket = []byte{']'}
)
