package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// RoleSystem is the role of the messages that carry the system prompt and the tool declarations in
// the transcript (pi 1.6). Replaying them in order gives the prompt and the tools of the next request.
const RoleSystem = "system"

// PromptSection is one named part of a structured system prompt. In a patch, Removed drops the
// section the name stands for (null in pi's JSON) and Text is empty.
type PromptSection struct {
	Name    string
	Text    string
	Removed bool
}

// SystemMessage declares prompt and tool state. The first one of a session holds every section and
// tool; later ones patch it: Content is appended to the prompt, Sections replace or remove sections by
// name, ToolsAdded and ToolsRemoved change the tool set.
type SystemMessage struct {
	// Content is free prompt text; pi's structured prompt leaves it empty ("") and uses Sections.
	Content         []Content
	ContentIsString bool
	Sections        []PromptSection
	ToolsAdded      []ToolDefinition
	// ToolsRemoved are tool names (written as [{"name":…}]).
	ToolsRemoved []string
	Timestamp    int64
	// TimestampLast writes timestamp after the tool fields, the key order of a compaction's replayed
	// checkpoint (pi builds it field by field) as opposed to a message pi appended.
	TimestampLast bool
	Extra         map[string]json.RawMessage
}

// NewSystemMessage returns a system message with empty string content, as pi creates them.
func NewSystemMessage(timestamp int64) *SystemMessage {
	return &SystemMessage{Content: []Content{TextContent("")}, ContentIsString: true, Timestamp: timestamp}
}

func (*SystemMessage) Role() string     { return RoleSystem }
func (m *SystemMessage) Time() int64    { return m.Timestamp }
func (*SystemMessage) isMessage()       {}
func (m *SystemMessage) Text() string   { return TextOf(m.Content, "\n") }
func (m *SystemMessage) hasTools() bool { return len(m.ToolsAdded) > 0 || len(m.ToolsRemoved) > 0 }

// Section returns the text of the named section and whether the message sets it (a removal does not).
func (m *SystemMessage) Section(name string) (string, bool) {
	for _, s := range m.Sections {
		if s.Name == name {
			return s.Text, !s.Removed
		}
	}
	return "", false
}

// MarshalJSON writes pi's key order: role, content, sections, timestamp, toolsAdded, toolsRemoved
// (timestamp last for a checkpoint, see TimestampLast).
func (m *SystemMessage) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	w := newObj(&b, RoleSystem)
	content := m.Content
	if content == nil {
		content = []Content{TextContent("")}
	}
	w.content("content", content, m.ContentIsString || m.Content == nil)
	if m.Sections != nil {
		w.key("sections")
		appendSections(&b, m.Sections)
	}
	if !m.TimestampLast {
		w.int("timestamp", m.Timestamp)
	}
	if m.ToolsAdded != nil {
		w.key("toolsAdded")
		if err := appendToolDeclarations(&b, m.ToolsAdded); err != nil && w.err == nil {
			w.err = err
		}
	}
	if m.ToolsRemoved != nil {
		w.key("toolsRemoved")
		b.WriteByte('[')
		for i, name := range m.ToolsRemoved {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"name":`)
			writeJSONString(&b, name)
			b.WriteByte('}')
		}
		b.WriteByte(']')
	}
	if m.TimestampLast {
		w.int("timestamp", m.Timestamp)
	}
	return w.end(m.Extra)
}

func appendSections(b *bytes.Buffer, sections []PromptSection) {
	b.WriteByte('{')
	for i, s := range sections {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, s.Name)
		b.WriteByte(':')
		if s.Removed {
			b.WriteString("null")
		} else {
			writeJSONString(b, s.Text)
		}
	}
	b.WriteByte('}')
}

// ToolDeclarationsJSON is tools as a system message's toolsAdded holds them.
func ToolDeclarationsJSON(tools []ToolDefinition) ([]byte, error) {
	var b bytes.Buffer
	err := appendToolDeclarations(&b, tools)
	return b.Bytes(), err
}

// appendToolDeclarations writes tools as pi persists them: name, description, parameters and, when
// set, constrainedSampling.
func appendToolDeclarations(b *bytes.Buffer, tools []ToolDefinition) error {
	b.WriteByte('[')
	for i := range tools {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := appendToolDeclaration(b, &tools[i]); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

func appendToolDeclaration(b *bytes.Buffer, t *ToolDefinition) error {
	b.WriteString(`{"name":`)
	writeJSONString(b, t.Name)
	b.WriteString(`,"description":`)
	writeJSONString(b, t.Description)
	b.WriteString(`,"parameters":`)
	if err := compactRaw(b, t.Parameters, "{}"); err != nil {
		return fmt.Errorf("tool %s parameters: %w", t.Name, err)
	}
	if len(bytes.TrimSpace(t.ConstrainedSampling)) > 0 {
		b.WriteString(`,"constrainedSampling":`)
		if err := compactRaw(b, t.ConstrainedSampling, ""); err != nil {
			return fmt.Errorf("tool %s constrainedSampling: %w", t.Name, err)
		}
	}
	b.WriteByte('}')
	return nil
}

// compactRaw writes raw compacted, or empty when raw is blank.
func compactRaw(b *bytes.Buffer, raw json.RawMessage, empty string) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		b.WriteString(empty)
		return nil
	}
	return json.Compact(b, raw)
}
