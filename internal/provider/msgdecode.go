package provider

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// Messages are decoded here, once for the whole program: session loading, events and message lists
// all come through UnmarshalMessage (or a MessageDecoder). The messages pi writes (user, assistant and
// tool-result messages in their usual shape) are read in a single pass over the text with
// jsonx.Scanner; anything else (other roles, unusual key order, duplicate keys, values of another type,
// malformed text) goes through encoding/json (unmarshalMessage), and the single pass gives up rather
// than decide otherwise: the result is always what unmarshalMessage returns. The single pass exists
// because resuming a session decodes every message of its branch.

// UnmarshalMessage decodes one message of any role. A role pi-go does not know becomes *OpaqueMessage.
func UnmarshalMessage(data []byte) (Message, error) {
	d := MessageDecoder{single: true}
	return d.Decode(data)
}

// A MessageDecoder decodes messages one after another, reusing its buffers. Its zero value is ready to
// use; it is used by one goroutine at a time.
type MessageDecoder struct {
	s      jsonx.Scanner
	blocks []Content         // content blocks being decoded, copied out at their exact number
	names  map[string]string // api, provider, model, stop reason and tool name strings already made
	single bool              // UnmarshalMessage's: one message, so nothing is worth keeping for the next
}

// name is the value of a string field that repeats from message to message (an api, a provider, a
// model, a stop reason, a tool name): one string for all the messages a decoder reads that hold it.
func (d *MessageDecoder) name(s *jsonx.Scanner) string {
	if d.single || s.Peek() != '"' {
		return decodeString(s)
	}
	raw := s.Str()
	if len(raw) > maxNameLen {
		return string(raw)
	}
	if v, ok := d.names[string(raw)]; ok {
		return v
	}
	v := string(raw)
	if d.names == nil {
		d.names = map[string]string{}
	}
	if len(d.names) < maxNames {
		d.names[v] = v
	}
	return v
}

// A name longer than maxNameLen is not shared, and a decoder shares at most maxNames of them.
const (
	maxNameLen = 64
	maxNames   = 256
)

// Decode decodes one message as UnmarshalMessage does.
func (d *MessageDecoder) Decode(data []byte) (Message, error) {
	if m := d.decodeFast(data); m != nil {
		return m, nil
	}
	return unmarshalMessage(data)
}

// errNotFast abandons the single pass for encoding/json.
var errNotFast = errors.New("message: not in the shape of the single pass")

// The keys unmarshalMessage takes for each role after "role", with a bit each to refuse duplicates.
var (
	userKeys      = keyBits("content", "timestamp")
	assistantKeys = keyBits("content", "timestamp", "api", "provider", "model", "usage", "stopReason", "responseId", "errorMessage",
		"responseModel", "rawStopReason", "durationMs", "thinkingLevel", "providerThinkingLevel")
	toolResultKeys = keyBits("content", "timestamp", "toolCallId", "toolName", "details", "isError", "usage", "durationMs")
)

func keyBits(keys ...string) map[string]uint32 {
	m := make(map[string]uint32, len(keys))
	for i, k := range keys {
		m[k] = 1 << i
	}
	return m
}

// decodeFast decodes a user, assistant or tool-result message whose first key is "role", reading
// each known key once (a null one is absent, as in unmarshalMessage) and keeping the others in Extra
// verbatim; nil when the message is not of that shape.
func (d *MessageDecoder) decodeFast(data []byte) Message {
	s := &d.s
	s.Reset(data)
	if s.Peek() != '{' {
		return nil
	}
	var (
		m     Message
		known map[string]uint32
		seen  uint32
		extra *map[string]json.RawMessage
		field func(key string)
	)
	s.Object(func(key []byte) {
		if m == nil {
			if string(key) != "role" || s.Peek() != '"' {
				s.Fail(errNotFast)
				return
			}
			switch string(s.Str()) {
			case RoleUser:
				um := &UserMessage{}
				m, known, extra = um, userKeys, &um.Extra
				field = func(key string) {
					switch key {
					case "content":
						um.Content, um.ContentIsString = d.content(s)
					case "timestamp":
						um.Timestamp = decodeInt64(s)
					}
				}
			case RoleAssistant:
				am := &AssistantMessage{}
				m, known, extra = am, assistantKeys, &am.Extra
				field = func(key string) {
					switch key {
					case "content":
						if s.Peek() == '"' {
							s.Fail(errNotFast) // unmarshalMessage refuses string content for assistants
							return
						}
						am.Content, _ = d.content(s)
					case "timestamp":
						am.Timestamp = decodeInt64(s)
					case "api":
						am.API = d.name(s)
					case "provider":
						am.Provider = d.name(s)
					case "model":
						am.Model = d.name(s)
					case "usage":
						if !DecodeUsage(s, &am.Usage) {
							s.Fail(errNotFast)
						}
					case "stopReason":
						am.StopReason = StopReason(d.name(s))
					case "responseId":
						am.ResponseID = decodeString(s)
					case "errorMessage":
						am.ErrorMessage = decodeString(s)
					case "responseModel":
						am.ResponseModel = decodeString(s)
					case "rawStopReason":
						am.RawStopReason = decodeString(s)
					case "durationMs":
						am.DurationMs = decodeIntPtr(s)
					case "thinkingLevel":
						am.ThinkingLevel = ThinkingLevel(decodeString(s))
					case "providerThinkingLevel":
						am.ProviderThinkingLevel = decodeString(s)
					}
				}
			case RoleToolResult:
				tm := &ToolResultMessage{}
				m, known, extra = tm, toolResultKeys, &tm.Extra
				field = func(key string) {
					switch key {
					case "content":
						tm.Content, _ = d.content(s)
					case "timestamp":
						tm.Timestamp = decodeInt64(s)
					case "toolCallId":
						tm.ToolCallID = decodeString(s)
					case "toolName":
						tm.ToolName = d.name(s)
					case "details":
						tm.Details = decodeAny(s)
					case "isError":
						tm.IsError = decodeBool(s)
					case "usage":
						tm.Usage = &Usage{}
						if !DecodeUsage(s, tm.Usage) {
							s.Fail(errNotFast)
						}
					case "durationMs":
						tm.DurationMs = decodeIntPtr(s)
					}
				}
			default:
				s.Fail(errNotFast)
			}
			return
		}
		bit, ok := known[string(key)]
		switch {
		case string(key) == "role" || seen&bit != 0:
			s.Fail(errNotFast)
		case ok && s.Peek() == 'n':
			seen |= bit
			s.Skip()
		case ok:
			seen |= bit
			field(string(key))
		case !addExtra(extra, string(key), s.Raw()):
			s.Fail(errNotFast)
		}
	})
	s.End()
	if s.Err() != nil || m == nil {
		return nil
	}
	if am, ok := m.(*AssistantMessage); ok && am.Content == nil {
		am.Content = []Content{}
	}
	return m
}

// addExtra keeps a key the decoder does not know with its value verbatim; false for a repeated key.
func addExtra(extra *map[string]json.RawMessage, key string, raw []byte) bool {
	if *extra == nil {
		*extra = make(map[string]json.RawMessage)
	}
	if _, dup := (*extra)[key]; dup {
		return false
	}
	(*extra)[key] = append(json.RawMessage(nil), raw...)
	return true
}

// The decodeX functions read a value of their type, and give up the single pass for any other.

func decodeString(s *jsonx.Scanner) string {
	if s.Peek() != '"' {
		s.Fail(errNotFast)
		return ""
	}
	return string(s.Str())
}

func decodeBool(s *jsonx.Scanner) bool {
	c := s.Peek()
	if c != 't' && c != 'f' {
		s.Fail(errNotFast)
		return false
	}
	s.Skip()
	return c == 't'
}

// decodeInt64 reads a plain integer, the only number encoding/json decodes into an int64.
func decodeInt64(s *jsonx.Scanner) int64 {
	if c := s.Peek(); c != '-' && (c < '0' || c > '9') {
		s.Fail(errNotFast)
		return 0
	}
	n, err := strconv.ParseInt(string(s.Raw()), 10, 64)
	if err != nil {
		s.Fail(errNotFast)
	}
	return n
}

// decodeIntPtr reads a number as unmarshalMessage's takeInt does (a float cut to an integer).
func decodeIntPtr(s *jsonx.Scanner) *int64 {
	n := int64(decodeFloat(s))
	return &n
}

func decodeFloat(s *jsonx.Scanner) float64 {
	if c := s.Peek(); c != '-' && (c < '0' || c > '9') {
		s.Fail(errNotFast)
		return 0
	}
	f, err := strconv.ParseFloat(string(s.Raw()), 64)
	if err != nil {
		s.Fail(errNotFast)
	}
	return f
}

// decodeAny decodes an arbitrary value as encoding/json does into an interface (rare, small values).
func decodeAny(s *jsonx.Scanner) any {
	raw := s.Raw()
	var v any
	if s.Err() == nil && json.Unmarshal(raw, &v) != nil {
		s.Fail(errNotFast)
	}
	return v
}

// DecodeUsage reads the usage object at s's position into u when it has the shape pi writes (its key
// names, integer token counts, numeric costs, nulls) and reports true. Otherwise it reports false and
// still consumes the value, checking it, so that the caller can hand it to encoding/json.
func DecodeUsage(s *jsonx.Scanner, u *Usage) bool {
	plain := true
	sawCost := false
	ok := s.Object(func(key []byte) {
		var dst *int
		var bit UsageKeys
		switch string(key) {
		case "input":
			dst = &u.Input
		case "output":
			dst = &u.Output
		case "cacheRead":
			dst = &u.CacheRead
		case "cacheWrite":
			dst = &u.CacheWrite
		case "totalTokens":
			dst = &u.TotalTokens
		case "cacheWrite1h":
			dst, bit = &u.CacheWrite1h, UsageCacheWrite1h
		case "reasoning":
			// Where the key is says which provider wrote it (Usage.UnmarshalJSON).
			dst, bit = &u.Reasoning, UsageReasoning
			if sawCost {
				bit = UsageReasoningLast
			}
		case "cost":
			sawCost = true
			if s.Peek() == 'n' {
				s.Skip()
			} else if !decodeCost(s, &u.Cost, &u.Keys) {
				plain = false
			}
			return
		default:
			plain = false
			s.Skip()
			return
		}
		switch c := s.Peek(); {
		case c == 'n':
			s.Skip()
		case c == '-' || (c >= '0' && c <= '9'):
			// Only a plain integer decodes into an int.
			n, err := strconv.ParseInt(string(s.Raw()), 10, 64)
			*dst, plain = int(n), plain && err == nil
			u.Keys |= bit
		default:
			plain = false
			s.Skip()
		}
	})
	return ok && plain
}

// decodeCost is DecodeUsage for the cost object; keys records totalFromProvider.
func decodeCost(s *jsonx.Scanner, c *Cost, keys *UsageKeys) bool {
	plain := true
	ok := s.Object(func(key []byte) {
		var dst *float64
		switch string(key) {
		case "totalFromProvider":
			switch s.Peek() {
			case 'n':
				s.Skip()
			case 't', 'f':
				c.TotalFromProvider = decodeBool(s)
				*keys |= UsageTotalFromProvider
			default:
				plain = false
				s.Skip()
			}
			return
		case "input":
			dst = &c.Input
		case "output":
			dst = &c.Output
		case "cacheRead":
			dst = &c.CacheRead
		case "cacheWrite":
			dst = &c.CacheWrite
		case "total":
			dst = &c.Total
		default:
			plain = false
			s.Skip()
			return
		}
		switch c := s.Peek(); {
		case c == 'n':
			s.Skip()
		case c == '-' || (c >= '0' && c <= '9'):
			f, err := strconv.ParseFloat(string(s.Raw()), 64)
			*dst, plain = f, plain && err == nil
		default:
			plain = false
			s.Skip()
		}
	})
	return ok && plain
}

// decodeContent reads a content value: a string (one text block, isString) or an array of blocks.
func decodeContent(s *jsonx.Scanner) (content []Content, isString bool) {
	switch s.Peek() {
	case '"':
		return []Content{TextContent(string(s.Str()))}, true
	case '[':
	default:
		s.Fail(errNotFast)
		return nil, false
	}
	out := []Content{}
	s.Array(func(int) {
		var c Content
		decodeBlock(s, &c)
		out = append(out, c)
	})
	return out, false
}

// content decodes a content value, through the decoder's scratch blocks unless it decodes one message.
func (d *MessageDecoder) content(s *jsonx.Scanner) ([]Content, bool) {
	if d.single {
		return decodeContent(s)
	}
	return decodeContentInto(s, &d.blocks)
}

// decodeContentInto is decodeContent decoding the blocks of an array into *scratch (kept for the
// next call) and returning a copy of exactly their number: a long session holds thousands of
// messages, and appending block by block leaves most of their slices with unused room.
func decodeContentInto(s *jsonx.Scanner, scratch *[]Content) (content []Content, isString bool) {
	if s.Peek() != '[' {
		return decodeContent(s)
	}
	blocks := (*scratch)[:0]
	s.Array(func(int) {
		blocks = append(blocks, Content{})
		decodeBlock(s, &blocks[len(blocks)-1])
	})
	content = make([]Content, len(blocks))
	copy(content, blocks)
	clear(blocks) // the scratch must not keep the blocks' strings alive
	*scratch = blocks[:0]
	return content, false
}

// UnmarshalContent decodes a content value as messages hold it: a string (one text block, isString),
// an array of blocks, or null (none).
func UnmarshalContent(data []byte) (content []Content, isString bool, err error) {
	var s jsonx.Scanner
	s.Reset(data)
	content, isString = decodeContent(&s)
	if s.End(); s.Err() == nil {
		return content, isString, nil
	}
	content = nil
	err = json.Unmarshal(data, &content)
	return content, false, err
}

// decodeBlock decodes one content block whose first key is "type" and whose type pi-go knows (or that
// has no other key).
func decodeBlock(s *jsonx.Scanner, c *Content) {
	var seen uint8
	typed, hasArgs := false, false
	s.Object(func(key []byte) {
		if !typed {
			if string(key) != "type" || s.Peek() != '"' {
				s.Fail(errNotFast)
				return
			}
			c.Type, typed = string(s.Str()), true
			return
		}
		k := string(key)
		var dst *string
		var bit uint8
		switch {
		case c.Type == ContentText && k == "text":
			dst, bit = &c.Text, 1
		case c.Type == ContentText && k == "textSignature":
			dst, bit = &c.TextSignature, 2
		case c.Type == ContentThinking && k == "thinking":
			dst, bit = &c.Thinking, 1
		case c.Type == ContentThinking && k == "thinkingSignature":
			dst, bit = &c.ThinkingSignature, 2
		case c.Type == ContentThinking && k == "redacted":
			bit = 4
		case c.Type == ContentImage && k == "data":
			dst, bit = &c.Data, 1
		case c.Type == ContentImage && k == "mimeType":
			dst, bit = &c.MimeType, 2
		case c.Type == ContentToolCall && k == "id":
			dst, bit = &c.ID, 1
		case c.Type == ContentToolCall && k == "name":
			dst, bit = &c.Name, 2
		case c.Type == ContentToolCall && k == "thoughtSignature":
			dst, bit = &c.ThoughtSignature, 4
		case c.Type == ContentToolCall && k == "arguments":
			bit = 8
		case k == "type", k == "partialArgs" || k == "streamIndex", // streaming bookkeeping; never stored
			c.Type != ContentText && c.Type != ContentThinking && c.Type != ContentImage && c.Type != ContentToolCall:
			s.Fail(errNotFast)
			return
		}
		if bit != 0 {
			if seen&bit != 0 {
				s.Fail(errNotFast)
				return
			}
			seen |= bit
		}
		switch {
		case dst != nil:
			if s.Peek() == 'n' {
				s.Skip()
			} else {
				*dst = decodeString(s)
			}
		case bit == 4 && c.Type == ContentThinking:
			if s.Peek() == 'n' {
				s.Skip()
			} else {
				c.Redacted = decodeBool(s)
			}
		case bit == 8:
			hasArgs = true
			if v := s.Raw(); string(v) == "null" {
				c.Arguments = json.RawMessage("{}")
			} else {
				c.Arguments = append(json.RawMessage(nil), v...)
			}
		default:
			if !addExtra(&c.Extra, k, s.Raw()) {
				s.Fail(errNotFast)
			}
		}
	})
	if !typed {
		s.Fail(errNotFast) // not an object, or an empty one
	}
	if c.Type == ContentToolCall && !hasArgs {
		c.Arguments = json.RawMessage("{}")
	}
}
