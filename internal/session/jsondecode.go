package session

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/pi-go/pi-go/internal/provider"
)

// decodeMessage decodes one message object. User, assistant and tool-result messages in the shapes pi
// writes take a single-pass path; anything else (other roles, unusual key order, duplicate keys, type
// errors) goes through provider.UnmarshalMessage, so the result is always exactly what that function
// returns. The fast path exists because a resumed session decodes every message of its branch.
func decodeMessage(b []byte) (provider.Message, error) {
	return decodeMessageScratch(b, nil)
}

// decodeMessageScratch is decodeMessage reusing *scratch (which it may grow) to unescape strings.
func decodeMessageScratch(b []byte, scratch *[]byte) (provider.Message, error) {
	if m, ok := fastMessage(b, scratch); ok {
		return m, nil
	}
	return provider.UnmarshalMessage(b)
}

// Bits of the known keys seen in a message, to refuse duplicates (their semantics are provider's).
const (
	kContent = 1 << iota
	kTimestamp
	kAPI
	kProvider
	kModel
	kUsage
	kStopReason
	kResponseID
	kErrorMessage
	kToolCallID
	kToolName
	kDetails
	kIsError
)

func fastMessage(b []byte, scratch *[]byte) (provider.Message, bool) {
	r := reader{b: b}
	if scratch != nil {
		r.scratch = *scratch
		defer func() { *scratch = r.scratch }()
	}
	empty, err := r.beginObject()
	if err != nil || empty {
		return nil, false
	}
	k, esc, err := r.key()
	if err != nil || esc || string(k) != "role" {
		return nil, false
	}
	role, err := r.str()
	if err != nil {
		return nil, false
	}
	switch role {
	case provider.RoleUser:
		um := &provider.UserMessage{}
		ok := fastFields(&r, userKeys, func(key string) (err error) {
			switch key {
			case "content":
				um.Content, um.ContentIsString, err = r.contentField()
			case "timestamp":
				um.Timestamp, err = r.int64Field()
			}
			return err
		}, &um.Extra)
		return um, ok
	case provider.RoleAssistant:
		am := &provider.AssistantMessage{}
		ok := fastFields(&r, assistantKeys, func(key string) (err error) {
			switch key {
			case "content":
				if r.peek() == '"' {
					return errNotFast // provider rejects string content for assistants
				}
				am.Content, _, err = r.contentField()
			case "timestamp":
				am.Timestamp, err = r.int64Field()
			case "api":
				am.API, err = r.strField()
			case "provider":
				am.Provider, err = r.strField()
			case "model":
				am.Model, err = r.strField()
			case "usage":
				err = r.usage(&am.Usage)
			case "stopReason":
				var s string
				s, err = r.strField()
				am.StopReason = provider.StopReason(s)
			case "responseId":
				am.ResponseID, err = r.strField()
			case "errorMessage":
				am.ErrorMessage, err = r.strField()
			}
			return err
		}, &am.Extra)
		if am.Content == nil {
			am.Content = []provider.Content{}
		}
		return am, ok
	case provider.RoleToolResult:
		tm := &provider.ToolResultMessage{}
		ok := fastFields(&r, toolResultKeys, func(key string) (err error) {
			switch key {
			case "content":
				tm.Content, _, err = r.contentField()
			case "timestamp":
				tm.Timestamp, err = r.int64Field()
			case "toolCallId":
				tm.ToolCallID, err = r.strField()
			case "toolName":
				tm.ToolName, err = r.strField()
			case "details":
				tm.Details, err = r.anyField()
			case "isError":
				tm.IsError, err = r.boolField()
			}
			return err
		}, &tm.Extra)
		return tm, ok
	}
	return nil, false
}

type notFastError struct{}

func (notFastError) Error() string { return "not on the fast path" }

var errNotFast error = notFastError{}

// The keys provider.UnmarshalMessage takes for each role, with a bit each to refuse duplicates.
var (
	userKeys       = keyBits("content", "timestamp")
	assistantKeys  = keyBits("content", "timestamp", "api", "provider", "model", "usage", "stopReason", "responseId", "errorMessage")
	toolResultKeys = keyBits("content", "timestamp", "toolCallId", "toolName", "details", "isError")
)

func keyBits(keys ...string) map[string]uint32 {
	m := make(map[string]uint32, len(keys))
	for i, k := range keys {
		m[k] = 1 << i
	}
	return m
}

// fastFields iterates the keys after "role". field decodes a key of known (a null known key is absent,
// as in provider); other keys become Extra verbatim. Any error or duplicate key abandons the fast path.
func fastFields(r *reader, known map[string]uint32, field func(key string) error, extra *map[string]json.RawMessage) bool {
	var seen uint32
	for {
		more, err := r.more('}')
		if err != nil {
			return false
		}
		if !more {
			break
		}
		k, esc, err := r.key()
		if err != nil || !plainKey(k, esc) {
			return false
		}
		if string(k) == "role" {
			return false
		}
		if bit, ok := known[string(k)]; ok {
			if seen&bit != 0 {
				return false
			}
			seen |= bit
			if r.isNull() {
				continue
			}
			if err := field(string(k)); err != nil {
				return false
			}
			continue
		}
		r.ws()
		vs := r.i
		if err := r.skip(); err != nil {
			return false
		}
		if !addExtra(extra, string(k), r.b[vs:r.i]) {
			return false
		}
	}
	return r.end() == nil
}

// plainKey reports whether a key's raw bytes are its name (encoding/json would rewrite escapes and
// invalid UTF-8).
func plainKey(k []byte, esc bool) bool { return !esc && utf8.Valid(k) }

func addExtra(extra *map[string]json.RawMessage, key string, raw []byte) bool {
	if *extra == nil {
		*extra = make(map[string]json.RawMessage)
	}
	if _, dup := (*extra)[key]; dup {
		return false
	}
	raw = bytes.TrimSpace(raw)
	(*extra)[key] = append(json.RawMessage(nil), raw...)
	return true
}

func (r *reader) strField() (string, error) {
	if r.peek() != '"' {
		return "", errNotFast
	}
	return r.str()
}

func (r *reader) boolField() (bool, error) {
	switch r.peek() {
	case 't':
		return true, r.literal("true")
	case 'f':
		return false, r.literal("false")
	}
	return false, errNotFast
}

// int64Field accepts only plain integers, as encoding/json does for an int64.
func (r *reader) int64Field() (int64, error) {
	c := r.peek()
	if c != '-' && (c < '0' || c > '9') {
		return 0, errNotFast
	}
	num, err := r.number()
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(string(num), 10, 64)
}

func (r *reader) float64Field() (float64, error) {
	c := r.peek()
	if c != '-' && (c < '0' || c > '9') {
		return 0, errNotFast
	}
	num, err := r.number()
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(string(num), 64)
}

// anyField decodes an arbitrary value as encoding/json would into an interface (rare, small values).
func (r *reader) anyField() (any, error) {
	r.ws()
	start := r.i
	if err := r.skip(); err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(r.b[start:r.i], &v); err != nil {
		return nil, err
	}
	return v, nil
}

// usage decodes the usage object; only exact key names are accepted (encoding/json would also match
// other cases, which the fallback handles).
func (r *reader) usage(u *provider.Usage) error {
	empty, err := r.beginObject()
	if err != nil || empty {
		return err
	}
	for {
		k, esc, err := r.key()
		if err != nil {
			return err
		}
		if esc {
			return errNotFast
		}
		if r.isNull() {
			if _, err := usageKey(k); err != nil {
				return err
			}
		} else {
			switch string(k) {
			case "input":
				u.Input, err = r.intField()
			case "output":
				u.Output, err = r.intField()
			case "cacheRead":
				u.CacheRead, err = r.intField()
			case "cacheWrite":
				u.CacheWrite, err = r.intField()
			case "totalTokens":
				u.TotalTokens, err = r.intField()
			case "cost":
				err = r.cost(&u.Cost)
			default:
				return errNotFast
			}
			if err != nil {
				return err
			}
		}
		more, err := r.more('}')
		if err != nil || !more {
			return err
		}
	}
}

func usageKey(k []byte) (bool, error) {
	switch string(k) {
	case "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost":
		return true, nil
	}
	return false, errNotFast
}

func (r *reader) intField() (int, error) {
	v, err := r.int64Field()
	return int(v), err
}

func (r *reader) cost(c *provider.Cost) error {
	empty, err := r.beginObject()
	if err != nil || empty {
		return err
	}
	for {
		k, esc, err := r.key()
		if err != nil {
			return err
		}
		if esc {
			return errNotFast
		}
		var dst *float64
		switch string(k) {
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
			return errNotFast
		}
		if !r.isNull() {
			if *dst, err = r.float64Field(); err != nil {
				return err
			}
		}
		more, err := r.more('}')
		if err != nil || !more {
			return err
		}
	}
}

// contentField reads a content value: a string (one text block, isString) or an array of blocks.
func (r *reader) contentField() ([]provider.Content, bool, error) {
	switch r.peek() {
	case '"':
		s, err := r.str()
		return []provider.Content{provider.TextContent(s)}, true, err
	case '[':
	default:
		return nil, false, errNotFast
	}
	empty, err := r.beginArray()
	if err != nil {
		return nil, false, err
	}
	out := []provider.Content{}
	if empty {
		return out, false, nil
	}
	for {
		var c provider.Content
		if err := r.block(&c); err != nil {
			return nil, false, err
		}
		out = append(out, c)
		more, err := r.more(']')
		if err != nil {
			return nil, false, err
		}
		if !more {
			return out, false, nil
		}
	}
}

// block decodes one content block whose first key is "type" and whose type pi-go knows.
func (r *reader) block(c *provider.Content) error {
	empty, err := r.beginObject()
	if err != nil {
		return err
	}
	if empty {
		return errNotFast
	}
	k, esc, err := r.key()
	if err != nil {
		return err
	}
	if esc || string(k) != "type" || r.peek() != '"' {
		return errNotFast
	}
	if c.Type, err = r.str(); err != nil {
		return err
	}
	var seen uint8
	hasArgs := false
	for {
		more, err := r.more('}')
		if err != nil {
			return err
		}
		if !more {
			break
		}
		k, esc, err := r.key()
		if err != nil {
			return err
		}
		if !plainKey(k, esc) {
			return errNotFast
		}
		key := string(k)
		var dst *string
		var bit uint8
		switch {
		case c.Type == provider.ContentText && key == "text":
			dst, bit = &c.Text, 1
		case c.Type == provider.ContentText && key == "textSignature":
			dst, bit = &c.TextSignature, 2
		case c.Type == provider.ContentThinking && key == "thinking":
			dst, bit = &c.Thinking, 1
		case c.Type == provider.ContentThinking && key == "thinkingSignature":
			dst, bit = &c.ThinkingSignature, 2
		case c.Type == provider.ContentThinking && key == "redacted":
			bit = 4
		case c.Type == provider.ContentImage && key == "data":
			dst, bit = &c.Data, 1
		case c.Type == provider.ContentImage && key == "mimeType":
			dst, bit = &c.MimeType, 2
		case c.Type == provider.ContentToolCall && key == "id":
			dst, bit = &c.ID, 1
		case c.Type == provider.ContentToolCall && key == "name":
			dst, bit = &c.Name, 2
		case c.Type == provider.ContentToolCall && key == "thoughtSignature":
			dst, bit = &c.ThoughtSignature, 4
		case c.Type == provider.ContentToolCall && key == "arguments":
			bit = 8
		case key == "type":
			return errNotFast
		case c.Type != provider.ContentText && c.Type != provider.ContentThinking &&
			c.Type != provider.ContentImage && c.Type != provider.ContentToolCall:
			return errNotFast
		}
		if bit != 0 {
			if seen&bit != 0 {
				return errNotFast
			}
			seen |= bit
		}
		switch {
		case dst != nil:
			if !r.isNull() {
				if *dst, err = r.strField(); err != nil {
					return err
				}
			}
		case key == "redacted":
			if !r.isNull() {
				if c.Redacted, err = r.boolField(); err != nil {
					return err
				}
			}
		case key == "arguments":
			hasArgs = true
			r.ws()
			start := r.i
			if err := r.skip(); err != nil {
				return err
			}
			v := r.b[start:r.i]
			if string(v) == "null" {
				c.Arguments = json.RawMessage("{}")
			} else {
				c.Arguments = append(json.RawMessage(nil), v...)
			}
		default:
			if key == "partialArgs" || key == "streamIndex" {
				return errNotFast // streaming bookkeeping; never in a stored message
			}
			r.ws()
			start := r.i
			if err := r.skip(); err != nil {
				return err
			}
			if !addExtra(&c.Extra, key, r.b[start:r.i]) {
				return errNotFast
			}
		}
	}
	if c.Type == provider.ContentToolCall && !hasArgs {
		c.Arguments = json.RawMessage("{}")
	}
	return nil
}
