package openai

import (
	"strconv"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// chunk is the part of one streamed chat.completion.chunk that pi reads. Byte slices are views into the
// line or the scanner's arena, valid until the next chunk is decoded. A member that is absent, null, of
// the wrong type or (for strings) empty reads as empty, which is how pi's truthiness checks treat it.
type chunk struct {
	isObject bool

	ID    []byte
	Model []byte

	Usage    rawUsage
	HasUsage bool

	// HasChoice: choices is an array whose first element is an object.
	HasChoice      bool
	FinishReason   []byte
	ChoiceUsage    rawUsage
	HasChoiceUsage bool

	Content []byte
	// Reasoning holds reasoning_content, reasoning and reasoning_text, in pi's order of preference.
	Reasoning        [3][]byte
	ToolCalls        []toolCallDelta
	ReasoningDetails []reasoningDetail

	// Error is the raw JSON of a truthy "error" member.
	Error []byte
}

// reasoningFields are the delta members that carry thinking, in the order pi prefers them.
var reasoningFields = [3]string{"reasoning_content", "reasoning", "reasoning_text"}

type toolCallDelta struct {
	HasIndex  bool
	Index     float64
	ID        []byte
	Name      []byte
	Arguments []byte
}

// reasoningDetail is an OpenRouter "reasoning.encrypted" detail that belongs to a tool call.
type reasoningDetail struct {
	ID  []byte
	Raw []byte
}

// rawUsage is the usage object as sent; Has* mark members present as numbers.
type rawUsage struct {
	PromptTokens, CompletionTokens float64
	CachedTokens, CacheWriteTokens float64
	PromptCacheHitTokens           float64
	HasCachedTokens                bool
	HasPromptCacheHitTokens        bool
	// TopCachedTokens is usage.cached_tokens (Kimi's place for it).
	TopCachedTokens    float64
	HasTopCachedTokens bool
	// ReasoningTokens is completion_tokens_details.reasoning_tokens, TopReasoningTokens
	// usage.reasoning_tokens.
	ReasoningTokens, TopReasoningTokens float64
	// OpenRouter's billing: cost, is_byok and cost_details.
	Cost                   billed
	IsBYOK                 *bool
	HasCostDetails         bool
	UpstreamCost           billed
	UpstreamCostIsNull     bool
	UpstreamPromptCost     billed
	UpstreamCompletionCost billed
}

// billed is a cost as sent: OK when it was a number.
type billed struct {
	Value float64
	OK    bool
}

// chunkDecoder decodes chunks, reusing its buffers from one chunk to the next.
type chunkDecoder struct {
	s jsonx.Scanner
	c chunk
	// messageAsDelta reads choices[0].message like a delta: a server that ignored stream:true and
	// answered with one chat.completion object.
	messageAsDelta bool
}

// decode parses one chunk. The result is valid until the next call.
func (d *chunkDecoder) decode(data []byte) (*chunk, error) {
	d.s.Reset(data)
	tools := d.c.ToolCalls[:0]
	details := d.c.ReasoningDetails[:0]
	d.c = chunk{ToolCalls: tools, ReasoningDetails: details}
	s, c := &d.s, &d.c
	c.isObject = s.Object(func(key []byte) {
		switch string(key) {
		case "id":
			c.ID = s.Str()
		case "model":
			c.Model = s.Str()
		case "usage":
			c.Usage, c.HasUsage = d.usage()
		case "choices":
			d.choices()
		case "error":
			c.Error = nil
			if v := s.Raw(); truthy(v) {
				c.Error = v
			}
		default:
			s.Skip()
		}
	})
	s.End()
	if err := s.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// truthy reports whether a raw JSON value is truthy in JavaScript.
func truthy(v []byte) bool {
	switch string(v) {
	case "", "null", "false", `""`:
		return false
	}
	if v[0] == '-' || (v[0] >= '0' && v[0] <= '9') {
		f, _ := strconv.ParseFloat(string(v), 64)
		return f != 0
	}
	return true
}

func (d *chunkDecoder) choices() {
	s, c := &d.s, &d.c
	c.HasChoice = false
	c.FinishReason, c.ChoiceUsage, c.HasChoiceUsage = nil, rawUsage{}, false
	c.Content, c.Reasoning = nil, [3][]byte{}
	c.ToolCalls, c.ReasoningDetails = c.ToolCalls[:0], c.ReasoningDetails[:0]
	s.Array(func(i int) {
		if i != 0 {
			s.Skip()
			return
		}
		c.HasChoice = s.Object(func(key []byte) {
			switch string(key) {
			case "finish_reason":
				c.FinishReason = s.Str()
			case "usage":
				c.ChoiceUsage, c.HasChoiceUsage = d.usage()
			case "delta":
				d.delta()
			case "message":
				if d.messageAsDelta {
					d.delta()
				} else {
					s.Skip()
				}
			default:
				s.Skip()
			}
		})
	})
}

func (d *chunkDecoder) delta() {
	s, c := &d.s, &d.c
	c.Content, c.Reasoning = nil, [3][]byte{}
	c.ToolCalls, c.ReasoningDetails = c.ToolCalls[:0], c.ReasoningDetails[:0]
	s.Object(func(key []byte) {
		switch k := string(key); k {
		case "content":
			c.Content = s.Str()
		case "reasoning_content", "reasoning", "reasoning_text":
			i := 0
			for reasoningFields[i] != k {
				i++
			}
			c.Reasoning[i] = s.Str()
		case "tool_calls":
			c.ToolCalls = c.ToolCalls[:0]
			s.Array(func(int) { d.toolCall() })
		case "reasoning_details":
			c.ReasoningDetails = c.ReasoningDetails[:0]
			s.Array(func(int) { d.reasoningDetail() })
		default:
			s.Skip()
		}
	})
}

func (d *chunkDecoder) toolCall() {
	s, c := &d.s, &d.c
	var tc toolCallDelta
	if s.Object(func(key []byte) {
		switch string(key) {
		case "index":
			tc.Index, tc.HasIndex = s.Number()
		case "id":
			tc.ID = s.Str()
		case "function":
			tc.Name, tc.Arguments = nil, nil
			s.Object(func(key []byte) {
				switch string(key) {
				case "name":
					tc.Name = s.Str()
				case "arguments":
					tc.Arguments = s.Str()
				default:
					s.Skip()
				}
			})
		default:
			s.Skip()
		}
	}) {
		c.ToolCalls = append(c.ToolCalls, tc)
	}
}

func (d *chunkDecoder) reasoningDetail() {
	s, c := &d.s, &d.c
	s.Peek()
	start := s.Pos()
	var typ, id, data []byte
	dataTruthy := false
	isObj := s.Object(func(key []byte) {
		switch string(key) {
		case "type":
			typ = s.Str()
		case "id":
			id = s.Str()
		case "data":
			data = s.Raw()
			dataTruthy = truthy(data)
		default:
			s.Skip()
		}
	})
	if isObj && s.Err() == nil && string(typ) == "reasoning.encrypted" && len(id) > 0 && dataTruthy {
		c.ReasoningDetails = append(c.ReasoningDetails, reasoningDetail{ID: id, Raw: s.Input()[start:s.Pos()]})
	}
}

// usage reads a usage object; anything else reads as absent.
func (d *chunkDecoder) usage() (rawUsage, bool) {
	s := &d.s
	var u rawUsage
	ok := s.Object(func(key []byte) {
		switch string(key) {
		case "prompt_tokens":
			u.PromptTokens, _ = s.Number()
		case "completion_tokens":
			u.CompletionTokens, _ = s.Number()
		case "prompt_cache_hit_tokens":
			u.PromptCacheHitTokens, u.HasPromptCacheHitTokens = s.Number()
		case "prompt_tokens_details":
			u.CachedTokens, u.HasCachedTokens, u.CacheWriteTokens = 0, false, 0
			s.Object(func(key []byte) {
				switch string(key) {
				case "cached_tokens":
					u.CachedTokens, u.HasCachedTokens = s.Number()
				case "cache_write_tokens":
					u.CacheWriteTokens, _ = s.Number()
				default:
					s.Skip()
				}
			})
		case "cached_tokens":
			u.TopCachedTokens, u.HasTopCachedTokens = s.Number()
		case "completion_tokens_details":
			u.ReasoningTokens = 0
			s.Object(func(key []byte) {
				if string(key) == "reasoning_tokens" {
					u.ReasoningTokens, _ = s.Number()
				} else {
					s.Skip()
				}
			})
		case "reasoning_tokens":
			u.TopReasoningTokens, _ = s.Number()
		case "cost":
			u.Cost.Value, u.Cost.OK = s.Number()
		case "is_byok":
			u.IsBYOK = nil
			switch s.Peek() {
			case 't', 'f':
				b := s.Peek() == 't'
				u.IsBYOK = &b
			}
			s.Skip()
		case "cost_details":
			u.HasCostDetails = s.Peek() == '{'
			u.UpstreamCost, u.UpstreamCostIsNull, u.UpstreamPromptCost, u.UpstreamCompletionCost = billed{}, false, billed{}, billed{}
			s.Object(func(key []byte) {
				switch string(key) {
				case "upstream_inference_cost":
					u.UpstreamCostIsNull = s.Peek() == 'n'
					u.UpstreamCost.Value, u.UpstreamCost.OK = s.Number()
				case "upstream_inference_prompt_cost":
					u.UpstreamPromptCost.Value, u.UpstreamPromptCost.OK = s.Number()
				case "upstream_inference_completions_cost":
					u.UpstreamCompletionCost.Value, u.UpstreamCompletionCost.OK = s.Number()
				default:
					s.Skip()
				}
			})
		default:
			s.Skip()
		}
	})
	return u, ok
}
