package provider

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// unmarshalSystemMessage decodes a system message. Its sections are an object whose key order is the
// prompt's order, so the message is read key by key with the scanner rather than into a map. A null
// field is absent, as everywhere in unmarshalMessage; a missing or null content is "", as pi reads it.
func unmarshalSystemMessage(data []byte) (*SystemMessage, error) {
	var s jsonx.Scanner
	s.Reset(data)
	m := &SystemMessage{}
	toolsSeen := false
	fail := func(key, format string, args ...any) {
		s.Fail(fmt.Errorf("field %q: %s", key, fmt.Sprintf(format, args...)))
	}
	s.Object(func(k []byte) {
		key := string(k)
		if s.Peek() == 'n' && key != "role" {
			s.Skip() // null: absent
			if key == "timestamp" {
				m.TimestampLast = toolsSeen
			}
			return
		}
		switch key {
		case "role":
			s.Skip()
		case "content":
			c, isString, err := UnmarshalContent(s.Raw())
			if err != nil {
				fail(key, "%v", err)
				return
			}
			m.Content, m.ContentIsString = c, isString
		case "sections":
			if s.Peek() != '{' {
				fail(key, "not an object")
				return
			}
			m.Sections = []PromptSection{}
			s.Object(func(k []byte) {
				name := string(k) // k is valid only until the next string is read
				switch s.Peek() {
				case 'n':
					s.Skip()
					m.Sections = append(m.Sections, PromptSection{Name: name, Removed: true})
				case '"':
					m.Sections = append(m.Sections, PromptSection{Name: name, Text: string(s.Str())})
				default:
					fail(key, "section %q is neither a string nor null", name)
				}
			})
		case "toolsAdded":
			toolsSeen = true
			m.ToolsAdded = []ToolDefinition{}
			if err := json.Unmarshal(s.Raw(), &m.ToolsAdded); err != nil && s.Err() == nil {
				fail(key, "%v", err)
			}
		case "toolsRemoved":
			toolsSeen = true
			var refs []struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(s.Raw(), &refs); err != nil && s.Err() == nil {
				fail(key, "%v", err)
				return
			}
			m.ToolsRemoved = make([]string, len(refs))
			for i, r := range refs {
				m.ToolsRemoved[i] = r.Name
			}
		case "timestamp":
			m.TimestampLast = toolsSeen
			raw := s.Raw()
			n, err := strconv.ParseInt(string(raw), 10, 64)
			if err != nil && s.Err() == nil {
				fail(key, "%s is not an integer", raw)
			}
			m.Timestamp = n
		default:
			raw := s.Raw()
			if m.Extra == nil {
				m.Extra = map[string]json.RawMessage{}
			}
			m.Extra[key] = append(json.RawMessage(nil), raw...)
		}
	})
	s.End()
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("system message: %w", err)
	}
	if m.Content == nil {
		m.Content, m.ContentIsString = []Content{TextContent("")}, true
	}
	return m, nil
}
