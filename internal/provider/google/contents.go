package google

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pi-go/pi-go/internal/provider"
)

// The transcript is written as the request's "contents" by this package, not by the SDK: the SDK
// turns every content into a map and encodes the maps again on every request, which cost the 40 MB
// transcript of a 5,000-turn session most of a second per request. The bytes are the SDK's (keys in
// alphabetical order, HTML characters escaped, numbers and byte strings as encoding/json writes them;
// TestContentsMatchTheSDK compares them), and a session's next request writes only the contents
// after the last prompt both transcripts share (contentsCache).

// contentsWriter converts a normalised transcript into encoded contents (pi's convertMessages for
// Gemini): text, thinking (as thought parts, with their signatures, for the model that wrote them)
// and function calls; tool results as function responses, consecutive ones in one user turn.
type contentsWriter struct {
	m       *provider.Model
	withIDs bool // function calls and responses carry their ids
	images  bool // the model reads images
	nested  bool // images of a function response travel inside it
	// out holds the contents written; the last one stays open (parts without the closing
	// `],"role":…}`) while tool results may still join it.
	out      [][]byte
	openRole string // role of the open content, "" when none is open
	openFR   bool   // the open content holds function responses
}

func newContentsWriter(m *provider.Model) *contentsWriter {
	return &contentsWriter{m: m, withIDs: requiresToolCallID(m.ID), images: m.SupportsImages(),
		nested: multimodalFunctionResponses(m.ID)}
}

// normalizeID makes another provider's tool-call id fit models that need ids.
func normalizeID(m *provider.Model) func(string) string {
	return func(id string) string {
		if !requiresToolCallID(m.ID) {
			return id
		}
		s := nonIDChars.ReplaceAllString(id, "_")
		if len(s) > 64 {
			s = s[:64]
		}
		return s
	}
}

// write converts msgs (already through provider.TransformMessages). afterUser, unless nil, is called
// after each user message with whether it closed the contents written so far: a user message that
// becomes a content of its own ends a run of tool results, and nothing after it changes them.
func (w *contentsWriter) write(msgs []provider.Message, afterUser func(closed bool)) error {
	for _, msg := range msgs {
		switch msg := msg.(type) {
		case *provider.UserMessage:
			var parts [][]byte
			for _, c := range msg.Content {
				switch c.Type {
				case provider.ContentText:
					parts = append(parts, textPart(c.Text, false, nil))
				case provider.ContentImage:
					p, err := inlineDataPart(c.Data, c.MimeType)
					if err != nil {
						return err
					}
					parts = append(parts, p)
				}
			}
			if len(parts) > 0 {
				w.content("user", false, parts...)
				w.close()
			}
			if afterUser != nil {
				afterUser(len(parts) > 0)
			}
		case *provider.AssistantMessage:
			parts, err := w.assistantParts(msg)
			if err != nil {
				return err
			}
			if len(parts) > 0 {
				w.content("model", false, parts...)
			}
		case *provider.ToolResultMessage:
			if err := w.toolResult(msg); err != nil {
				return err
			}
		}
	}
	w.close()
	return nil
}

// content adds parts to the open content when it has role and (for function responses) holds
// function responses, else starts a new content.
func (w *contentsWriter) content(role string, functionResponses bool, parts ...[]byte) {
	if w.openRole != role || !functionResponses || !w.openFR {
		w.close()
		size := len(`{"parts":[],"role":"model"}`) + len(parts)
		for _, p := range parts {
			size += len(p)
		}
		w.out = append(w.out, append(make([]byte, 0, size), `{"parts":[`...))
		w.openRole, w.openFR = role, false
	} else {
		w.out[len(w.out)-1] = append(w.out[len(w.out)-1], ',')
	}
	last := &w.out[len(w.out)-1]
	for i, p := range parts {
		if i > 0 {
			*last = append(*last, ',')
		}
		*last = append(*last, p...)
	}
	w.openFR = w.openFR || functionResponses
}

// close ends the open content.
func (w *contentsWriter) close() {
	if w.openRole == "" {
		return
	}
	last := &w.out[len(w.out)-1]
	*last = append(*last, `],"role":`...)
	*last = appendSDKString(*last, w.openRole)
	*last = append(*last, '}')
	w.openRole, w.openFR = "", false
}

func (w *contentsWriter) assistantParts(msg *provider.AssistantMessage) ([][]byte, error) {
	same := msg.Provider == w.m.Provider && msg.Model == w.m.ID
	var parts [][]byte
	for _, c := range msg.Content {
		switch c.Type {
		case provider.ContentText:
			sig := signature(same, c.TextSignature)
			// An empty text carrying a signature goes back: Gemini wants its signatures echoed.
			if strings.TrimSpace(c.Text) == "" && sig == nil {
				continue
			}
			parts = append(parts, textPart(c.Text, false, sig))
		case provider.ContentThinking:
			if !same {
				if strings.TrimSpace(c.Thinking) != "" {
					parts = append(parts, textPart(c.Thinking, false, nil))
				}
				continue
			}
			sig := signature(same, c.ThinkingSignature)
			if strings.TrimSpace(c.Thinking) == "" && sig == nil {
				continue
			}
			parts = append(parts, textPart(c.Thinking, true, sig))
		case provider.ContentToolCall:
			args := map[string]any{}
			if raw := bytes.TrimSpace(c.Arguments); len(raw) > 0 {
				if err := json.Unmarshal(raw, &args); err != nil {
					return nil, fmt.Errorf("tool call %s arguments: %w", c.ID, err)
				}
			}
			p := []byte(`{"functionCall":{`)
			n := len(p)
			if len(args) > 0 {
				// The SDK's own encoding of the arguments: encoding/json, keys sorted.
				data, err := json.Marshal(args)
				if err != nil {
					return nil, fmt.Errorf("tool call %s arguments: %w", c.ID, err)
				}
				p = append(append(p, `"args":`...), data...)
			}
			if w.withIDs {
				p = appendSDKField(p, n, "id", c.ID)
			}
			p = appendSDKField(p, n, "name", c.Name)
			p = append(p, '}')
			if sig := signature(same, c.ThoughtSignature); sig != nil {
				p = append(p, `,"thoughtSignature":`...)
				p = appendBase64(p, sig)
			}
			parts = append(parts, append(p, '}'))
		}
	}
	return parts, nil
}

// toolResult adds a function response, to the open user content when that one holds function
// responses already; a model that does not take images inside function responses gets them in a
// user content after it.
func (w *contentsWriter) toolResult(msg *provider.ToolResultMessage) error {
	var texts []string
	var imgs []provider.Content
	for _, c := range msg.Content {
		switch c.Type {
		case provider.ContentText:
			texts = append(texts, c.Text)
		case provider.ContentImage:
			if w.images {
				if _, err := base64.StdEncoding.DecodeString(c.Data); err != nil {
					return fmt.Errorf("image data is not base64: %w", err)
				}
				imgs = append(imgs, c)
			}
		}
	}
	text := strings.Join(texts, "\n")
	value := text
	if strings.TrimSpace(text) == "" {
		value = ""
		if len(imgs) > 0 {
			value = "(see attached image)"
		}
	}
	key := "output"
	if msg.IsError {
		key = "error"
	}
	p := append(make([]byte, 0, len(value)+len(value)/16+len(msg.ToolName)+len(msg.ToolCallID)+64), `{"functionResponse":{`...)
	n := len(p)
	if w.withIDs {
		p = appendSDKField(p, n, "id", msg.ToolCallID)
	}
	p = appendSDKField(p, n, "name", msg.ToolName)
	if len(imgs) > 0 && w.nested {
		p = append(p, `,"parts":[`...)
		for i, c := range imgs {
			if i > 0 {
				p = append(p, ',')
			}
			blob, err := inlineDataPart(c.Data, c.MimeType)
			if err != nil {
				return err
			}
			p = append(p, blob...)
		}
		p = append(p, ']')
	}
	if len(p) > n {
		p = append(p, ',')
	}
	p = append(p, `"response":{`...)
	p = appendSDKString(p, key)
	p = append(p, ':')
	p = appendSDKString(p, value)
	p = append(p, "}}}"...)
	w.content("user", true, p)
	if len(imgs) > 0 && !w.nested {
		parts := [][]byte{textPart("Tool result image:", false, nil)}
		for _, c := range imgs {
			blob, err := inlineDataPart(c.Data, c.MimeType)
			if err != nil {
				return err
			}
			parts = append(parts, blob)
		}
		w.content("user", false, parts...)
	}
	return nil
}

// textPart is a text part; the SDK leaves out an empty text, a false thought and no signature.
func textPart(text string, thought bool, sig []byte) []byte {
	p := append(make([]byte, 0, len(text)+len(text)/16+base64.StdEncoding.EncodedLen(len(sig))+48), '{')
	if text != "" {
		p = append(p, `"text":`...)
		p = appendSDKString(p, text)
	}
	if thought {
		p = appendComma(p, 1)
		p = append(p, `"thought":true`...)
	}
	if sig != nil {
		p = appendComma(p, 1)
		p = append(p, `"thoughtSignature":`...)
		p = appendBase64(p, sig)
	}
	return append(p, '}')
}

// inlineDataPart is an image: its base64 decoded and encoded again, as the SDK's bytes are.
func inlineDataPart(data, mimeType string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("image data is not base64: %w", err)
	}
	p := []byte(`{"inlineData":{`)
	n := len(p)
	if len(raw) > 0 {
		p = append(p, `"data":`...)
		p = appendBase64(p, raw)
	}
	p = appendSDKField(p, n, "mimeType", mimeType)
	return append(p, "}}"...), nil
}

// appendSDKField appends `"key":"value"` unless value is empty (the SDK's omitempty), with a comma
// when something follows the object's start at n.
func appendSDKField(p []byte, n int, key, value string) []byte {
	if value == "" {
		return p
	}
	p = appendComma(p, n)
	p = append(p, '"')
	p = append(p, key...)
	p = append(p, `":`...)
	return appendSDKString(p, value)
}

func appendComma(p []byte, n int) []byte {
	if len(p) > n {
		return append(p, ',')
	}
	return p
}

func appendBase64(p []byte, b []byte) []byte {
	p = append(p, '"')
	p = base64.StdEncoding.AppendEncode(p, b)
	return append(p, '"')
}
