package provider

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// StreamEncoder writes the assistant messages of a stream (and the events that carry them) as JSON,
// byte for byte as their MarshalJSON methods do, while remembering what it wrote. pi's JSON event
// stream repeats the whole partial message in every delta event, so a long answer would otherwise be
// re-escaped and copied through several buffers for every character it grows by; here the growing
// block's text is escaped once (only its new part per event) and each event is assembled by copying.
//
// A StreamEncoder is used by one goroutine at a time. Its zero value is ready to use.
type StreamEncoder struct {
	blocks []blockCache
	tail   tailCache
}

// blockCache remembers the JSON of one content block position: the escaped form of its long strings
// and of its arguments.
type blockCache struct {
	main growingString // text, thinking, or a tool call's partialArgs
	args rawCache      // a tool call's arguments
}

// growingString is the escaped JSON form (without quotes) of src[:cut]. A later string that starts with
// the same bytes reuses it and escapes only what follows.
type growingString struct {
	src string
	cut int
	esc []byte
}

// appendQuoted appends s as jsonx.AppendString writes it.
func (g *growingString) appendQuoted(dst []byte, s string) []byte {
	if len(s) < 64 {
		return jsonx.AppendString(dst, s)
	}
	if !g.extends(s) {
		g.esc, g.cut = g.esc[:0], 0
	}
	// Escape up to the last rune boundary that no later text can change: an incomplete UTF-8
	// sequence at the end may still be completed by the next delta.
	cut := stableCut(s)
	if cut > g.cut {
		g.esc = jsonx.AppendEscaped(g.esc, s[g.cut:cut])
		g.cut = cut
	}
	g.src = s
	dst = append(dst, '"')
	dst = append(dst, g.esc...)
	dst = jsonx.AppendEscaped(dst, s[g.cut:])
	return append(dst, '"')
}

// extends reports whether s begins with the bytes already escaped. Strings are immutable, so one that
// starts at the same address as the remembered one shares its bytes; otherwise (a builder that grew
// into a new array, another message) the bytes are compared.
func (g *growingString) extends(s string) bool {
	if g.cut == 0 || len(s) < g.cut {
		return false
	}
	if unsafe.StringData(s) == unsafe.StringData(g.src) {
		return true
	}
	return s[:g.cut] == g.src[:g.cut]
}

// stableCut is the end of the last complete rune of s, or len(s): escaping s[:cut] gives the same
// bytes as the start of escaping any longer string that begins with s.
func stableCut(s string) int {
	n := len(s)
	for i := n - 1; i >= 0 && i >= n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if utf8.FullRuneInString(s[i:]) {
				return n
			}
			return i
		}
	}
	return n
}

// rawCache remembers the compacted form of a tool call's arguments.
type rawCache struct {
	src     json.RawMessage
	compact []byte
	err     error
}

func (r *rawCache) append(dst []byte, args json.RawMessage) ([]byte, error) {
	if len(args) != len(r.src) || len(args) == 0 || unsafe.SliceData(args) != unsafe.SliceData(r.src) {
		r.src = args
		r.compact = r.compact[:0]
		trimmed := bytes.TrimSpace(args)
		if len(trimmed) == 0 {
			r.compact, r.err = append(r.compact, "{}"...), nil
		} else {
			b := bytes.NewBuffer(r.compact)
			r.err = json.Compact(b, trimmed)
			r.compact = b.Bytes()
		}
	}
	return append(dst, r.compact...), r.err
}

// tailCache remembers the encoding of an assistant message's fields after content.
type tailCache struct {
	valid                                                bool
	api, provider, model, stop, responseID, errorMessage string
	timestamp                                            int64
	usage                                                Usage
	extra                                                map[string]json.RawMessage
	enc                                                  []byte
}

func (t *tailCache) matches(m *AssistantMessage) bool {
	if !t.valid || t.api != m.API || t.provider != m.Provider || t.model != m.Model || t.stop != string(m.StopReason) ||
		t.responseID != m.ResponseID || t.errorMessage != m.ErrorMessage || t.timestamp != m.Timestamp || t.usage != m.Usage ||
		len(t.extra) != len(m.Extra) {
		return false
	}
	for k, v := range m.Extra {
		if w, ok := t.extra[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func (t *tailCache) append(dst []byte, m *AssistantMessage) ([]byte, error) {
	if !t.matches(m) {
		var b bytes.Buffer
		w := &objWriter{b: &b}
		w.str("api", m.API)
		w.str("provider", m.Provider)
		w.str("model", m.Model)
		w.key("usage")
		b.Write(m.Usage.appendJSON(nil))
		w.str("stopReason", string(m.StopReason))
		w.int("timestamp", m.Timestamp)
		w.strOpt("responseId", m.ResponseID)
		w.strOpt("errorMessage", m.ErrorMessage)
		if err := writeExtra(&b, m.Extra); err != nil {
			t.valid = false
			return dst, err
		}
		*t = tailCache{valid: true, api: m.API, provider: m.Provider, model: m.Model, stop: string(m.StopReason),
			responseID: m.ResponseID, errorMessage: m.ErrorMessage, timestamp: m.Timestamp, usage: m.Usage,
			extra: m.Extra, enc: append(t.enc[:0], b.Bytes()...)}
	}
	return append(dst, t.enc...), nil
}

// AppendAssistant appends m's JSON, exactly as m.MarshalJSON writes it.
func (e *StreamEncoder) AppendAssistant(dst []byte, m *AssistantMessage) ([]byte, error) {
	dst = append(dst, `{"role":"assistant","content":[`...)
	if len(e.blocks) < len(m.Content) {
		e.blocks = append(e.blocks, make([]blockCache, len(m.Content)-len(e.blocks))...)
	}
	for i := range m.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = e.blocks[i].appendBlock(dst, &m.Content[i]); err != nil {
			return dst, err
		}
	}
	dst = append(dst, ']')
	dst, err := e.tail.append(dst, m)
	if err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// appendBlock appends c as c.MarshalJSON writes it, the long strings through the cache.
func (bc *blockCache) appendBlock(dst []byte, c *Content) ([]byte, error) {
	if len(c.Extra) > 0 || (c.Type != ContentText && c.Type != ContentThinking && c.Type != ContentToolCall) {
		data, err := c.MarshalJSON()
		return append(dst, data...), err
	}
	dst = append(dst, `{"type":`...)
	dst = jsonx.AppendString(dst, c.Type)
	switch c.Type {
	case ContentText:
		dst = append(dst, `,"text":`...)
		dst = bc.main.appendQuoted(dst, c.Text)
		if c.TextSignature != "" {
			dst = append(dst, `,"textSignature":`...)
			dst = jsonx.AppendString(dst, c.TextSignature)
		}
	case ContentThinking:
		dst = append(dst, `,"thinking":`...)
		dst = bc.main.appendQuoted(dst, c.Thinking)
		if c.ThinkingSignature != "" {
			dst = append(dst, `,"thinkingSignature":`...)
			dst = jsonx.AppendString(dst, c.ThinkingSignature)
		}
		if c.Redacted {
			dst = append(dst, `,"redacted":true`...)
		}
	case ContentToolCall:
		dst = append(dst, `,"id":`...)
		dst = jsonx.AppendString(dst, c.ID)
		dst = append(dst, `,"name":`...)
		dst = jsonx.AppendString(dst, c.Name)
		dst = append(dst, `,"arguments":`...)
		var err error
		if dst, err = bc.args.append(dst, c.Arguments); err != nil {
			return dst, err
		}
		if c.ThoughtSignature != "" {
			dst = append(dst, `,"thoughtSignature":`...)
			dst = jsonx.AppendString(dst, c.ThoughtSignature)
		}
		if c.PartialArgs != nil {
			dst = append(dst, `,"partialArgs":`...)
			dst = bc.main.appendQuoted(dst, *c.PartialArgs)
		}
		if c.StreamIndex != nil {
			dst = append(dst, `,"streamIndex":`...)
			dst = strconv.AppendInt(dst, int64(*c.StreamIndex), 10)
		}
	}
	return append(dst, '}'), nil
}

// AppendEvent appends ev's JSON, exactly as ev.MarshalJSON writes it, its messages through the cache.
func (e *StreamEncoder) AppendEvent(dst []byte, ev *AssistantEvent) ([]byte, error) {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, ev.Type...)
	dst = append(dst, '"')
	msg := func(key string, m *AssistantMessage) error {
		dst = append(dst, `,"`...)
		dst = append(dst, key...)
		dst = append(dst, `":`...)
		if m == nil {
			dst = append(dst, "null"...)
			return nil
		}
		var err error
		dst, err = e.AppendAssistant(dst, m)
		return err
	}
	var err error
	switch ev.Type {
	case EventDone:
		dst = append(dst, `,"reason":`...)
		dst = jsonx.AppendString(dst, string(ev.Reason))
		err = msg("message", ev.Message)
	case EventError:
		dst = append(dst, `,"reason":`...)
		dst = jsonx.AppendString(dst, string(ev.Reason))
		err = msg("error", ev.Message)
	case EventStart:
		err = msg("partial", ev.Partial)
	default:
		dst = append(dst, `,"contentIndex":`...)
		dst = strconv.AppendInt(dst, int64(ev.ContentIndex), 10)
		switch ev.Type {
		case EventTextDelta, EventThinkingDelta, EventToolCallDelta:
			dst = append(dst, `,"delta":`...)
			dst = jsonx.AppendString(dst, ev.Delta)
		case EventTextEnd, EventThinkingEnd:
			dst = append(dst, `,"content":`...)
			dst = jsonx.AppendString(dst, ev.Content)
		case EventToolCallEnd:
			dst = append(dst, `,"toolCall":`...)
			if ev.ToolCall == nil {
				dst = append(dst, "null"...)
			} else {
				data, merr := ev.ToolCall.MarshalJSON()
				if merr != nil {
					return dst, merr
				}
				dst = append(dst, data...)
			}
		}
		err = msg("partial", ev.Partial)
	}
	if err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}
