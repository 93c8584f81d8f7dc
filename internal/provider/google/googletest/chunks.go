// Package googletest writes Gemini streamGenerateContent?alt=sse streams in the server's exact shapes
// (one GenerateContentResponse per data line, CRLF-separated events, usage on every chunk, the finish
// reason on the last), for tests and for the scripted server that records what pi sends. It knows the
// wire format only.
package googletest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Stream builds one answer's server-sent events.
type Stream struct {
	ResponseID   string
	ModelVersion string
	Prompt       int // promptTokenCount sent on every chunk
	b            strings.Builder
}

// NewStream starts an answer.
func NewStream(responseID, modelVersion string, promptTokens int) *Stream {
	return &Stream{ResponseID: responseID, ModelVersion: modelVersion, Prompt: promptTokens}
}

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Part is one part of a chunk, as JSON members: see Thought, Text and Call.
type Part string

// Thought is a thought-summary part; sig is its thoughtSignature (base64) or "".
func Thought(text, sig string) Part {
	p := `"text":` + q(text) + `,"thought":true`
	if sig != "" {
		p += `,"thoughtSignature":` + q(sig)
	}
	return Part(p)
}

// Text is a text part; sig is its thoughtSignature or "".
func Text(text, sig string) Part {
	p := `"text":` + q(text)
	if sig != "" {
		p += `,"thoughtSignature":` + q(sig)
	}
	return Part(p)
}

// Call is a functionCall part with its arguments object (JSON) and optional id and signature.
func Call(name, args, id, sig string) Part {
	p := `"functionCall":{`
	if id != "" {
		p += `"id":` + q(id) + ","
	}
	p += `"name":` + q(name) + `,"args":` + args + "}"
	if sig != "" {
		p += `,"thoughtSignature":` + q(sig)
	}
	return Part(p)
}

func (s *Stream) usage(candidates, thoughts int, cached int) string {
	u := fmt.Sprintf(`"usageMetadata":{"promptTokenCount":%d`, s.Prompt)
	if candidates > 0 {
		u += fmt.Sprintf(`,"candidatesTokenCount":%d`, candidates)
	}
	u += fmt.Sprintf(`,"totalTokenCount":%d`, s.Prompt+candidates+thoughts)
	if cached > 0 {
		u += fmt.Sprintf(`,"cachedContentTokenCount":%d`, cached)
	}
	u += fmt.Sprintf(`,"promptTokensDetails":[{"modality":"TEXT","tokenCount":%d}]`, s.Prompt)
	if thoughts > 0 {
		u += fmt.Sprintf(`,"thoughtsTokenCount":%d`, thoughts)
	}
	return u + "}"
}

func (s *Stream) chunk(parts []Part, finish string, usage string) {
	c := `{"candidates":[{"content":{"parts":[`
	for i, p := range parts {
		if i > 0 {
			c += ","
		}
		c += "{" + string(p) + "}"
	}
	c += `],"role":"model"}`
	if finish != "" {
		c += `,"finishReason":` + q(finish)
	}
	c += `,"index":0}],` + usage + `,"modelVersion":` + q(s.ModelVersion) + `,"responseId":` + q(s.ResponseID) + "}"
	s.b.WriteString("data: " + c + "\r\n\r\n")
}

// Chunk adds a chunk with the given parts (usage so far: the prompt only).
func (s *Stream) Chunk(parts ...Part) *Stream {
	s.chunk(parts, "", s.usage(0, 0, 0))
	return s
}

// Raw appends text as it is.
func (s *Stream) Raw(text string) *Stream {
	s.b.WriteString(text)
	return s
}

// Usage is the final chunk's counts beyond the prompt.
type Usage struct {
	Candidates, Thoughts, Cached int
}

// Finish adds the last chunk: the parts, the finish reason (STOP, MAX_TOKENS, SAFETY, …) and the
// whole usage; it returns the stream text.
func (s *Stream) Finish(reason string, u Usage, parts ...Part) string {
	if len(parts) == 0 {
		parts = []Part{Text("", "")}
	}
	s.chunk(parts, reason, s.usage(u.Candidates, u.Thoughts, u.Cached))
	return s.b.String()
}

// Cut returns the stream so far, as a server that dropped the connection sent it.
func (s *Stream) Cut() string { return s.b.String() }

// ErrorBody is Google's error JSON for an HTTP status.
func ErrorBody(code int, status, message string) string {
	return fmt.Sprintf("{\n  \"error\": {\n    \"code\": %d,\n    \"message\": %s,\n    \"status\": %s\n  }\n}\n", code, q(message), q(status))
}
