package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
)

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
	var s jsonx.Scanner
	s.Reset(line)
	if s.Peek() != '{' {
		s.Skip()
		s.End()
		if s.Err() == nil {
			// valid JSON that is not an object is still "parsed" for pi; it is no entry for us
			return p, errNotEntry
		}
		return p, lineError(s.Err())
	}
	s.Object(func(key []byte) {
		s.Peek()
		start := s.Pos()
		switch string(key) {
		case "type", "id", "parentId", "timestamp":
			isStr := s.Peek() == '"'
			v := s.Str()
			switch string(key) {
			case "type":
				if isStr {
					p.typ = internType(v)
				}
			case "id":
				p.id, p.hasID = string(v), isStr
			case "parentId":
				p.parentID = string(v)
			case "timestamp":
				p.ts = string(v)
			}
		case "message":
			if head != nil && s.Peek() == '{' {
				*head = scanMessageHead(&s)
			} else {
				s.Skip()
			}
			p.msgStart, p.msgEnd = start, s.Pos()
		default:
			s.Skip()
			p.rest = append(p.rest, span{string(key), start, s.Pos()})
		}
	})
	s.End()
	if err := s.Err(); err != nil {
		return p, lineError(err)
	}
	if p.typ == "" {
		return p, errNotEntry
	}
	return p, nil
}

// lineError places a syntax error in its line.
func lineError(err error) error {
	var se *jsonx.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("offset %d: %w", se.Offset, se)
	}
	return err
}

// msgHead is what loading needs of a message without decoding it.
type msgHead struct {
	usage                 *provider.Usage
	role, provider, model string
	timestamp             int64
	hasTimestamp          bool // a numeric timestamp
	hasContent            bool
}

// scanMessageHead reads role, provider, model, usage and timestamp of a message object; the other
// values are only delimited (SkipLoose), they are checked when the message is decoded.
func scanMessageHead(s *jsonx.Scanner) msgHead {
	var h msgHead
	s.Object(func(key []byte) {
		switch c := s.Peek(); {
		case (string(key) == "role" || string(key) == "provider" || string(key) == "model") && c == '"':
			v := s.Str()
			switch string(key) {
			case "role":
				h.role = internRole(v)
			case "provider":
				h.provider = string(v)
			case "model":
				h.model = string(v)
			}
		case string(key) == "usage" && c == '{':
			start := s.Pos()
			u := &provider.Usage{}
			if !provider.DecodeUsage(s, u) && s.Err() == nil {
				// unusual keys or numbers: decode it the way provider does
				*u = provider.Usage{}
				if json.Unmarshal(s.Input()[start:s.Pos()], u) != nil {
					u = nil
				}
			}
			h.usage = u
		case string(key) == "timestamp" && (c == '-' || (c >= '0' && c <= '9')):
			if f, err := strconv.ParseFloat(string(s.Raw()), 64); err == nil {
				h.timestamp, h.hasTimestamp = int64(f), true
			}
		default:
			if string(key) == "content" {
				h.hasContent = true
			}
			s.SkipLoose()
		}
	})
	return h
}

// fill decodes the type-specific fields of a non-message entry. Fields of the wrong JSON type are left
// zero: the line stays a valid entry, as it is for pi.
func (e *Entry) fill(line []byte, rest []span) {
	var s jsonx.Scanner
	for _, f := range rest {
		raw := line[f.start:f.end]
		s.Reset(raw)
		str := func() string {
			if s.Peek() != '"' {
				return ""
			}
			return string(s.Str())
		}
		switch f.key {
		case "thinkingLevel":
			if e.Type == TypeThinkingLevelChange {
				e.ThinkingLevel = str()
			}
		case "provider":
			if e.Type == TypeModelChange || e.Type == TypeUsage {
				e.Provider = str()
			}
		case "modelId":
			if e.Type == TypeModelChange {
				e.ModelID = str()
			}
		case "model":
			if e.Type == TypeUsage {
				e.ModelID = str()
			}
		case "kind":
			e.Kind = str()
		case "note":
			e.Note = str()
		case "usage":
			if (e.Type == TypeUsage || e.Type == TypeCompaction || e.Type == TypeBranchSummary) && len(raw) > 0 && raw[0] == '{' {
				u := &provider.Usage{}
				if json.Unmarshal(raw, u) == nil {
					e.usage = u
				}
			}
		case "replacement":
			if e.Type == TypeContextEdit {
				e.Replacement, e.validEdit = decodeReplacement(raw)
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
		case "systemMessage":
			if e.Type == TypeCompaction && len(raw) > 0 && raw[0] == '{' {
				e.SystemMessage = json.RawMessage(raw)
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

// decodeReplacement reads a context_edit's replacement: null, or {content: string | blocks}. ok is
// false for anything else.
func decodeReplacement(raw []byte) (r *Replacement, ok bool) {
	if string(raw) == "null" {
		return nil, true
	}
	var obj struct {
		Content json.RawMessage `json:"content"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return nil, false
	}
	if c := obj.Content; len(c) == 0 || (c[0] != '"' && c[0] != '[') {
		return nil, false
	}
	content, isString, err := provider.UnmarshalContent(obj.Content)
	if err != nil {
		return nil, false
	}
	return &Replacement{Content: content, IsString: isString}, true
}

// decodeContent reads a string-or-blocks content value as provider does for custom messages.
func decodeContent(raw []byte) ([]provider.Content, bool) {
	content, isString, err := provider.UnmarshalContent(raw)
	if err != nil {
		return nil, false
	}
	return content, isString
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
