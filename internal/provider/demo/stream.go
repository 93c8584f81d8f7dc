package demo

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// sseEvent is one "data: …\n\n" event and the pause before it is sent.
type sseEvent struct {
	data  []byte
	pause time.Duration
}

// Pacing, as multiples of the configured delay. A real model takes a moment before its first token,
// streams reasoning and tool arguments faster than prose, and we read a pause after each sentence.
const (
	firstTokenFactor = 12
	reasoningFactor  = 0.6
	argsFactor       = 0.4
	toolStartFactor  = 3
	sentenceBonus    = 3
	paragraphBonus   = 5
	maxWordBytes     = 24 // longer "words" (paths, URLs) stream in pieces of half that
	argsPieceBytes   = 6
)

// chunkWriter renders OpenAI chat.completion.chunk events for one response.
type chunkWriter struct {
	head         []byte // `data: {"id":…,"object":…,"created":…,"model":…,"system_fingerprint":…,"choices":[`
	includeUsage bool
	buf          []byte // every event's bytes, back to back
	events       []sseEvent
	spans        [][2]int // where each event lies in buf, until finish() slices buf
}

func newChunkWriter(id, model string, created int64, includeUsage bool) *chunkWriter {
	h := []byte(`data: {"id":`)
	h = jsonx.AppendString(h, id)
	h = append(h, `,"object":"chat.completion.chunk","created":`...)
	h = strconv.AppendInt(h, created, 10)
	h = append(h, `,"model":`...)
	h = jsonx.AppendString(h, model)
	h = append(h, `,"system_fingerprint":"fp_pigodemo","choices":[`...)
	return &chunkWriter{head: h, includeUsage: includeUsage}
}

// choice appends one chunk with a single choice whose delta is written by delta; finish is the
// finish_reason ("" for null).
func (w *chunkWriter) choice(pause time.Duration, finish string, delta func([]byte) []byte) {
	start := len(w.buf)
	w.buf = append(w.buf, w.head...)
	w.buf = append(w.buf, `{"index":0,"delta":`...)
	w.buf = delta(w.buf)
	w.buf = append(w.buf, `,"logprobs":null,"finish_reason":`...)
	if finish == "" {
		w.buf = append(w.buf, "null"...)
	} else {
		w.buf = jsonx.AppendString(w.buf, finish)
	}
	w.buf = append(w.buf, '}', ']')
	if w.includeUsage {
		w.buf = append(w.buf, `,"usage":null`...)
	}
	w.buf = append(w.buf, "}\n\n"...)
	w.add(start, pause)
}

func (w *chunkWriter) usage(u usage) {
	start := len(w.buf)
	w.buf = append(w.buf, w.head...)
	w.buf = append(w.buf, `],"usage":{"prompt_tokens":`...)
	w.buf = strconv.AppendInt(w.buf, int64(u.prompt), 10)
	w.buf = append(w.buf, `,"completion_tokens":`...)
	w.buf = strconv.AppendInt(w.buf, int64(u.completion), 10)
	w.buf = append(w.buf, `,"total_tokens":`...)
	w.buf = strconv.AppendInt(w.buf, int64(u.prompt+u.completion), 10)
	w.buf = append(w.buf, `,"prompt_tokens_details":{"cached_tokens":`...)
	w.buf = strconv.AppendInt(w.buf, int64(u.cached), 10)
	w.buf = append(w.buf, `,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":`...)
	w.buf = strconv.AppendInt(w.buf, int64(u.reasoning), 10)
	w.buf = append(w.buf, `,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`+"\n\n"...)
	w.add(start, 0)
}

func (w *chunkWriter) done() {
	start := len(w.buf)
	w.buf = append(w.buf, "data: [DONE]\n\n"...)
	w.add(start, 0)
}

func (w *chunkWriter) add(start int, pause time.Duration) {
	w.spans = append(w.spans, [2]int{start, len(w.buf)})
	w.events = append(w.events, sseEvent{pause: pause})
}

// finish points every event at its bytes (buf no longer grows).
func (w *chunkWriter) finish() []sseEvent {
	for i, s := range w.spans {
		w.events[i].data = w.buf[s[0]:s[1]:s[1]]
	}
	return w.events
}

// renderStream turns a reply into the SSE events an OpenAI endpoint would send for it.
func renderStream(id, model string, created int64, includeUsage bool, r reply, finish string, u usage, delay time.Duration, callIDs []string) []sseEvent {
	w := newChunkWriter(id, model, created, includeUsage)
	args := 0
	for _, c := range r.Calls {
		args += len(c.Args)
	}
	chunks := 4 + (len(r.Thinking)+len(r.Text))/4 + args/argsPieceBytes + 2*len(r.Calls)
	w.buf = make([]byte, 0, chunks*(len(w.head)+96)+len(r.Thinking)+len(r.Text)+args)
	w.events = make([]sseEvent, 0, chunks)
	w.spans = make([][2]int, 0, chunks)
	pace := newPacer(delay)

	// OpenAI opens with the role and an empty content.
	w.choice(pace.first(), "", func(b []byte) []byte {
		return append(b, `{"role":"assistant","content":"","refusal":null}`...)
	})
	for _, piece := range words(r.Thinking) {
		w.choice(pace.word(piece, reasoningFactor), "", func(b []byte) []byte {
			b = append(b, `{"reasoning_content":`...)
			return append(jsonx.AppendString(b, piece), '}')
		})
	}
	if r.Thinking != "" && r.Text != "" {
		pace.paragraph()
	}
	for _, piece := range words(r.Text) {
		w.choice(pace.word(piece, 1), "", func(b []byte) []byte {
			b = append(b, `{"content":`...)
			return append(jsonx.AppendString(b, piece), '}')
		})
	}
	for i, call := range r.Calls {
		w.choice(pace.scaled(toolStartFactor), "", func(b []byte) []byte {
			b = append(b, `{"tool_calls":[{"index":`...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, `,"id":`...)
			b = jsonx.AppendString(b, callIDs[i])
			b = append(b, `,"type":"function","function":{"name":`...)
			b = jsonx.AppendString(b, call.Name)
			return append(b, `,"arguments":""}}]}`...)
		})
		for _, piece := range pieces(call.Args, argsPieceBytes) {
			w.choice(pace.scaled(argsFactor), "", func(b []byte) []byte {
				b = append(b, `{"tool_calls":[{"index":`...)
				b = strconv.AppendInt(b, int64(i), 10)
				b = append(b, `,"function":{"arguments":`...)
				b = jsonx.AppendString(b, piece)
				return append(b, `}}]}`...)
			})
		}
	}
	w.choice(pace.scaled(1), finish, func(b []byte) []byte { return append(b, '{', '}') })
	if includeUsage {
		w.usage(u)
	}
	w.done()
	return w.finish()
}

// pacer spaces the chunks: the delay with a deterministic ±40% wobble, plus a pause after sentences
// and paragraphs, so the text reads like someone typing rather than a metronome.
type pacer struct {
	delay time.Duration
	n     int
	bonus float64 // carried from the previous chunk's ending
}

func newPacer(delay time.Duration) *pacer { return &pacer{delay: delay} }

func (p *pacer) first() time.Duration { return p.delay * firstTokenFactor }

func (p *pacer) scaled(f float64) time.Duration {
	p.n++
	return time.Duration(float64(p.delay) * f)
}

func (p *pacer) paragraph() { p.bonus = paragraphBonus }

func (p *pacer) word(piece string, f float64) time.Duration {
	p.n++
	wobble := 0.6 + 0.1*float64((p.n*7)%9)
	d := time.Duration(float64(p.delay) * (f*wobble + p.bonus))
	p.bonus = 0
	switch last := piece[len(piece)-1]; {
	case last == '\n':
		p.bonus = paragraphBonus * f
	case last == '.' || last == '!' || last == '?' || last == ':':
		p.bonus = sentenceBonus * f
	}
	return d
}

// words cuts text into word-sized chunks as a tokenizer would stream them: leading spaces stay with
// their word, newlines come on their own, long words come in pieces.
func words(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		if s[0] == '\n' {
			for i < len(s) && s[i] == '\n' {
				i++
			}
		} else {
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' {
				i++
			}
		}
		word := s[:i]
		s = s[i:]
		if len(word) > maxWordBytes {
			out = append(out, pieces(word, maxWordBytes/2)...)
		} else {
			out = append(out, word)
		}
	}
	return out
}

// pieces cuts s into parts of at most n bytes without splitting a UTF-8 sequence.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 {
			_, size := utf8.DecodeRuneInString(s)
			cut = size
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// errBodyClosed is what reading a closed body returns, as net/http says it.
var errBodyClosed = errors.New("http: read on closed response body")

// sseBody is a response body that releases its events one by one, each after its pause. It starts no
// goroutine: the pauses happen inside Read, on the reader's goroutine, and end at once when the
// request's context is cancelled (Read then returns the context's error, as net/http does) or the
// body is closed.
type sseBody struct {
	ctx    context.Context
	events []sseEvent
	next   int
	cur    []byte
	timer  *time.Timer
	closed chan struct{}
	once   sync.Once
}

func newSSEBody(ctx context.Context, events []sseEvent) *sseBody {
	return &sseBody{ctx: ctx, events: events, closed: make(chan struct{})}
}

func (b *sseBody) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(b.cur) == 0 {
			if b.next == len(b.events) {
				if n > 0 {
					return n, nil
				}
				return 0, io.EOF
			}
			ev := b.events[b.next]
			if ev.pause > 0 && n > 0 {
				return n, nil // hand over what is ready before waiting
			}
			if err := b.wait(ev.pause); err != nil {
				if n > 0 {
					return n, nil // the error comes with the next Read
				}
				return 0, err
			}
			b.cur = ev.data
			b.next++
		}
		c := copy(p[n:], b.cur)
		b.cur = b.cur[c:]
		n += c
	}
	return n, nil
}

// wait pauses for d, or less if the request is cancelled or the body closed.
func (b *sseBody) wait(d time.Duration) error {
	if d <= 0 {
		select {
		case <-b.closed:
			return errBodyClosed
		case <-b.ctx.Done():
			return b.ctx.Err()
		default:
			return nil
		}
	}
	if b.timer == nil {
		b.timer = time.NewTimer(d)
	} else {
		b.timer.Reset(d)
	}
	select {
	case <-b.timer.C:
		return nil
	case <-b.closed:
		b.timer.Stop()
		return errBodyClosed
	case <-b.ctx.Done():
		b.timer.Stop()
		return b.ctx.Err()
	}
}

// Close ends the stream; a Read waiting on a pause returns at once. It is safe to call concurrently
// with Read and more than once.
func (b *sseBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}
