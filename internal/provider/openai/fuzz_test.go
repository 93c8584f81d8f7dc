package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// refChunk is what pi reads from a chunk, computed the slow and obvious way: encoding/json into
// generic values, then JavaScript's truthiness rules by hand. The fast decoder must agree with it on
// every input.
type refChunk struct {
	IsObject         bool
	ID, Model        string
	HasUsage         bool
	Usage            rawUsage
	HasChoice        bool
	FinishReason     string
	HasChoiceUsage   bool
	ChoiceUsage      rawUsage
	Content          string
	Reasoning        [3]string
	ToolCalls        []refToolCall
	ReasoningDetails []string // id + " " + compact raw
	Error            string   // compact raw
}

type refToolCall struct {
	HasIndex       bool
	Index          float64
	ID, Name, Args string
}

func referenceDecode(data []byte) (*refChunk, error) {
	if !json.Valid(data) {
		return nil, errors.New("invalid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	out := &refChunk{}
	obj, ok := v.(map[string]any)
	if !ok {
		return out, nil
	}
	out.IsObject = true
	out.ID = str(obj["id"])
	out.Model = str(obj["model"])
	out.Usage, out.HasUsage = refUsage(obj["usage"])
	if e, ok := obj["error"]; ok && jsTruthy(e) {
		out.Error = compactOf(e)
	}
	choices, _ := obj["choices"].([]any)
	if len(choices) == 0 {
		return out, nil
	}
	choice, ok := choices[0].(map[string]any)
	if !ok {
		return out, nil
	}
	out.HasChoice = true
	out.FinishReason = str(choice["finish_reason"])
	out.ChoiceUsage, out.HasChoiceUsage = refUsage(choice["usage"])
	delta, _ := choice["delta"].(map[string]any)
	out.Content = str(delta["content"])
	for i, f := range reasoningFields {
		out.Reasoning[i] = str(delta[f])
	}
	calls, _ := delta["tool_calls"].([]any)
	for _, c := range calls {
		tc, ok := c.(map[string]any)
		if !ok {
			continue
		}
		r := refToolCall{ID: str(tc["id"])}
		if n, ok := tc["index"].(json.Number); ok {
			r.Index, r.HasIndex = num(n), true
		}
		fn, _ := tc["function"].(map[string]any)
		r.Name, r.Args = str(fn["name"]), str(fn["arguments"])
		out.ToolCalls = append(out.ToolCalls, r)
	}
	details, _ := delta["reasoning_details"].([]any)
	for _, d := range details {
		det, ok := d.(map[string]any)
		if !ok {
			continue
		}
		data, hasData := det["data"]
		if str(det["type"]) == "reasoning.encrypted" && str(det["id"]) != "" && hasData && jsTruthy(data) {
			out.ReasoningDetails = append(out.ReasoningDetails, str(det["id"])+" "+compactOf(det))
		}
	}
	return out, nil
}

func str(v any) string { s, _ := v.(string); return s }

func num(n json.Number) float64 {
	f, _ := strconv.ParseFloat(string(n), 64)
	return f
}

func refUsage(v any) (rawUsage, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return rawUsage{}, false
	}
	var u rawUsage
	if n, ok := m["prompt_tokens"].(json.Number); ok {
		u.PromptTokens = num(n)
	}
	if n, ok := m["completion_tokens"].(json.Number); ok {
		u.CompletionTokens = num(n)
	}
	if n, ok := m["prompt_cache_hit_tokens"].(json.Number); ok {
		u.PromptCacheHitTokens, u.HasPromptCacheHitTokens = num(n), true
	}
	if d, ok := m["prompt_tokens_details"].(map[string]any); ok {
		if n, ok := d["cached_tokens"].(json.Number); ok {
			u.CachedTokens, u.HasCachedTokens = num(n), true
		}
		if n, ok := d["cache_write_tokens"].(json.Number); ok {
			u.CacheWriteTokens = num(n)
		}
	}
	return u, true
}

func jsTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		return num(x) != 0
	}
	return true
}

// compactOf re-encodes a generic value; object members come out sorted, so the fast decoder's raw
// bytes are compared after the same round trip.
func compactOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func roundTrip(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "<bad raw " + strconv.Quote(string(raw)) + ">"
	}
	return compactOf(v)
}

func fastDecode(d *chunkDecoder, data []byte) (*refChunk, error) {
	c, err := d.decode(data)
	if err != nil {
		return nil, err
	}
	out := &refChunk{IsObject: c.isObject, ID: string(c.ID), Model: string(c.Model), HasUsage: c.HasUsage, Usage: c.Usage,
		HasChoice: c.HasChoice, FinishReason: string(c.FinishReason), HasChoiceUsage: c.HasChoiceUsage,
		ChoiceUsage: c.ChoiceUsage, Content: string(c.Content)}
	if !c.HasChoice {
		out.FinishReason, out.HasChoiceUsage, out.ChoiceUsage, out.Content = "", false, rawUsage{}, ""
	}
	for i := range c.Reasoning {
		out.Reasoning[i] = string(c.Reasoning[i])
	}
	for _, tc := range c.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, refToolCall{HasIndex: tc.HasIndex, Index: tc.Index, ID: string(tc.ID),
			Name: string(tc.Name), Args: string(tc.Arguments)})
	}
	for _, d := range c.ReasoningDetails {
		out.ReasoningDetails = append(out.ReasoningDetails, string(d.ID)+" "+roundTrip(d.Raw))
	}
	if len(c.Error) > 0 {
		out.Error = roundTrip(c.Error)
	}
	return out, nil
}

var chunkSeeds = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"bash","arguments":"{\"a\":"}}]}}]}`,
	`{"choices":[{"delta":{"reasoning_content":"x","reasoning":"y","reasoning_text":"z"},"finish_reason":"stop","usage":{"prompt_tokens":3}}]}`,
	`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":4,"cache_write_tokens":1},"prompt_cache_hit_tokens":9}}`,
	`{"error":{"message":"Provider returned error","metadata":{"raw":"x"}},"choices":[{"delta":{"content":""},"finish_reason":"error"}]}`,
	`{"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.encrypted","id":"c","data":"zz"},{"type":"reasoning.text"}]}}]}`,
	`{"id":"\ud83d\ude00\ud800x\u00e9","choices":[{"delta":{"content":"\"\\\/\b\f\n\r\t"}}]}`,
	`{"id":1,"choices":{"a":1},"usage":[1],"error":0}`,
	`{"choices":[5,{"delta":{}}],"id":"a","id":"b"}`,
	`[{"id":"x"}]`, `"str"`, `null`, `-0.5e-3`, `{"a":tru}`, `{"a":"\x"}`, "{\"a\":\"\x01\"}", "{\"a\":\"\xff\xfe\"}",
	`{"choices":[{"delta":{"tool_calls":[{"index":1e400},{"index":-0},{"index":"3"},null,7]}}]}`,
}

// FuzzChunkDecoder checks the fast decoder against encoding/json on any input: same verdict on
// validity, same fields.
func FuzzChunkDecoder(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s))
	}
	var d chunkDecoder
	f.Fuzz(func(t *testing.T, data []byte) {
		want, werr := referenceDecode(data)
		got, gerr := fastDecode(&d, data)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("validity differs on %q: encoding/json %v, decoder %v", data, werr, gerr)
		}
		if werr != nil {
			return
		}
		if len(want.ToolCalls) == 0 {
			want.ToolCalls = nil
		}
		if len(got.ToolCalls) == 0 {
			got.ToolCalls = nil
		}
		// NaN never comes from JSON; ±Inf compare equal to themselves.
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("decoded differently: %q\nencoding/json: %+v\ndecoder:       %+v", data, want, got)
		}
	})
}

// FuzzStream sends any body as a 200 event stream through the whole provider (transport, SSE reader,
// decoder, builder): no panic, no hang, and the event contract holds.
func FuzzStream(f *testing.F) {
	for _, name := range []string{"openai-text.sse", "openai-tool-calls.sse", "deepseek-reasoning.sse",
		"openrouter-reasoning.sse", "openrouter-error.sse", "ollama-tool-call.sse", "llamacpp-tool-call.sse"} {
		events, err := openaitest.LoadTranscript(name)
		if err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		for _, e := range events {
			b.WriteString(e)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\ndata: {\"choices\":[{\"finish_reason\":\"stop\"}]}\r\r: x\n"))
	f.Add([]byte(`{"error":{"message":"nope"}}`))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"{\\\"a\"}}]}}]}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		p := New(Config{HTTPClient: &http.Client{Transport: memoryTransport{body}}})
		req := simpleRequest(testModel("http://memory/v1"))
		req.Options.APIKey = testKey
		var events []*provider.AssistantEvent
		msg := p.Stream(context.Background(), req, func(e *provider.AssistantEvent) { events = append(events, e) })
		checkContract(t, msg, events)
		u := msg.Usage
		for _, c := range []float64{u.Cost.Input, u.Cost.Output, u.Cost.CacheRead, u.Cost.Total} {
			if math.IsNaN(c) || math.IsInf(c, 0) {
				t.Fatalf("cost %v", u.Cost)
			}
		}
	})
}
