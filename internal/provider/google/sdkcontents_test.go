package google

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/pi-go/pi-go/internal/provider"
)

// The transcript as the SDK's contents: pi-go's conversion until contents.go wrote the contents
// itself, kept as the reference TestContentsMatchTheSDK holds contents.go to (the SDK encodes these).

// sdkContents is pi's convertMessages for Gemini: text, thinking (as thought parts, with their
// signatures, for the model that wrote them) and function calls; tool results as function responses,
// consecutive ones in one user turn.
func sdkContents(req *provider.Request) ([]*genai.Content, error) {
	m := req.Model
	normalize := func(id string) string {
		if !requiresToolCallID(m.ID) {
			return id
		}
		s := nonIDChars.ReplaceAllString(id, "_")
		if len(s) > 64 {
			s = s[:64]
		}
		return s
	}
	msgs := provider.TransformMessages(req.Messages, m, normalize)
	withIDs := requiresToolCallID(m.ID)
	images := m.SupportsImages()
	var contents []*genai.Content
	for _, msg := range msgs {
		switch msg := msg.(type) {
		case *provider.UserMessage:
			var parts []*genai.Part
			for _, c := range msg.Content {
				switch c.Type {
				case provider.ContentText:
					parts = append(parts, &genai.Part{Text: c.Text})
				case provider.ContentImage:
					p, err := imagePart(c)
					if err != nil {
						return nil, err
					}
					parts = append(parts, p)
				}
			}
			if len(parts) == 0 {
				continue
			}
			contents = append(contents, &genai.Content{Role: "user", Parts: parts})
		case *provider.AssistantMessage:
			parts, err := assistantParts(msg, m, withIDs)
			if err != nil {
				return nil, err
			}
			if len(parts) == 0 {
				continue
			}
			contents = append(contents, &genai.Content{Role: "model", Parts: parts})
		case *provider.ToolResultMessage:
			var err error
			contents, err = appendToolResult(contents, msg, m, images, withIDs)
			if err != nil {
				return nil, err
			}
		}
	}
	return contents, nil
}

func imagePart(c provider.Content) (*genai.Part, error) {
	data, err := base64.StdEncoding.DecodeString(c.Data)
	if err != nil {
		return nil, fmt.Errorf("image data is not base64: %w", err)
	}
	return &genai.Part{InlineData: &genai.Blob{MIMEType: c.MimeType, Data: data}}, nil
}

func assistantParts(msg *provider.AssistantMessage, m *provider.Model, withIDs bool) ([]*genai.Part, error) {
	same := msg.Provider == m.Provider && msg.Model == m.ID
	var parts []*genai.Part
	for _, c := range msg.Content {
		switch c.Type {
		case provider.ContentText:
			sig := signature(same, c.TextSignature)
			// An empty text carrying a signature goes back: Gemini wants its signatures echoed.
			if strings.TrimSpace(c.Text) == "" && sig == nil {
				continue
			}
			parts = append(parts, &genai.Part{Text: c.Text, ThoughtSignature: sig})
		case provider.ContentThinking:
			if !same {
				if strings.TrimSpace(c.Thinking) != "" {
					parts = append(parts, &genai.Part{Text: c.Thinking})
				}
				continue
			}
			sig := signature(same, c.ThinkingSignature)
			if strings.TrimSpace(c.Thinking) == "" && sig == nil {
				continue
			}
			parts = append(parts, &genai.Part{Thought: true, Text: c.Thinking, ThoughtSignature: sig})
		case provider.ContentToolCall:
			args := map[string]any{}
			if raw := bytes.TrimSpace(c.Arguments); len(raw) > 0 {
				if err := json.Unmarshal(raw, &args); err != nil {
					return nil, fmt.Errorf("tool call %s arguments: %w", c.ID, err)
				}
			}
			call := &genai.FunctionCall{Name: c.Name, Args: args}
			if withIDs {
				call.ID = c.ID
			}
			parts = append(parts, &genai.Part{FunctionCall: call, ThoughtSignature: signature(same, c.ThoughtSignature)})
		}
	}
	return parts, nil
}

// appendToolResult adds a function response, to the previous user turn when that one holds function
// responses already.
func appendToolResult(contents []*genai.Content, msg *provider.ToolResultMessage, m *provider.Model,
	images, withIDs bool) ([]*genai.Content, error) {
	var texts []string
	var imgs []*genai.Part
	for _, c := range msg.Content {
		switch c.Type {
		case provider.ContentText:
			texts = append(texts, c.Text)
		case provider.ContentImage:
			if !images {
				continue
			}
			p, err := imagePart(c)
			if err != nil {
				return nil, err
			}
			imgs = append(imgs, p)
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
	resp := &genai.FunctionResponse{Name: msg.ToolName, Response: map[string]any{key: value}}
	nested := multimodalFunctionResponses(m.ID)
	if len(imgs) > 0 && nested {
		for _, p := range imgs {
			resp.Parts = append(resp.Parts, &genai.FunctionResponsePart{
				InlineData: &genai.FunctionResponseBlob{MIMEType: p.InlineData.MIMEType, Data: p.InlineData.Data}})
		}
	}
	if withIDs {
		resp.ID = msg.ToolCallID
	}
	part := &genai.Part{FunctionResponse: resp}
	if n := len(contents); n > 0 && contents[n-1].Role == "user" && hasFunctionResponse(contents[n-1]) {
		contents[n-1].Parts = append(contents[n-1].Parts, part)
	} else {
		contents = append(contents, &genai.Content{Role: "user", Parts: []*genai.Part{part}})
	}
	if len(imgs) > 0 && !nested {
		contents = append(contents, &genai.Content{Role: "user",
			Parts: append([]*genai.Part{{Text: "Tool result image:"}}, imgs...)})
	}
	return contents, nil
}

func hasFunctionResponse(c *genai.Content) bool {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}
