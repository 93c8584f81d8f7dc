// Package provider is the LLM vocabulary shared by every layer of pi-go: messages and their content
// blocks, the assistant stream events, models, the request a provider streams, and the Router that
// hands a request to the package speaking its model's API. It knows no loop, no tool, no UI and no
// vendor; vendors live in its sub-packages, which register with the Router.
package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Content block types, as pi writes them in the "type" field.
const (
	ContentText     = "text"
	ContentThinking = "thinking"
	ContentImage    = "image"
	ContentToolCall = "toolCall"
)

// Content is one content block of a message. Type selects which fields are meaningful; the JSON form
// carries exactly the fields pi writes for that type (see MarshalJSON).
type Content struct {
	Type string

	// text
	Text          string
	TextSignature string

	// thinking
	Thinking          string
	ThinkingSignature string
	Redacted          bool

	// image: base64 data
	Data     string
	MimeType string

	// toolCall. Arguments is always a JSON object ("{}" when empty).
	ID               string
	Name             string
	Arguments        json.RawMessage
	ThoughtSignature string

	// Streaming-only bookkeeping that pi shows on partial tool calls; never present on final messages.
	PartialArgs *string
	StreamIndex *int

	// Extra holds fields pi-go does not know, so a block read from a session file round-trips.
	Extra map[string]json.RawMessage
}

// TextContent returns a text block.
func TextContent(text string) Content { return Content{Type: ContentText, Text: text} }

// ImageContent returns an image block with base64 data.
func ImageContent(data, mimeType string) Content {
	return Content{Type: ContentImage, Data: data, MimeType: mimeType}
}

// ToolCallContent returns a tool-call block. A nil or empty args becomes "{}".
func ToolCallContent(id, name string, args json.RawMessage) Content {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	return Content{Type: ContentToolCall, ID: id, Name: name, Arguments: args}
}

// MarshalJSON writes the block in pi's field order with only the fields of its type.
func (c Content) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.Grow(64 + len(c.Text) + len(c.Thinking) + len(c.Data) + len(c.Arguments))
	b.WriteString(`{"type":`)
	writeJSONString(&b, c.Type)
	switch c.Type {
	case ContentText:
		b.WriteString(`,"text":`)
		writeJSONString(&b, c.Text)
		if c.TextSignature != "" {
			b.WriteString(`,"textSignature":`)
			writeJSONString(&b, c.TextSignature)
		}
	case ContentThinking:
		b.WriteString(`,"thinking":`)
		writeJSONString(&b, c.Thinking)
		if c.ThinkingSignature != "" {
			b.WriteString(`,"thinkingSignature":`)
			writeJSONString(&b, c.ThinkingSignature)
		}
		if c.Redacted {
			b.WriteString(`,"redacted":true`)
		}
	case ContentImage:
		b.WriteString(`,"data":`)
		writeJSONString(&b, c.Data)
		b.WriteString(`,"mimeType":`)
		writeJSONString(&b, c.MimeType)
	case ContentToolCall:
		b.WriteString(`,"id":`)
		writeJSONString(&b, c.ID)
		b.WriteString(`,"name":`)
		writeJSONString(&b, c.Name)
		b.WriteString(`,"arguments":`)
		args := bytes.TrimSpace(c.Arguments)
		if len(args) == 0 {
			b.WriteString("{}")
		} else {
			if err := json.Compact(&b, args); err != nil {
				return nil, fmt.Errorf("tool call %s arguments: %w", c.ID, err)
			}
		}
		if c.ThoughtSignature != "" {
			b.WriteString(`,"thoughtSignature":`)
			writeJSONString(&b, c.ThoughtSignature)
		}
		if c.PartialArgs != nil {
			b.WriteString(`,"partialArgs":`)
			writeJSONString(&b, *c.PartialArgs)
		}
		if c.StreamIndex != nil {
			fmt.Fprintf(&b, `,"streamIndex":%d`, *c.StreamIndex)
		}
	}
	if err := writeExtra(&b, c.Extra); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads any of pi's block types; unknown fields are kept in Extra.
func (c *Content) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("content block: %w", err)
	}
	*c = Content{}
	take := func(key string, dst any) error {
		v, ok := raw[key]
		if !ok {
			return nil
		}
		delete(raw, key)
		if string(v) == "null" {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return fmt.Errorf("content block field %q: %w", key, err)
		}
		return nil
	}
	if err := take("type", &c.Type); err != nil {
		return err
	}
	var err error
	switch c.Type {
	case ContentText:
		err = firstErr(take("text", &c.Text), take("textSignature", &c.TextSignature))
	case ContentThinking:
		err = firstErr(take("thinking", &c.Thinking), take("thinkingSignature", &c.ThinkingSignature),
			take("redacted", &c.Redacted))
	case ContentImage:
		err = firstErr(take("data", &c.Data), take("mimeType", &c.MimeType))
	case ContentToolCall:
		err = firstErr(take("id", &c.ID), take("name", &c.Name), take("thoughtSignature", &c.ThoughtSignature))
		if v, ok := raw["arguments"]; ok {
			delete(raw, "arguments")
			v = bytes.TrimSpace(v)
			if len(v) == 0 || string(v) == "null" {
				v = json.RawMessage("{}")
			}
			c.Arguments = append(json.RawMessage(nil), v...)
		} else {
			c.Arguments = json.RawMessage("{}")
		}
		if err == nil {
			var pa string
			if _, ok := raw["partialArgs"]; ok {
				err = take("partialArgs", &pa)
				c.PartialArgs = &pa
			}
			if _, ok := raw["streamIndex"]; ok && err == nil {
				var si int
				err = take("streamIndex", &si)
				c.StreamIndex = &si
			}
		}
	}
	if err != nil {
		return err
	}
	if len(raw) > 0 {
		c.Extra = raw
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// TextOf joins the text blocks of content with sep.
func TextOf(content []Content, sep string) string {
	var b bytes.Buffer
	n := 0
	for _, c := range content {
		if c.Type != ContentText {
			continue
		}
		if n > 0 {
			b.WriteString(sep)
		}
		b.WriteString(c.Text)
		n++
	}
	return b.String()
}

// CloneContent returns a copy of the slice whose elements can be changed without touching blocks. Strings
// and raw JSON are immutable in practice and shared.
func CloneContent(content []Content) []Content {
	if content == nil {
		return nil
	}
	out := make([]Content, len(content))
	copy(out, content)
	return out
}
