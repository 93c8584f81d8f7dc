package session

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

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
