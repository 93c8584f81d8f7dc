package session

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
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
	// TypeContextEdit (pi 1.6) omits or replaces an earlier entry's messages in the model context of
	// the branch it is on; the target entry itself is never changed.
	TypeContextEdit = "context_edit"
	// TypeUsage (pi 1.6) records tokens a model was billed outside the conversation (a cache warm-up,
	// say): counted in the session's totals, never part of the context.
	TypeUsage = "usage"
)

// Header is the first line of a session file.
type Header struct {
	Version       int // 1 when the file has no version field
	ID            string
	Timestamp     string // ISO-8601
	Cwd           string
	ParentSession string // path of the session this one was forked from; "" when none
}

// Entry is one line after the header. Common fields first; then the fields of each type (in
// *entryFields, promoted: e.Summary, e.Label and so on), zero for the other types. A message entry's
// message is decoded on first use (Message), because a resumed session may hold tens of megabytes of
// messages it never needs. An Entry is immutable once created.
//
// Message entries, nearly all of a long session's, have none of the per-type fields: they all share
// one zero entryFields (noFields), which keeps an entry at about a third of its size when every field
// was its own (176 bytes instead of 512, 7 MB over a 20,000-entry session).
type Entry struct {
	Type      string
	ID        string
	ParentID  string // "" for a root (null in the file)
	Timestamp string // ISO-8601, milliseconds, UTC

	// message: the role, read without decoding the message.
	Role string

	*entryFields // the per-type fields; never nil for an entry made by this package

	// loc says where the entry's line is; it changes when a pending entry is written, and may be
	// read meanwhile by another goroutine (Raw, Message), hence the atomic cell. msgStart/msgEnd
	// delimit the message inside the line.
	loc          *locCell
	msgStart     int
	msgEnd       int
	lineNo       int
	asstProvider string // provider and model of an assistant message, for BuildContext
	asstModel    string
	usage        *provider.Usage // billed usage (see Usage), for totals without decoding
	msg          *msgCache       // message entries only
}

// entryFields are the fields of the entry types other than message.
type entryFields struct {
	// thinking_level_change
	ThinkingLevel string
	// model_change, and usage (ModelID holds its "model")
	Provider, ModelID string
	// usage: what the tokens were spent on (any value: pi adds kinds) and an optional note; the
	// tokens are Usage()
	Kind, Note string
	// compaction (Summary, FirstKeptEntryID, TokensBefore, Details, FromHook) and
	// branch_summary (Summary, FromID, Details, FromHook)
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	FromID           string
	FromHook         bool
	// Details of compaction, branch_summary and custom_message entries; nil when absent.
	Details json.RawMessage
	// SystemMessage of a compaction: the replayed prompt and tool declarations at that point (pi 1.6),
	// raw as in the file; nil when absent (older entries).
	SystemMessage json.RawMessage
	// custom (CustomType, Data) and custom_message (CustomType, Content, ContentIsString, Display, Details)
	CustomType      string
	Data            json.RawMessage // nil when absent
	Content         []provider.Content
	ContentIsString bool
	Display         bool
	// label (TargetID, Label: "" clears the label of TargetID) and context_edit (TargetID, Replacement)
	TargetID string
	Label    string
	// Replacement of a context_edit: nil when the file says null (the target's messages leave the
	// context); see ValidEdit for an edit pi could not have written.
	Replacement *Replacement
	validEdit   bool
	// session_info
	Name string
}

// noFields is the entryFields of every message entry. Nothing writes to it: the per-type fields are
// set only on entries of other types, which get their own (fieldsFor).
var noFields = &entryFields{}

// fieldsFor returns the entryFields an entry of type typ starts with.
func fieldsFor(typ string) *entryFields {
	if typ == TypeMessage {
		return noFields
	}
	return &entryFields{}
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
	m, cached, err := e.decodeMessage(provider.UnmarshalMessage)
	if err != nil || cached {
		return m, err
	}
	return e.store(m), nil
}

// decodeMessage is the message of a message entry: the one already decoded (cached), or the entry's
// message decoded with decode.
func (e *Entry) decodeMessage(decode func([]byte) (provider.Message, error)) (m provider.Message, cached bool, err error) {
	if e.Type != TypeMessage {
		return nil, false, fmt.Errorf("entry %s is a %s entry, not a message", e.ID, e.Type)
	}
	if m := e.cached(); m != nil {
		return m, true, nil
	}
	line, err := e.Raw()
	if err != nil {
		return nil, false, err
	}
	m, err = decode(line[e.msgStart:e.msgEnd])
	if err != nil {
		return nil, false, fmt.Errorf("entry %s: %w", e.ID, err)
	}
	return m, false, nil
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

// Replacement is the new content a context_edit gives its target: a string (IsString, one text
// block in Content) or content blocks.
type Replacement struct {
	Content  []provider.Content
	IsString bool
}

// ValidEdit reports whether a context_edit entry has a replacement pi could apply: null, or an
// object whose content is a string or an array. pi never writes others; a hand-made one is ignored
// when the context is built (pi would fail on it).
func (e *Entry) ValidEdit() bool { return e.Type == TypeContextEdit && e.validEdit }

// Usage returns the usage an entry was billed, as pi 1.6 counts it in session totals: an assistant
// message's, a tool result's that reports one, a usage entry's, and a compaction's or branch
// summary's (their summary requests). It does not decode messages; ok is false for other entries.
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
func internType(b []byte) string {
	switch string(b) {
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
	case TypeContextEdit:
		return TypeContextEdit
	case TypeUsage:
		return TypeUsage
	}
	return string(b)
}

func internRole(b []byte) string {
	switch string(b) {
	case provider.RoleSystem:
		return provider.RoleSystem
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
	return string(b)
}
