package demo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// chatRequest is the part of an OpenAI chat-completions request body the demo reads.
type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []wireMessage `json:"messages"`
	Tools         []wireTool    `json:"tools"`
	Stream        bool          `json:"stream"`
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

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []wireToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// wirePart is one element of an array content: text or image_url.
type wirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// message is a transcript message reduced to what the script looks at.
type message struct {
	Role       string // system, developer, user, assistant, tool
	Text       string
	Images     int
	ImageBytes int // size of the image data URLs, for the token estimate
	ToolCalls  []wireToolCall
	ToolCallID string
}

// conversation is a decoded request.
type conversation struct {
	Model        string
	Messages     []message
	Tools        map[string]bool
	ToolsJSON    int // bytes of the tool definitions, for the token estimate
	Reasoning    bool
	Stream       bool
	IncludeUsage bool
	MaxTokens    int // 0: no limit asked
}

// requestError is a 400 answer: the message is the server's own error text.
type requestError struct {
	Message string
	Param   string
}

func (e *requestError) Error() string { return e.Message }

// parseRequest decodes and checks a chat-completions body, with OpenAI's wording for what it rejects.
func parseRequest(body []byte) (*conversation, error) {
	var req chatRequest
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
		m, err := decodeMessage(wm)
		if err != nil {
			return nil, &requestError{Message: fmt.Sprintf("Invalid 'messages[%d]': %v", i, err), Param: fmt.Sprintf("messages[%d]", i)}
		}
		c.Messages = append(c.Messages, m)
	}
	return c, nil
}

func decodeMessage(wm wireMessage) (message, error) {
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
