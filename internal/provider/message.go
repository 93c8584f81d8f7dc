package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Message roles.
const (
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleBashExecution     = "bashExecution"
	RoleCustom            = "custom"
	RoleBranchSummary     = "branchSummary"
	RoleCompactionSummary = "compactionSummary"
)

// StopReason says why an assistant message ended.
type StopReason string

const (
	StopReasonStop    StopReason = "stop"
	StopReasonLength  StopReason = "length"
	StopReasonToolUse StopReason = "toolUse"
	StopReasonError   StopReason = "error"
	StopReasonAborted StopReason = "aborted"
	// StopReasonPending is the stop reason of an answer still streaming (pi 1.6's message_start); a
	// finished message never has it.
	StopReasonPending StopReason = "pending"
	// StopReasonDeferred: the provider will deliver the answer later (pi 1.6; pi-go reads it back only).
	StopReasonDeferred StopReason = "deferred"
)

// Message is any message of a transcript: the LLM roles (system, user, assistant, toolResult) and the
// coding-agent roles (bashExecution, custom, branchSummary, compactionSummary). Only pointer types of
// this package implement it; roles pi-go does not know are kept as *OpaqueMessage.
type Message interface {
	Role() string
	// Time is the message timestamp in milliseconds since the epoch.
	Time() int64
	json.Marshaler
	isMessage()
}

// Now returns the current time in milliseconds, the unit of every message timestamp.
func Now() int64 { return time.Now().UnixMilli() }

// UserMessage is a prompt, a steering or a follow-up message.
type UserMessage struct {
	Content []Content
	// ContentIsString is set when pi wrote content as a plain string instead of blocks; it is written
	// back the same way when Content is a single text block.
	ContentIsString bool
	Timestamp       int64
	Extra           map[string]json.RawMessage
}

// NewUserMessage builds a user message of one text block followed by the images.
func NewUserMessage(text string, images ...Content) *UserMessage {
	content := make([]Content, 0, 1+len(images))
	content = append(content, TextContent(text))
	content = append(content, images...)
	return &UserMessage{Content: content, Timestamp: Now()}
}

// AssistantMessage is one model response.
type AssistantMessage struct {
	Content    []Content
	API        string
	Provider   string
	Model      string
	Usage      Usage
	StopReason StopReason
	// Timestamp is when the request started.
	Timestamp  int64
	ResponseID string
	// ResponseModel is the model the server says answered, when it is not the one requested.
	ResponseModel string
	// RawStopReason is the provider's own stop reason (finish_reason) behind StopReason.
	RawStopReason string
	ErrorMessage  string
	// DurationMs is how long the response took, from the request to its end (nil: not measured, as in
	// messages from before pi 1.6).
	DurationMs *int64
	// ThinkingLevel is the level the agent asked for (pi 1.6 records it on every answer of a run).
	ThinkingLevel ThinkingLevel
	// ProviderThinkingLevel is the effort an Anthropic effort-marker model was given (pi 1.6's
	// providerThinkingLevel), replayed before this answer in later requests.
	ProviderThinkingLevel string
	Extra                 map[string]json.RawMessage
}

// ToolCalls returns the tool-call blocks of the message, in order.
func (m *AssistantMessage) ToolCalls() []Content {
	var calls []Content
	for _, c := range m.Content {
		if c.Type == ContentToolCall {
			calls = append(calls, c)
		}
	}
	return calls
}

// Clone returns a copy whose Content slice may be modified.
func (m *AssistantMessage) Clone() *AssistantMessage {
	c := *m
	c.Content = CloneContent(m.Content)
	return &c
}

// ToolResultMessage is the result of one tool call, sent back to the model.
type ToolResultMessage struct {
	ToolCallID string
	ToolName   string
	Content    []Content
	// Details is tool-specific data for UIs; never sent to the model. nil means absent.
	Details any
	// Usage is what the tool run itself cost (a tool that calls a model), never counted as context.
	Usage   *Usage
	IsError bool
	// DurationMs is how long the tool ran (nil: not measured, as in messages from before pi 1.6).
	DurationMs *int64
	Timestamp  int64
	Extra      map[string]json.RawMessage
}

// BashExecutionMessage records a `!cmd` the user ran.
type BashExecutionMessage struct {
	Command            string
	Output             string
	ExitCode           *int
	Cancelled          bool
	Truncated          bool
	FullOutputPath     string
	Timestamp          int64
	ExcludeFromContext bool
	Extra              map[string]json.RawMessage
}

// CustomMessage is an extension-provided message that reaches the model as user content.
type CustomMessage struct {
	CustomType      string
	Content         []Content
	ContentIsString bool
	Display         bool
	Details         any
	Timestamp       int64
	Extra           map[string]json.RawMessage
}

// BranchSummaryMessage summarises a branch the conversation came back from.
type BranchSummaryMessage struct {
	Summary   string
	FromID    string
	Timestamp int64
	Extra     map[string]json.RawMessage
}

// CompactionSummaryMessage stands for the history a compaction replaced.
type CompactionSummaryMessage struct {
	Summary      string
	TokensBefore int
	Timestamp    int64
	Extra        map[string]json.RawMessage
}

// OpaqueMessage is a message of a role pi-go does not know; it is kept verbatim.
type OpaqueMessage struct {
	RoleName  string
	Raw       json.RawMessage
	Timestamp int64
}

func (*UserMessage) Role() string              { return RoleUser }
func (*AssistantMessage) Role() string         { return RoleAssistant }
func (*ToolResultMessage) Role() string        { return RoleToolResult }
func (*BashExecutionMessage) Role() string     { return RoleBashExecution }
func (*CustomMessage) Role() string            { return RoleCustom }
func (*BranchSummaryMessage) Role() string     { return RoleBranchSummary }
func (*CompactionSummaryMessage) Role() string { return RoleCompactionSummary }
func (m *OpaqueMessage) Role() string          { return m.RoleName }

func (m *UserMessage) Time() int64              { return m.Timestamp }
func (m *AssistantMessage) Time() int64         { return m.Timestamp }
func (m *ToolResultMessage) Time() int64        { return m.Timestamp }
func (m *BashExecutionMessage) Time() int64     { return m.Timestamp }
func (m *CustomMessage) Time() int64            { return m.Timestamp }
func (m *BranchSummaryMessage) Time() int64     { return m.Timestamp }
func (m *CompactionSummaryMessage) Time() int64 { return m.Timestamp }
func (m *OpaqueMessage) Time() int64            { return m.Timestamp }

func (*UserMessage) isMessage()              {}
func (*AssistantMessage) isMessage()         {}
func (*ToolResultMessage) isMessage()        {}
func (*BashExecutionMessage) isMessage()     {}
func (*CustomMessage) isMessage()            {}
func (*BranchSummaryMessage) isMessage()     {}
func (*CompactionSummaryMessage) isMessage() {}
func (*OpaqueMessage) isMessage()            {}

// ---- encoding ----

type objWriter struct {
	b   *bytes.Buffer
	err error
}

func newObj(b *bytes.Buffer, role string) *objWriter {
	b.WriteString(`{"role":`)
	writeJSONString(b, role)
	return &objWriter{b: b}
}

func (w *objWriter) key(k string) {
	w.b.WriteString(`,"`)
	w.b.WriteString(k)
	w.b.WriteString(`":`)
}

func (w *objWriter) str(k, v string) { w.key(k); writeJSONString(w.b, v) }

func (w *objWriter) strOpt(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *objWriter) int(k string, v int64) { w.key(k); w.b.WriteString(strconv.FormatInt(v, 10)) }

func (w *objWriter) intOpt(k string, v *int64) {
	if v != nil {
		w.int(k, *v)
	}
}

func (w *objWriter) bool(k string, v bool) {
	w.key(k)
	if v {
		w.b.WriteString("true")
	} else {
		w.b.WriteString("false")
	}
}

func (w *objWriter) content(k string, c []Content, asString bool) {
	w.key(k)
	if asString && len(c) == 1 && c[0].Type == ContentText && len(c[0].Extra) == 0 && c[0].TextSignature == "" {
		writeJSONString(w.b, c[0].Text)
		return
	}
	w.b.WriteByte('[')
	for i := range c {
		if i > 0 {
			w.b.WriteByte(',')
		}
		data, err := c[i].MarshalJSON()
		if err != nil && w.err == nil {
			w.err = err
		}
		w.b.Write(data)
	}
	w.b.WriteByte(']')
}

func (w *objWriter) value(k string, v any) {
	w.key(k)
	if err := writeValue(w.b, v); err != nil && w.err == nil {
		w.err = err
	}
}

func (w *objWriter) end(extra map[string]json.RawMessage) ([]byte, error) {
	if err := writeExtra(w.b, extra); err != nil && w.err == nil {
		w.err = err
	}
	w.b.WriteByte('}')
	if w.err != nil {
		return nil, w.err
	}
	return w.b.Bytes(), nil
}

func (m *UserMessage) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	w := newObj(&b, RoleUser)
	w.content("content", m.Content, m.ContentIsString)
	w.int("timestamp", m.Timestamp)
	return w.end(m.Extra)
}

func (m *AssistantMessage) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	size := 256
	for i := range m.Content {
		size += len(m.Content[i].Text) + len(m.Content[i].Thinking) + len(m.Content[i].Arguments) + 32
	}
	b.Grow(size)
	w := newObj(&b, RoleAssistant)
	content := m.Content
	if content == nil {
		content = []Content{}
	}
	w.content("content", content, false)
	m.writeTail(w)
	return w.end(m.Extra)
}

// writeTail writes the fields after content (Extra aside).
func (m *AssistantMessage) writeTail(w *objWriter) {
	w.str("api", m.API)
	w.str("provider", m.Provider)
	w.str("model", m.Model)
	w.key("usage")
	w.b.Write(m.Usage.appendJSON(w.b.AvailableBuffer()))
	w.str("stopReason", string(m.StopReason))
	w.int("timestamp", m.Timestamp)
	w.strOpt("providerThinkingLevel", m.ProviderThinkingLevel)
	// pi's providers add these as the response goes on, in this order: the id and the answering model
	// with the first chunk, the raw stop reason with the last, an error when it fails, then the
	// stream's timing and the agent's thinking level once it has ended.
	w.strOpt("responseId", m.ResponseID)
	w.strOpt("responseModel", m.ResponseModel)
	w.strOpt("rawStopReason", m.RawStopReason)
	w.strOpt("errorMessage", m.ErrorMessage)
	w.intOpt("durationMs", m.DurationMs)
	w.strOpt("thinkingLevel", string(m.ThinkingLevel))
}

func (m *ToolResultMessage) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	w := newObj(&b, RoleToolResult)
	w.str("toolCallId", m.ToolCallID)
	w.str("toolName", m.ToolName)
	content := m.Content
	if content == nil {
		content = []Content{}
	}
	w.content("content", content, false)
	if m.Details != nil {
		w.value("details", m.Details)
	}
	if m.Usage != nil {
		w.key("usage")
		b.Write(m.Usage.appendJSON(nil))
	}
	w.bool("isError", m.IsError)
	w.intOpt("durationMs", m.DurationMs)
	w.int("timestamp", m.Timestamp)
	return w.end(m.Extra)
}

func (m *BashExecutionMessage) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	w := newObj(&b, RoleBashExecution)
	w.str("command", m.Command)
	w.str("output", m.Output)
	if m.ExitCode != nil {
		w.int("exitCode", int64(*m.ExitCode))
	}
	w.bool("cancelled", m.Cancelled)
	w.bool("truncated", m.Truncated)
	w.strOpt("fullOutputPath", m.FullOutputPath)
	w.int("timestamp", m.Timestamp)
	if m.ExcludeFromContext {
		w.bool("excludeFromContext", true)
	}
	return w.end(m.Extra)
}

func (m *CustomMessage) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	w := newObj(&b, RoleCustom)
	w.str("customType", m.CustomType)
	w.content("content", m.Content, m.ContentIsString)
	w.bool("display", m.Display)
	if m.Details != nil {
		w.value("details", m.Details)
	}
	w.int("timestamp", m.Timestamp)
	return w.end(m.Extra)
}

func (m *BranchSummaryMessage) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	w := newObj(&b, RoleBranchSummary)
	w.str("summary", m.Summary)
	w.str("fromId", m.FromID)
	w.int("timestamp", m.Timestamp)
	return w.end(m.Extra)
}

func (m *CompactionSummaryMessage) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	w := newObj(&b, RoleCompactionSummary)
	w.str("summary", m.Summary)
	w.int("tokensBefore", int64(m.TokensBefore))
	w.int("timestamp", m.Timestamp)
	return w.end(m.Extra)
}

func (m *OpaqueMessage) MarshalJSON() ([]byte, error) {
	if len(m.Raw) == 0 {
		return nil, errors.New("opaque message without data")
	}
	return m.Raw, nil
}

// ---- decoding (the general path; see msgdecode.go) ----

// fieldSet is a decoded JSON object whose known fields are taken one by one; what remains is Extra.
type fieldSet struct {
	raw map[string]json.RawMessage
	err error
}

func (f *fieldSet) take(key string, dst any) bool {
	v, ok := f.raw[key]
	if !ok {
		return false
	}
	delete(f.raw, key)
	if string(v) == "null" {
		return false
	}
	if err := json.Unmarshal(v, dst); err != nil && f.err == nil {
		f.err = fmt.Errorf("field %q: %w", key, err)
	}
	return true
}

// takeContent reads a field that may be a string or an array of blocks.
func (f *fieldSet) takeContent(key string) (content []Content, isString bool) {
	v, ok := f.raw[key]
	if !ok {
		return nil, false
	}
	delete(f.raw, key)
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil && f.err == nil {
			f.err = fmt.Errorf("field %q: %w", key, err)
		}
		return []Content{TextContent(s)}, true
	}
	if string(v) == "null" {
		return nil, false
	}
	if err := json.Unmarshal(v, &content); err != nil && f.err == nil {
		f.err = fmt.Errorf("field %q: %w", key, err)
	}
	return content, false
}

func (f *fieldSet) extra() map[string]json.RawMessage {
	if len(f.raw) == 0 {
		return nil
	}
	return f.raw
}

// takeInt reads a number field as an integer (nil when absent or null).
func (f *fieldSet) takeInt(key string) *int64 {
	var n float64
	if !f.take(key, &n) || f.err != nil {
		return nil
	}
	v := int64(n)
	return &v
}

// takeDetails reads an arbitrary JSON value as a generic Go value.
func (f *fieldSet) takeDetails(key string) any {
	v, ok := f.raw[key]
	if !ok {
		return nil
	}
	delete(f.raw, key)
	if string(v) == "null" {
		return nil
	}
	var out any
	if err := json.Unmarshal(v, &out); err != nil && f.err == nil {
		f.err = fmt.Errorf("field %q: %w", key, err)
	}
	return out
}

// unmarshalMessage is UnmarshalMessage through encoding/json: any shape, and the errors.
func unmarshalMessage(data []byte) (Message, error) {
	f := fieldSet{}
	if err := json.Unmarshal(data, &f.raw); err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	if f.raw == nil {
		return nil, errors.New("message: null")
	}
	var role string
	f.take("role", &role)
	var ts int64
	f.take("timestamp", &ts)
	var m Message
	switch role {
	case RoleSystem:
		sm, err := unmarshalSystemMessage(data)
		if err != nil {
			return nil, err
		}
		return sm, nil
	case RoleUser:
		um := &UserMessage{Timestamp: ts}
		um.Content, um.ContentIsString = f.takeContent("content")
		um.Extra = f.extra()
		m = um
	case RoleAssistant:
		am := &AssistantMessage{Timestamp: ts}
		f.take("content", &am.Content)
		f.take("api", &am.API)
		f.take("provider", &am.Provider)
		f.take("model", &am.Model)
		f.take("usage", &am.Usage)
		f.take("stopReason", &am.StopReason)
		f.take("providerThinkingLevel", &am.ProviderThinkingLevel)
		f.take("responseId", &am.ResponseID)
		f.take("responseModel", &am.ResponseModel)
		f.take("rawStopReason", &am.RawStopReason)
		f.take("errorMessage", &am.ErrorMessage)
		am.DurationMs = f.takeInt("durationMs")
		f.take("thinkingLevel", &am.ThinkingLevel)
		if am.Content == nil {
			am.Content = []Content{}
		}
		am.Extra = f.extra()
		m = am
	case RoleToolResult:
		tm := &ToolResultMessage{Timestamp: ts}
		f.take("toolCallId", &tm.ToolCallID)
		f.take("toolName", &tm.ToolName)
		tm.Content, _ = f.takeContent("content")
		tm.Details = f.takeDetails("details")
		var u Usage
		if f.take("usage", &u) {
			tm.Usage = &u
		}
		f.take("isError", &tm.IsError)
		tm.DurationMs = f.takeInt("durationMs")
		tm.Extra = f.extra()
		m = tm
	case RoleBashExecution:
		bm := &BashExecutionMessage{Timestamp: ts}
		f.take("command", &bm.Command)
		f.take("output", &bm.Output)
		var code int
		if f.take("exitCode", &code) {
			bm.ExitCode = &code
		}
		f.take("cancelled", &bm.Cancelled)
		f.take("truncated", &bm.Truncated)
		f.take("fullOutputPath", &bm.FullOutputPath)
		f.take("excludeFromContext", &bm.ExcludeFromContext)
		bm.Extra = f.extra()
		m = bm
	case RoleCustom, "hookMessage":
		cm := &CustomMessage{Timestamp: ts}
		f.take("customType", &cm.CustomType)
		cm.Content, cm.ContentIsString = f.takeContent("content")
		f.take("display", &cm.Display)
		cm.Details = f.takeDetails("details")
		cm.Extra = f.extra()
		m = cm
	case RoleBranchSummary:
		bs := &BranchSummaryMessage{Timestamp: ts}
		f.take("summary", &bs.Summary)
		f.take("fromId", &bs.FromID)
		bs.Extra = f.extra()
		m = bs
	case RoleCompactionSummary:
		cs := &CompactionSummaryMessage{Timestamp: ts}
		f.take("summary", &cs.Summary)
		f.take("tokensBefore", &cs.TokensBefore)
		cs.Extra = f.extra()
		m = cs
	default:
		if role == "" {
			return nil, errors.New("message: missing role")
		}
		return &OpaqueMessage{RoleName: role, Raw: append(json.RawMessage(nil), data...), Timestamp: ts}, nil
	}
	if f.err != nil {
		return nil, fmt.Errorf("%s message: %w", role, f.err)
	}
	return m, nil
}

// Messages is a list of messages that decodes from JSON by role.
type Messages []Message

// UnmarshalJSON decodes each element with UnmarshalMessage.
func (ms *Messages) UnmarshalJSON(data []byte) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return err
	}
	out := make(Messages, 0, len(raws))
	for i, r := range raws {
		m, err := UnmarshalMessage(r)
		if err != nil {
			return fmt.Errorf("messages[%d]: %w", i, err)
		}
		out = append(out, m)
	}
	*ms = out
	return nil
}
