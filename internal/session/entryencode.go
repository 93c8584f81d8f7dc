package session

import (
	"encoding/json"
	"fmt"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
)

// lineWriter builds one entry line with pi's key order.
type lineWriter struct{ b []byte }

func (w *lineWriter) str(key, v string) {
	w.b = append(w.b, ',', '"')
	w.b = append(w.b, key...)
	w.b = append(w.b, '"', ':')
	w.b = jsonx.AppendString(w.b, v)
}

func (w *lineWriter) raw(key string, v []byte) {
	w.b = append(w.b, ',', '"')
	w.b = append(w.b, key...)
	w.b = append(w.b, '"', ':')
	w.b = append(w.b, v...)
}

func (w *lineWriter) start(typ string) {
	w.b = append(w.b, `{"type":`...)
	w.b = jsonx.AppendString(w.b, typ)
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

// Line is the header's line as the file holds it (without the newline).
func (h Header) Line() []byte { return headerLine(h) }

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
		return jsonx.AppendString(nil, content[0].Text), nil
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
		if e.usage != nil {
			w.raw("usage", usageJSON(*e.usage))
		}
		w.raw("fromHook", []byte(fmt.Sprint(e.FromHook)))
		if e.SystemMessage != nil {
			w.raw("systemMessage", e.SystemMessage)
		}
	case TypeBranchSummary:
		w.str("fromId", e.FromID)
		w.str("summary", e.Summary)
		if e.Details != nil {
			w.raw("details", e.Details)
		}
		if e.usage != nil {
			w.raw("usage", usageJSON(*e.usage))
		}
		w.raw("fromHook", []byte(fmt.Sprint(e.FromHook)))
	case TypeContextEdit:
		w.str("targetId", e.TargetID)
		if e.Replacement == nil {
			w.raw("replacement", []byte("null"))
			break
		}
		c, err := contentJSON(e.Replacement.Content, e.Replacement.IsString)
		if err != nil {
			return nil, err
		}
		w.b = append(w.b, `,"replacement":{"content":`...)
		w.b = append(w.b, c...)
		w.b = append(w.b, '}')
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

// usageJSON writes a usage object as pi does.
func usageJSON(u provider.Usage) []byte {
	b, _ := u.MarshalJSON() // never fails
	return b
}
