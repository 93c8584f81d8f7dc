package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// CurrentVersion is the session file format version written and migrated to.
const CurrentVersion = 3

// Entry types (the "type" field of a line).
const (
	TypeSession             = "session"
	TypeMessage             = "message"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeModelChange         = "model_change"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
)

// Header is the first line of a session file.
type Header struct {
	Version       int // 1 when the file has no version field
	ID            string
	Timestamp     string // ISO-8601
	Cwd           string
	ParentSession string // path of the session this one was forked from; "" when none
}

// Entry is one line after the header. Common fields first; then the fields of each type, zero for the
// other types. A message entry's message is decoded on first use (Message), because a resumed session
// may hold tens of megabytes of messages it never needs. An Entry is immutable once created.
type Entry struct {
	Type      string
	ID        string
	ParentID  string // "" for a root (null in the file)
	Timestamp string // ISO-8601, milliseconds, UTC

	// message: the role, read without decoding the message.
	Role string

	// thinking_level_change
	ThinkingLevel string
	// model_change
	Provider, ModelID string
	// compaction (Summary, FirstKeptEntryID, TokensBefore, Details, FromHook) and
	// branch_summary (Summary, FromID, Details, FromHook)
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	FromID           string
	FromHook         bool
	// Details of compaction, branch_summary and custom_message entries; nil when absent.
	Details json.RawMessage
	// custom (CustomType, Data) and custom_message (CustomType, Content, ContentIsString, Display, Details)
	CustomType      string
	Data            json.RawMessage // nil when absent
	Content         []provider.Content
	ContentIsString bool
	Display         bool
	// label: Label "" clears the label of TargetID
	TargetID string
	Label    string
	// session_info
	Name string

	// loc says where the entry's line is; it changes when a pending entry is written, and may be
	// read meanwhile by another goroutine (Raw, Message), hence the atomic cell. msgStart/msgEnd
	// delimit the message inside the line.
	loc          *locCell
	msgStart     int
	msgEnd       int
	lineNo       int
	asstProvider string // provider and model of an assistant message, for BuildContext
	asstModel    string
	usage        *provider.Usage // of an assistant message, for totals without decoding
	msg          *msgCache       // message entries only
}

// location is where an entry's line is. A message entry read from a file keeps no bytes in memory:
// src, off, size and sum locate and check its line. line holds the bytes of entries not (yet) in a
// file and of small non-message entries.
type location struct {
	line []byte
	src  *source
	off  int64
	size int
	sum  uint32
}

type locCell struct{ p atomic.Pointer[location] }

func newLoc(l location) *locCell {
	c := &locCell{}
	c.p.Store(&l)
	return c
}

// where returns the entry's current location.
func (e *Entry) where() *location { return e.loc.p.Load() }

// msgCache holds a message entry's decoded message; copies of an entry share it.
type msgCache struct{ p atomic.Pointer[msgBox] }

type msgBox struct{ m provider.Message }

// cached returns the decoded message, or nil.
func (e *Entry) cached() provider.Message {
	if e.msg == nil {
		return nil
	}
	if b := e.msg.p.Load(); b != nil {
		return b.m
	}
	return nil
}

// store keeps a decoded message (the first one stored wins).
func (e *Entry) store(m provider.Message) provider.Message {
	if e.msg == nil {
		return m
	}
	e.msg.p.CompareAndSwap(nil, &msgBox{m})
	return e.msg.p.Load().m
}

func crcOf(b []byte) uint32 { return crc32.Checksum(b, crcTable) }

// Message returns the message of a message entry, decoding it on first use. It is an error to call it
// on another entry type. Reading may fail if the file was changed on disk by someone else.
func (e *Entry) Message() (provider.Message, error) {
	if e.Type != TypeMessage {
		return nil, fmt.Errorf("entry %s is a %s entry, not a message", e.ID, e.Type)
	}
	if m := e.cached(); m != nil {
		return m, nil
	}
	line, err := e.Raw()
	if err != nil {
		return nil, err
	}
	m, err := decodeMessage(line[e.msgStart:e.msgEnd])
	if err != nil {
		return nil, fmt.Errorf("entry %s: %w", e.ID, err)
	}
	return e.store(m), nil
}

// Raw returns the entry's line exactly as in the file (without the newline). The caller must not
// modify it.
func (e *Entry) Raw() ([]byte, error) {
	l := e.where()
	if l.line != nil {
		return l.line, nil
	}
	if l.src == nil {
		return nil, fmt.Errorf("entry %s has no data", e.ID)
	}
	return l.src.readLine(l, e)
}

// Usage returns the token usage of an assistant message entry without decoding the message; ok is
// false for other entries.
func (e *Entry) Usage() (u provider.Usage, ok bool) {
	if e.usage == nil {
		return u, false
	}
	return *e.usage, true
}

// Time is the entry timestamp in milliseconds since the epoch (0 when it does not parse).
func (e *Entry) Time() int64 { return isoMillis(e.Timestamp) }

// isoMillis parses an ISO-8601 time as JavaScript's Date does for the forms pi writes.
func isoMillis(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// isoTime formats t as JavaScript's toISOString.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// internType returns the constant for a known type so loaded entries share one string.
func internType(s string) string {
	switch s {
	case TypeMessage:
		return TypeMessage
	case TypeThinkingLevelChange:
		return TypeThinkingLevelChange
	case TypeModelChange:
		return TypeModelChange
	case TypeCompaction:
		return TypeCompaction
	case TypeBranchSummary:
		return TypeBranchSummary
	case TypeCustom:
		return TypeCustom
	case TypeCustomMessage:
		return TypeCustomMessage
	case TypeLabel:
		return TypeLabel
	case TypeSessionInfo:
		return TypeSessionInfo
	case TypeSession:
		return TypeSession
	}
	return s
}

func internRole(s string) string {
	switch s {
	case provider.RoleUser:
		return provider.RoleUser
	case provider.RoleAssistant:
		return provider.RoleAssistant
	case provider.RoleToolResult:
		return provider.RoleToolResult
	case provider.RoleBashExecution:
		return provider.RoleBashExecution
	case provider.RoleCustom:
		return provider.RoleCustom
	}
	return s
}

// errNotEntry marks a line that is valid JSON but no usable entry (not an object, no type, no id).
var errNotEntry = errors.New("not a session entry")

// span is a raw value inside a line.
type span struct {
	key        string
	start, end int
}

// parsedLine is what one pass over a line yields.
type parsedLine struct {
	typ, id, parentID, ts string
	hasID                 bool
	msgStart, msgEnd      int
	rest                  []span // the other top-level fields
}

// scanLine validates a line and reads its envelope; of the message only the head is read (see
// scanMessageHead), the other fields are validated and located.
func scanLine(line []byte, head *msgHead) (parsedLine, error) {
	var p parsedLine
	r := reader{b: line}
	empty, err := r.beginObject()
	if err != nil {
		if r.i < len(r.b) && err != errUnexpectedEnd && r.peek() != '{' {
			// valid JSON that is not an object is still "parsed" for pi; it is no entry for us
			if r2 := (reader{b: line}); r2.skip() == nil && r2.end() == nil {
				return p, errNotEntry
			}
		}
		return p, err
	}
	if empty {
		return p, errNotEntry
	}
	for {
		k, esc, err := r.key()
		if err != nil {
			return p, err
		}
		// switch on string(k) does not allocate; a key is only turned into a string when kept
		if esc {
			k = []byte(keyString(k, esc))
		}
		r.ws()
		start := r.i
		switch string(k) {
		case "type", "id", "parentId", "timestamp":
			var s string
			isStr := r.peek() == '"'
			if isStr {
				s, err = r.str()
			} else {
				err = r.skip()
			}
			if err != nil {
				return p, err
			}
			switch string(k) {
			case "type":
				if isStr {
					p.typ = internType(s)
				}
			case "id":
				p.id, p.hasID = s, isStr
			case "parentId":
				p.parentID = s
			case "timestamp":
				p.ts = s
			}
		case "message":
			if head != nil && r.peek() == '{' {
				*head, err = scanMessageHead(&r)
			} else {
				err = r.skip()
			}
			if err != nil {
				return p, err
			}
			p.msgStart, p.msgEnd = start, r.i
		default:
			if err := r.skip(); err != nil {
				return p, err
			}
			p.rest = append(p.rest, span{string(k), start, r.i})
		}
		more, err := r.more('}')
		if err != nil {
			return p, err
		}
		if !more {
			break
		}
	}
	if err := r.end(); err != nil {
		return p, err
	}
	if p.typ == "" {
		return p, errNotEntry
	}
	return p, nil
}

// msgHead is what loading needs of a message without decoding it.
type msgHead struct {
	usage                 *provider.Usage
	role, provider, model string
	timestamp             int64
	hasTimestamp          bool // a numeric timestamp
	hasContent            bool
}

// scanMessageHead reads role, provider, model and timestamp of a message object; the other values are
// only delimited (skipLoose), they are validated when the message is decoded.
func scanMessageHead(r *reader) (msgHead, error) {
	var h msgHead
	empty, err := r.beginObject()
	if err != nil || empty {
		return h, err
	}
	for {
		k, esc, err := r.key()
		if err != nil {
			return h, err
		}
		if esc {
			k = []byte(keyString(k, esc))
		}
		switch key := string(k); {
		case (key == "role" || key == "provider" || key == "model") && r.peek() == '"':
			s, err := r.str()
			if err != nil {
				return h, err
			}
			switch key {
			case "role":
				h.role = internRole(s)
			case "provider":
				h.provider = s
			case "model":
				h.model = s
			}
		case key == "usage" && r.peek() == '{':
			start := r.i
			u := &provider.Usage{}
			if err := r.usage(u); err != nil {
				// unusual keys or numbers: decode it the way provider does
				r.i = start
				if err := r.skip(); err != nil {
					return h, err
				}
				if json.Unmarshal(r.b[start:r.i], u) != nil {
					u = nil
				}
			}
			h.usage = u
		case key == "timestamp" && (r.peek() == '-' || (r.peek() >= '0' && r.peek() <= '9')):
			num, err := r.number()
			if err != nil {
				return h, err
			}
			if f, err := strconv.ParseFloat(string(num), 64); err == nil {
				h.timestamp, h.hasTimestamp = int64(f), true
			}
		default:
			if key == "content" {
				h.hasContent = true
			}
			if err := r.skipLoose(); err != nil {
				return h, err
			}
		}
		more, err := r.more('}')
		if err != nil || !more {
			return h, err
		}
	}
}

// fill decodes the type-specific fields of a non-message entry. Fields of the wrong JSON type are left
// zero: the line stays a valid entry, as it is for pi.
func (e *Entry) fill(line []byte, rest []span) {
	for _, f := range rest {
		raw := line[f.start:f.end]
		r := reader{b: raw}
		str := func() string {
			if r.peek() != '"' {
				return ""
			}
			s, _ := r.str()
			return s
		}
		switch f.key {
		case "thinkingLevel":
			if e.Type == TypeThinkingLevelChange {
				e.ThinkingLevel = str()
			}
		case "provider":
			if e.Type == TypeModelChange {
				e.Provider = str()
			}
		case "modelId":
			if e.Type == TypeModelChange {
				e.ModelID = str()
			}
		case "summary":
			e.Summary = str()
		case "firstKeptEntryId":
			e.FirstKeptEntryID = str()
		case "tokensBefore":
			var n float64
			if json.Unmarshal(raw, &n) == nil {
				e.TokensBefore = int(n)
			}
		case "fromId":
			e.FromID = str()
		case "fromHook":
			e.FromHook = string(raw) == "true"
		case "details":
			if string(raw) != "null" {
				e.Details = json.RawMessage(raw)
			}
		case "customType":
			e.CustomType = str()
		case "data":
			e.Data = json.RawMessage(raw)
		case "content":
			if e.Type == TypeCustomMessage {
				e.Content, e.ContentIsString = decodeContent(raw)
			}
		case "display":
			e.Display = string(raw) == "true"
		case "targetId":
			e.TargetID = str()
		case "label":
			e.Label = str()
		case "name":
			e.Name = str()
		}
	}
}

// decodeContent reads a string-or-blocks content value as provider does for custom messages.
func decodeContent(raw []byte) ([]provider.Content, bool) {
	r := reader{b: raw}
	if c, isStr, err := r.contentField(); err == nil {
		return c, isStr
	}
	var blocks []provider.Content
	if json.Unmarshal(raw, &blocks) == nil {
		return blocks, false
	}
	return nil, false
}

// parseHeader reads a header line; ok is false when the line is no header with a string id.
func parseHeader(line []byte) (Header, bool) {
	var raw struct {
		Type          any `json:"type"`
		Version       any `json:"version"`
		ID            any `json:"id"`
		Timestamp     any `json:"timestamp"`
		Cwd           any `json:"cwd"`
		ParentSession any `json:"parentSession"`
	}
	if err := json.Unmarshal(line, &raw); err != nil || raw.Type != TypeSession {
		return Header{}, false
	}
	id, ok := raw.ID.(string)
	if !ok {
		return Header{}, false
	}
	h := Header{ID: id, Version: headerVersion(raw.Version)}
	h.Timestamp, _ = raw.Timestamp.(string)
	h.Cwd, _ = raw.Cwd.(string)
	h.ParentSession, _ = raw.ParentSession.(string)
	return h, true
}

// headerVersion reads a version as pi compares it in JavaScript (3.0 and "3" are 3); absent or not a
// number is 1.
func headerVersion(v any) int {
	f, ok := v.(float64)
	if s, isStr := v.(string); isStr {
		var err error
		f, err = strconv.ParseFloat(strings.TrimSpace(s), 64)
		ok = err == nil
	}
	if ok && f >= 1 && f < 1<<31 {
		return int(f)
	}
	return 1
}

// ---- writing ----

// lineWriter builds one entry line with pi's key order.
type lineWriter struct{ b []byte }

func (w *lineWriter) str(key, v string) {
	w.b = append(w.b, ',', '"')
	w.b = append(w.b, key...)
	w.b = append(w.b, '"', ':')
	w.b = provider.AppendJSONString(w.b, v)
}

func (w *lineWriter) raw(key string, v []byte) {
	w.b = append(w.b, ',', '"')
	w.b = append(w.b, key...)
	w.b = append(w.b, '"', ':')
	w.b = append(w.b, v...)
}

func (w *lineWriter) start(typ string) {
	w.b = append(w.b, `{"type":`...)
	w.b = provider.AppendJSONString(w.b, typ)
}

func (w *lineWriter) tree(id, parentID, ts string) {
	w.str("id", id)
	if parentID == "" {
		w.raw("parentId", []byte("null"))
	} else {
		w.str("parentId", parentID)
	}
	w.str("timestamp", ts)
}

func (w *lineWriter) end() []byte { return append(w.b, '}') }

func headerLine(h Header) []byte {
	var w lineWriter
	w.start(TypeSession)
	w.raw("version", []byte(fmt.Sprint(h.Version)))
	w.str("id", h.ID)
	w.str("timestamp", h.Timestamp)
	w.str("cwd", h.Cwd)
	if h.ParentSession != "" {
		w.str("parentSession", h.ParentSession)
	}
	return w.end()
}

// marshalValue encodes an optional value (details, data) as JSON.stringify would; nil means absent.
func marshalValue(v any) (json.RawMessage, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if x == nil {
			return nil, nil
		}
	}
	b, err := provider.MarshalJS(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// contentJSON encodes custom-message content: a string when isString and it is one plain text block.
func contentJSON(content []provider.Content, isString bool) ([]byte, error) {
	if isString && len(content) == 1 && content[0].Type == provider.ContentText &&
		content[0].TextSignature == "" && len(content[0].Extra) == 0 {
		return provider.AppendJSONString(nil, content[0].Text), nil
	}
	if content == nil {
		content = []provider.Content{}
	}
	return provider.MarshalJS(content)
}

// encode writes the line of a new entry (every type except message, which appendMessage builds).
func (e *Entry) encode() ([]byte, error) {
	var w lineWriter
	w.start(e.Type)
	switch e.Type {
	case TypeCustom:
		w.str("customType", e.CustomType)
		if e.Data != nil {
			w.raw("data", e.Data)
		}
		w.tree(e.ID, e.ParentID, e.Timestamp)
		return w.end(), nil
	case TypeCustomMessage:
		w.str("customType", e.CustomType)
		c, err := contentJSON(e.Content, e.ContentIsString)
		if err != nil {
			return nil, err
		}
		w.raw("content", c)
		w.raw("display", []byte(fmt.Sprint(e.Display)))
		if e.Details != nil {
			w.raw("details", e.Details)
		}
		w.tree(e.ID, e.ParentID, e.Timestamp)
		return w.end(), nil
	}
	w.tree(e.ID, e.ParentID, e.Timestamp)
	switch e.Type {
	case TypeThinkingLevelChange:
		w.str("thinkingLevel", e.ThinkingLevel)
	case TypeModelChange:
		w.str("provider", e.Provider)
		w.str("modelId", e.ModelID)
	case TypeCompaction:
		w.str("summary", e.Summary)
		w.str("firstKeptEntryId", e.FirstKeptEntryID)
		w.raw("tokensBefore", []byte(fmt.Sprint(e.TokensBefore)))
		if e.Details != nil {
			w.raw("details", e.Details)
		}
		w.raw("fromHook", []byte(fmt.Sprint(e.FromHook)))
	case TypeBranchSummary:
		w.str("fromId", e.FromID)
		w.str("summary", e.Summary)
		if e.Details != nil {
			w.raw("details", e.Details)
		}
		w.raw("fromHook", []byte(fmt.Sprint(e.FromHook)))
	case TypeLabel:
		w.str("targetId", e.TargetID)
		if e.Label != "" {
			w.str("label", e.Label)
		}
	case TypeSessionInfo:
		w.str("name", e.Name)
	default:
		return nil, fmt.Errorf("cannot write entries of type %q", e.Type)
	}
	return w.end(), nil
}

// messageLine writes a message entry line around the message's own JSON and returns where the message
// sits in it.
func messageLine(id, parentID, ts string, m provider.Message) (line []byte, msgStart, msgEnd int, err error) {
	data, err := m.MarshalJSON()
	if err != nil {
		return nil, 0, 0, fmt.Errorf("encode %s message: %w", m.Role(), err)
	}
	var w lineWriter
	w.b = make([]byte, 0, len(data)+128)
	w.start(TypeMessage)
	w.tree(id, parentID, ts)
	w.b = append(w.b, `,"message":`...)
	msgStart = len(w.b)
	w.b = append(w.b, data...)
	msgEnd = len(w.b)
	return w.end(), msgStart, msgEnd, nil
}

// messageText is the text of a message's text blocks joined by sep, for previews.
func messageText(m provider.Message, sep string) string {
	switch x := m.(type) {
	case *provider.UserMessage:
		return provider.TextOf(x.Content, sep)
	case *provider.AssistantMessage:
		return provider.TextOf(x.Content, sep)
	case *provider.CustomMessage:
		return provider.TextOf(x.Content, sep)
	}
	return ""
}
