package google

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"

	"google.golang.org/genai"

	"github.com/pi-go/pi-go/internal/provider"
)

// reader turns the chunks of one answer into builder calls, as pi's google provider does: a text or
// thought part continues the current block of its kind or starts a new one, a function call closes
// the current block and is a whole tool call at once.
type reader struct {
	b       *provider.BlockBuilder
	model   *provider.Model
	current int // the open text or thinking block, or -1
	nextID  func() int64
}

func newReader(b *provider.BlockBuilder, m *provider.Model, nextID func() int64) *reader {
	return &reader{b: b, model: m, current: -1, nextID: nextID}
}

// chunk applies one streamed response.
func (r *reader) chunk(c *genai.GenerateContentResponse) {
	if r.b.ResponseID() == "" && c.ResponseID != "" {
		r.b.SetResponseID(c.ResponseID)
	}
	var cand *genai.Candidate
	if len(c.Candidates) > 0 {
		cand = c.Candidates[0]
	}
	if cand != nil && cand.Content != nil {
		for _, p := range cand.Content.Parts {
			if p == nil {
				continue
			}
			r.part(p)
		}
	}
	if cand != nil && cand.FinishReason != "" {
		stop := mapFinishReason(cand.FinishReason)
		if stop == provider.StopReasonStop && r.b.HasToolCall() {
			stop = provider.StopReasonToolUse
		}
		r.b.SetStopReason(string(cand.FinishReason), stop, "")
	}
	if u := c.UsageMetadata; u != nil {
		usage := provider.Usage{
			Input:       int(u.PromptTokenCount) - int(u.CachedContentTokenCount),
			Output:      int(u.CandidatesTokenCount) + int(u.ThoughtsTokenCount),
			CacheRead:   int(u.CachedContentTokenCount),
			Reasoning:   int(u.ThoughtsTokenCount),
			TotalTokens: int(u.TotalTokenCount),
			Keys:        provider.UsageReasoning,
		}
		usage.CalculateCost(r.model.Cost)
		r.b.SetUsage(usage)
	}
}

func (r *reader) part(p *genai.Part) {
	// The SDK cannot tell an empty text from none; an empty part that is no call but carries a
	// thought marker or a signature is the empty text Gemini attaches its signature to.
	isText := p.Text != "" || p.FunctionCall == nil && p.FunctionResponse == nil && p.InlineData == nil &&
		(p.Thought || len(p.ThoughtSignature) > 0)
	if isText {
		kind := provider.ContentText
		if p.Thought {
			kind = provider.ContentThinking
		}
		if r.current < 0 || r.b.Block(r.current).Type != kind {
			r.closeCurrent()
			r.current = r.b.Open(provider.Content{Type: kind})
		}
		if sig := encodeSignature(p.ThoughtSignature); sig != "" {
			// Later deltas of a block may omit the signature: the last one sent is kept.
			r.b.Update(r.current, func(c *provider.Content) {
				if kind == provider.ContentThinking {
					c.ThinkingSignature = sig
				} else {
					c.TextSignature = sig
				}
			})
		}
		r.b.Append(r.current, p.Text)
	}
	if fc := p.FunctionCall; fc != nil {
		r.closeCurrent()
		id := fc.ID
		if id == "" || r.hasToolCall(id) {
			id = fc.Name + "_" + strconv.FormatInt(time.Now().UnixMilli(), 10) + "_" + strconv.FormatInt(r.nextID(), 10)
		}
		args := []byte("{}")
		if fc.Args != nil {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // as JSON.stringify writes <, > and &
			if enc.Encode(fc.Args) == nil {
				args = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
			}
		}
		i := r.b.Open(provider.Content{Type: provider.ContentToolCall, ID: id, Name: fc.Name,
			ThoughtSignature: encodeSignature(p.ThoughtSignature)})
		r.b.Append(i, string(args))
		r.b.Close(i)
	}
}

func (r *reader) hasToolCall(id string) bool {
	for i := 0; i < r.b.Len(); i++ {
		if c := r.b.Block(i); c.Type == provider.ContentToolCall && c.ID == id {
			return true
		}
	}
	return false
}

func (r *reader) closeCurrent() {
	if r.current >= 0 {
		r.b.Close(r.current)
		r.current = -1
	}
}

func encodeSignature(sig []byte) string {
	if len(sig) == 0 {
		return ""
	}
	return base64.StdEncoding.EncodeToString(sig)
}

// mapFinishReason maps Gemini's finish reason (pi's mapStopReason).
func mapFinishReason(r genai.FinishReason) provider.StopReason {
	switch r {
	case genai.FinishReasonStop:
		return provider.StopReasonStop
	case genai.FinishReasonMaxTokens, "CONTINUATION":
		return provider.StopReasonLength
	}
	return provider.StopReasonError
}
