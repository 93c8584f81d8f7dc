package responses

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	rt "github.com/pi-go/pi-go/internal/provider/responses/responsestest"
)

func eventStream(body []byte) *http.Response {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(body))}
}

// The stream decoder never panics, and whatever the bytes, the message it leaves is one pi can store:
// valid JSON, every tool call with object arguments and no streaming bookkeeping.
func FuzzStream(f *testing.F) {
	for _, s := range rt.Pi16Answers() {
		f.Add([]byte(s))
	}
	f.Add([]byte(rt.NewStream("r", "m").Message("m", "", "x").Error("e", "boom")))
	f.Add([]byte(rt.NewStream("r", "m").FunctionCall("fc", "c", "bash", `{"a":`).Cut()))
	f.Add([]byte("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"item\":{\"type\":\"function_call\"}}\n\n"))
	m := &provider.Model{ID: "m", API: provider.APIOpenAIResponses, Provider: "p", Cost: provider.ModelCost{Input: 1}}
	f.Fuzz(func(t *testing.T, data []byte) {
		b := provider.NewBlockBuilder(m, func(*provider.AssistantEvent) {})
		b.Start()
		p := newProcessor(b, m)
		msg, err := p.read(eventStream(data), func() {})
		var final *provider.AssistantMessage
		switch st := b.StopReason(); {
		case err != nil || msg != "" || st == provider.StopReasonPending || st == provider.StopReasonError || st == provider.StopReasonAborted:
			final = b.Fail(provider.StopReasonError, "failed")
		default:
			final = b.Finish()
		}
		out, jerr := json.Marshal(final)
		if jerr != nil || !json.Valid(out) {
			t.Fatalf("final message does not marshal: %v", jerr)
		}
		for _, c := range final.Content {
			if c.Type == provider.ContentToolCall && (c.PartialArgs != nil || !json.Valid(c.Arguments) || c.Arguments[0] != '{') {
				t.Fatalf("tool call %+v", c)
			}
		}
	})
}
