package demo

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// chatRequest is the part of an OpenAI chat-completions request body the demo reads, but the messages
// (read one at a time by readRequest).
type chatRequest struct {
	Model         string     `json:"model"`
	Tools         []wireTool `json:"tools"`
	Stream        bool       `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ReasoningEffort    string `json:"reasoning_effort"`
	EnableThinking     *bool  `json:"enable_thinking"`
	ChatTemplateKwargs *struct {
		EnableThinking *bool `json:"enable_thinking"`
	} `json:"chat_template_kwargs"`
	MaxCompletionTokens int `json:"max_completion_tokens"`
	MaxTokens           int `json:"max_tokens"`
}

// wireMessage is what readMessage collects of a message besides its content.
type wireMessage struct {
	Role       string
	ToolCalls  []wireToolCall
	ToolCallID string
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// wirePart is one element of an array content: text or image_url.
type wirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// message is a transcript message reduced to what the script looks at. Only the last messages keep
// their text and tool calls (see window); every message keeps its role and its token count.
type message struct {
	Role       string // system, developer, user, assistant, tool
	Text       string
	Images     int
	ImageBytes int // size of the image data URLs, for the token estimate
	ToolCalls  []wireToolCall
	ToolCallID string
	tokens     int    // messageTokens, counted before the text was let go
	buf        []byte // while the request is read: the text, in a buffer of the window's pool
}

// conversation is a decoded request.
type conversation struct {
	Model        string
	Messages     []message
	Tools        map[string]bool
	ToolsJSON    int // bytes of the tool definitions, for the token estimate
	Reasoning    bool
	Stream       bool
	IncludeUsage bool
	MaxTokens    int // 0: no limit asked
}

// requestError is a 400 answer: the message is the server's own error text.
type requestError struct {
	Message string
	Param   string
}

func (e *requestError) Error() string { return e.Message }

// readRequest decodes and checks a chat-completions body of size bytes (-1: unknown) as it is read.
// Errors are *requestError (a 400 answer), or what reading r failed with. keepAll keeps the text of
// every message (tests); without it only the window the script can look at keeps its text (see
// window).
func readRequest(r io.Reader, size int64, keepAll bool) (*conversation, error) {
	s := new(jsonx.Scanner)
	s.ResetReader(r, size)
	var req chatRequest
	var typeErr error // the first value of the wrong type, as encoding/json reports it
	w := window{keepAll: keepAll, lastUser: -1}
	var msgsSeen bool
	var msgErr *requestError // the first message the checks refuse, reported after the syntax
	member := func(key []byte) {
		if !bytes.EqualFold(key, []byte("messages")) {
			// Every other member goes through encoding/json, one at a time so that errors come in order.
			obj := append(jsonx.AppendString([]byte(`{`), string(key)), ':')
			raw := s.Raw()
			if s.Err() != nil {
				return
			}
			obj = append(append(obj, raw...), '}')
			if err := json.Unmarshal(obj, &req); err != nil && typeErr == nil {
				typeErr = err
			}
			return
		}
		w.reset()
		msgErr = nil
		switch s.Peek() {
		case 'n':
			s.Skip()
			msgsSeen = false
			return
		case '[':
		default:
			if typeErr == nil {
				typeErr = fmt.Errorf("json: cannot unmarshal %s into Go struct field chatRequest.messages of type []demo.wireMessage", valueKind(s.Peek()))
			}
			s.Skip()
			return
		}
		msgsSeen = true
		s.Array(func(i int) {
			m, err := readMessage(s, &w.pool, &typeErr)
			if err != nil && msgErr == nil {
				msgErr = &requestError{Message: fmt.Sprintf("Invalid 'messages[%d]': %v", i, err), Param: fmt.Sprintf("messages[%d]", i)}
			}
			w.add(m)
		})
	}
	if s.Peek() == '{' {
		s.Object(member)
	} else {
		// Not an object: encoding/json says why (or, for null, decodes nothing).
		raw := s.Raw()
		if s.Err() == nil {
			typeErr = json.Unmarshal(raw, &req)
		}
	}
	var syntaxErr *jsonx.SyntaxError
	if err := s.Err(); err != nil && !errors.As(err, &syntaxErr) {
		return nil, err // reading the body failed
	}
	if err := cmp.Or(s.Err(), typeErr); err != nil {
		return nil, &requestError{Message: fmt.Sprintf("We could not parse the JSON body of your request: %v. "+
			"(The demo model expects an OpenAI chat-completions request.)", err)}
	}
	if req.Model == "" {
		return nil, &requestError{Message: "you must provide a model parameter", Param: "model"}
	}
	if !msgsSeen {
		return nil, &requestError{Message: "Missing required parameter: 'messages'.", Param: "messages"}
	}
	if len(w.msgs) == 0 {
		return nil, &requestError{Message: "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", Param: "messages"}
	}
	if msgErr != nil {
		return nil, msgErr
	}
	c := &conversation{
		Model:     req.Model,
		Messages:  w.finish(),
		Stream:    req.Stream,
		Tools:     make(map[string]bool, len(req.Tools)),
		MaxTokens: req.MaxCompletionTokens,
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = req.MaxTokens
	}
	c.IncludeUsage = req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	effort := strings.ToLower(req.ReasoningEffort)
	c.Reasoning = (effort != "" && effort != "none") ||
		(req.EnableThinking != nil && *req.EnableThinking) ||
		(req.ChatTemplateKwargs != nil && req.ChatTemplateKwargs.EnableThinking != nil && *req.ChatTemplateKwargs.EnableThinking)
	for _, t := range req.Tools {
		if t.Function.Name != "" {
			c.Tools[t.Function.Name] = true
		}
		c.ToolsJSON += len(t.Function.Name) + len(t.Function.Parameters) + 16
	}
	return c, nil
}

// valueKind names a JSON value by its first byte, as encoding/json's type errors do.
func valueKind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	}
	return "number"
}

// readMessage reads one element of the messages array: the message, and the reason the checks refuse
// it (as decodeMessage words it). A value of the wrong type (a body encoding/json would not decode)
// is reported in *typeErr, unless one already is.
func readMessage(s *jsonx.Scanner, pool *textPool, typeErr *error) (message, error) {
	var wm wireMessage
	var content messageContent
	wrongType := func(field, goType string) {
		if *typeErr == nil {
			*typeErr = fmt.Errorf("json: cannot unmarshal %s into Go struct field chatRequest.messages.%s of type %s", valueKind(s.Peek()), field, goType)
		}
		s.Skip()
	}
	str := func(dst *string, field string) {
		switch s.Peek() {
		case '"':
			*dst = internRole(s.Str())
		case 'n':
			s.Skip()
		default:
			wrongType(field, "string")
		}
	}
	switch s.Peek() {
	case 'n':
		s.Skip()
		return decodeMessage(wm, content)
	case '{':
	default:
		if *typeErr == nil {
			*typeErr = fmt.Errorf("json: cannot unmarshal %s into Go struct field chatRequest.messages of type demo.wireMessage", valueKind(s.Peek()))
		}
		s.Skip()
		return message{}, nil
	}
	s.Object(func(key []byte) {
		switch {
		case bytes.EqualFold(key, []byte("role")):
			str(&wm.Role, "role")
		case bytes.EqualFold(key, []byte("content")):
			pool.put(content.buf)
			content = readContent(s, pool)
		case bytes.EqualFold(key, []byte("tool_call_id")):
			str(&wm.ToolCallID, "tool_call_id")
		case bytes.EqualFold(key, []byte("tool_calls")):
			readToolCalls(s, &wm.ToolCalls, wrongType)
		default:
			s.Skip()
		}
	})
	return decodeMessage(wm, content)
}

// messageContent is a message's content as the script sees it: its text (the text parts joined by
// newlines) in text or, from the pool, in buf; its images; or why it is not a content.
type messageContent struct {
	text               string
	buf                []byte
	images, imageBytes int
	err                error
}

// readText reads the string at the current position into c: a long one as a string the scanner
// hands over, any other into a buffer of the pool.
func readText(s *jsonx.Scanner, pool *textPool, c *messageContent) {
	b := s.Str()
	if len(b) >= jsonx.LongString {
		c.text = s.Detach(b)
		return
	}
	c.buf = append(pool.get(len(b)), b...)
}

// readContent reads a message's content: a string, null, or an array of parts ({"type":"text",
// "text":…} and {"type":"image_url","image_url":{"url":…}}, other members and types ignored) as
// encoding/json would decode them; a part of the wrong type makes the error the message is refused
// with, as does any other value.
func readContent(s *jsonx.Scanner, pool *textPool) messageContent {
	var c messageContent
	switch s.Peek() {
	case '"':
		readText(s, pool, &c)
		return c
	case 'n':
		s.Skip()
		return c
	case '[':
	default:
		s.Skip()
		c.err = errors.New("'content' must be a string, an array of content parts or null")
		return c
	}
	wrongType := func(field, goType string) {
		if c.err == nil {
			c.err = fmt.Errorf("'content': json: cannot unmarshal %s into Go struct field wirePart.%s of type %s", valueKind(s.Peek()), field, goType)
		}
		s.Skip()
	}
	var texts []messageContent
	s.Array(func(int) {
		var typ string
		var text messageContent
		urlLen := -1 // the image_url's URL length; -1: no image_url object
		switch s.Peek() {
		case 'n':
			s.Skip()
			return
		case '{':
		default:
			if c.err == nil {
				c.err = fmt.Errorf("'content': json: cannot unmarshal %s into Go value of type demo.wirePart", valueKind(s.Peek()))
			}
			s.Skip()
			return
		}
		s.Object(func(key []byte) {
			switch {
			case bytes.EqualFold(key, []byte("type")):
				switch s.Peek() {
				case '"':
					typ = internRole(s.Str())
				case 'n':
					s.Skip()
				default:
					wrongType("type", "string")
				}
			case bytes.EqualFold(key, []byte("text")):
				switch s.Peek() {
				case '"':
					pool.put(text.buf)
					text = messageContent{}
					readText(s, pool, &text)
				case 'n':
					s.Skip()
				default:
					wrongType("text", "string")
				}
			case bytes.EqualFold(key, []byte("image_url")):
				switch s.Peek() {
				case 'n':
					s.Skip()
					urlLen = -1
				case '{':
					urlLen = max(urlLen, 0)
					s.Object(func(key []byte) {
						if !bytes.EqualFold(key, []byte("url")) {
							s.Skip()
							return
						}
						switch s.Peek() {
						case '"':
							urlLen = len(s.Str())
						case 'n':
							s.Skip()
						default:
							wrongType("image_url.url", "string")
						}
					})
				default:
					wrongType("image_url", "*struct { URL string \"json:\\\"url\\\"\" }")
				}
			default:
				s.Skip()
			}
		})
		switch {
		case typ == "text":
			texts = append(texts, text)
			return
		case typ == "image_url" && urlLen >= 0:
			c.images++
			c.imageBytes += urlLen
		}
		pool.put(text.buf)
	})
	switch len(texts) {
	case 0:
	case 1:
		c.text, c.buf = texts[0].text, texts[0].buf
	default:
		// Several text parts, joined by newlines into one buffer.
		n := len(texts) - 1
		for _, t := range texts {
			n += len(t.text) + len(t.buf)
		}
		c.buf = pool.get(n)
		for i, t := range texts {
			if i > 0 {
				c.buf = append(c.buf, '\n')
			}
			c.buf = append(append(c.buf, t.text...), t.buf...)
			pool.put(t.buf)
		}
	}
	return c
}

// readToolCalls reads a message's tool_calls into calls as encoding/json would (null leaves them,
// unknown members are skipped, keys match in any case); wrongType reports and skips a value of the
// wrong type.
func readToolCalls(s *jsonx.Scanner, calls *[]wireToolCall, wrongType func(field, goType string)) {
	str := func(dst *string, field string) {
		switch s.Peek() {
		case '"':
			*dst = internRole(s.Str())
		case 'n':
			s.Skip()
		default:
			wrongType(field, "string")
		}
	}
	switch s.Peek() {
	case 'n':
		s.Skip()
		return
	case '[':
	default:
		wrongType("tool_calls", "[]demo.wireToolCall")
		return
	}
	out := []wireToolCall{}
	s.Array(func(int) {
		var tc wireToolCall
		switch s.Peek() {
		case 'n':
			s.Skip()
		case '{':
			s.Object(func(key []byte) {
				switch {
				case bytes.EqualFold(key, []byte("id")):
					str(&tc.ID, "tool_calls.id")
				case bytes.EqualFold(key, []byte("type")):
					str(&tc.Type, "tool_calls.type")
				case bytes.EqualFold(key, []byte("function")):
					switch s.Peek() {
					case 'n':
						s.Skip()
					case '{':
						s.Object(func(key []byte) {
							switch {
							case bytes.EqualFold(key, []byte("name")):
								str(&tc.Function.Name, "tool_calls.function.name")
							case bytes.EqualFold(key, []byte("arguments")):
								str(&tc.Function.Arguments, "tool_calls.function.arguments")
							default:
								s.Skip()
							}
						})
					default:
						wrongType("tool_calls.function", "struct { Name string; Arguments string }")
					}
				default:
					s.Skip()
				}
			})
		default:
			wrongType("tool_calls", "demo.wireToolCall")
		}
		out = append(out, tc)
	})
	*calls = out
}

// internRole returns common short strings without allocating.
func internRole(b []byte) string {
	switch string(b) {
	case "system":
		return "system"
	case "developer":
		return "developer"
	case "user":
		return "user"
	case "assistant":
		return "assistant"
	case "tool":
		return "tool"
	}
	return string(b)
}

// window keeps the messages of a request: all of them, with their roles and token counts, but the
// text and tool calls only of those the script can look at. The script reads back from the end, never
// past the last user message (not a tool's attached images) before the last assistant message: the
// tool run that ends the transcript and the calls that made it, the request that started them, a
// steering message, the prompt. So when an assistant message arrives, everything before the user
// message that precedes it loses its text, and a resumed 50 MB transcript is never held whole.
type window struct {
	keepAll  bool
	msgs     []message
	lastUser int // the last user message (-1: none)
	floor    int // messages before it have lost their text
	pool     textPool
}

func (w *window) reset() {
	for i := range w.msgs {
		w.pool.put(w.msgs[i].buf)
	}
	w.msgs = nil
	w.lastUser, w.floor = -1, 0
}

// attachedImagesText starts the user message that carries a tool result's images.
const attachedImagesText = "Attached image(s) from tool result:"

func (w *window) add(m message) {
	m.tokens = messageTokens(m)
	w.msgs = append(w.msgs, m)
	switch {
	case m.Role == "user" && !strings.HasPrefix(m.Text, attachedImagesText) && !bytes.HasPrefix(m.buf, []byte(attachedImagesText)):
		w.lastUser = len(w.msgs) - 1
	case m.Role == "assistant" && !w.keepAll && w.lastUser > w.floor:
		for i := w.floor; i < w.lastUser; i++ {
			w.pool.put(w.msgs[i].buf)
			w.msgs[i].Text, w.msgs[i].buf, w.msgs[i].ToolCalls = "", nil, nil
		}
		w.floor = w.lastUser
	}
}

// finish gives the messages that kept their text a string of it.
func (w *window) finish() []message {
	for i := range w.msgs {
		if m := &w.msgs[i]; m.buf != nil {
			m.Text, m.buf = string(m.buf), nil
		}
	}
	return w.msgs
}

// textPool recycles the buffers of the texts the window lets go: reading a long transcript allocates
// about a window's worth of text, not the whole transcript's.
type textPool struct{ free [][]byte }

// maxPooled bounds what the pool keeps: a few dozen buffers, none larger than a long tool result.
const (
	maxPooled    = 64
	maxPooledCap = 256 << 10
)

// get returns an empty buffer with room for n bytes.
func (p *textPool) get(n int) []byte {
	if k := len(p.free); k > 0 {
		b := p.free[k-1]
		p.free = p.free[:k-1]
		if cap(b) >= n {
			return b[:0]
		}
		return make([]byte, 0, max(n, 2*cap(b)))
	}
	return make([]byte, 0, max(n, 1024))
}

// put gives a buffer back (nil is ignored).
func (p *textPool) put(b []byte) {
	if b != nil && cap(b) <= maxPooledCap && len(p.free) < maxPooled {
		p.free = append(p.free, b)
	}
}

// decodeMessage checks a message and reduces it to what the script reads.
func decodeMessage(wm wireMessage, content messageContent) (message, error) {
	m := message{Role: wm.Role, ToolCalls: wm.ToolCalls, ToolCallID: wm.ToolCallID}
	switch wm.Role {
	case "system", "developer", "user", "assistant", "tool":
	case "":
		return m, errors.New("missing 'role'")
	default:
		return m, fmt.Errorf("unknown role %q (expected system, developer, user, assistant or tool)", wm.Role)
	}
	m.Text, m.buf, m.Images, m.ImageBytes = content.text, content.buf, content.images, content.imageBytes
	if content.err != nil {
		return m, content.err
	}
	if wm.Role == "tool" && wm.ToolCallID == "" {
		return m, errors.New("a tool message needs 'tool_call_id'")
	}
	return m, nil
}
