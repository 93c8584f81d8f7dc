package demo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// refChatRequest is the part of an OpenAI chat-completions request body the demo reads.
type refChatRequest struct {
	Model         string           `json:"model"`
	Messages      []refWireMessage `json:"messages"`
	Tools         []wireTool       `json:"tools"`
	Stream        bool             `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ReasoningEffort    string `json:"reasoning_effort"`
	EnableThinking     *bool  `json:"enable_thinking"`
	ChatTemplateKwargs *struct {
		EnableThinking *bool `json:"enable_thinking"`
	} `json:"chat_template_kwargs"`
	MaxCompletionTokens int `json:"max_completion_tokens"`
	MaxTokens           int `json:"max_tokens"`
}

type refWireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []wireToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

// referenceParse is the demo's request decoder before it streamed: encoding/json over the whole body.
// The streaming decoder must agree with it on every body.
func referenceParse(body []byte) (*conversation, error) {
	var req refChatRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		return nil, &requestError{Message: fmt.Sprintf("We could not parse the JSON body of your request: %v. "+
			"(The demo model expects an OpenAI chat-completions request.)", err)}
	}
	if req.Model == "" {
		return nil, &requestError{Message: "you must provide a model parameter", Param: "model"}
	}
	if req.Messages == nil {
		return nil, &requestError{Message: "Missing required parameter: 'messages'.", Param: "messages"}
	}
	if len(req.Messages) == 0 {
		return nil, &requestError{Message: "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", Param: "messages"}
	}
	c := &conversation{
		Model:     req.Model,
		Stream:    req.Stream,
		Tools:     make(map[string]bool, len(req.Tools)),
		MaxTokens: req.MaxCompletionTokens,
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = req.MaxTokens
	}
	c.IncludeUsage = req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	effort := strings.ToLower(req.ReasoningEffort)
	c.Reasoning = (effort != "" && effort != "none") ||
		(req.EnableThinking != nil && *req.EnableThinking) ||
		(req.ChatTemplateKwargs != nil && req.ChatTemplateKwargs.EnableThinking != nil && *req.ChatTemplateKwargs.EnableThinking)
	for _, t := range req.Tools {
		if t.Function.Name != "" {
			c.Tools[t.Function.Name] = true
		}
		c.ToolsJSON += len(t.Function.Name) + len(t.Function.Parameters) + 16
	}
	for i, wm := range req.Messages {
		m, err := refDecodeMessage(wm)
		if err != nil {
			return nil, &requestError{Message: fmt.Sprintf("Invalid 'messages[%d]': %v", i, err), Param: fmt.Sprintf("messages[%d]", i)}
		}
		c.Messages = append(c.Messages, m)
	}
	return c, nil
}

func refDecodeMessage(wm refWireMessage) (message, error) {
	m := message{Role: wm.Role, ToolCalls: wm.ToolCalls, ToolCallID: wm.ToolCallID}
	switch wm.Role {
	case "system", "developer", "user", "assistant", "tool":
	case "":
		return m, errors.New("missing 'role'")
	default:
		return m, fmt.Errorf("unknown role %q (expected system, developer, user, assistant or tool)", wm.Role)
	}
	content := bytes.TrimSpace(wm.Content)
	switch {
	case len(content) == 0 || bytes.Equal(content, []byte("null")):
	case content[0] == '"':
		if err := json.Unmarshal(content, &m.Text); err != nil {
			return m, fmt.Errorf("'content': %w", err)
		}
	case content[0] == '[':
		var parts []wirePart
		if err := json.Unmarshal(content, &parts); err != nil {
			return m, fmt.Errorf("'content': %w", err)
		}
		var texts []string
		for _, p := range parts {
			switch {
			case p.Type == "text":
				texts = append(texts, p.Text)
			case p.Type == "image_url" && p.ImageURL != nil:
				m.Images++
				m.ImageBytes += len(p.ImageURL.URL)
			}
		}
		m.Text = strings.Join(texts, "\n")
	default:
		return m, errors.New("'content' must be a string, an array of content parts or null")
	}
	if wm.Role == "tool" && wm.ToolCallID == "" {
		return m, errors.New("a tool message needs 'tool_call_id'")
	}
	return m, nil
}
