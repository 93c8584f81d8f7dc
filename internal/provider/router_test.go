package provider

import (
	"context"
	"testing"
)

// answering is a Provider that answers with its name as the text, so a test sees who streamed.
func answering(name string) Provider {
	return StreamFunc(func(_ context.Context, req *Request, emit func(*AssistantEvent)) *AssistantMessage {
		b := NewStreamBuilder(req.Model, emit)
		b.Start()
		b.Text(name)
		return b.Finish()
	})
}

func TestRouterPicksTheProviderOfTheModel(t *testing.T) {
	r := NewRouter()
	r.HandleAPI(APIOpenAICompletions, answering("completions"))
	r.HandleAPI("anthropic-messages", answering("messages"))
	r.HandleProvider("demo", answering("demo"))

	tests := []struct {
		name  string
		model *Model
		text  string // the answering provider, or "" for an error
		err   string
	}{
		{"by API", &Model{ID: "m", Provider: "openai", API: APIOpenAICompletions}, "completions", ""},
		{"another API", &Model{ID: "m", Provider: "anthropic", API: "anthropic-messages"}, "messages", ""},
		{"a model without an API speaks completions", &Model{ID: "m", Provider: "local"}, "completions", ""},
		{"a provider of its own comes before the API", &Model{ID: "d", Provider: "demo", API: APIOpenAICompletions}, "demo", ""},
		{"an API nothing speaks", &Model{ID: "g", Provider: "google", API: "google-generative-ai"}, "",
			"No API provider registered for api: google-generative-ai"},
		{"no model", nil, "", "No model given for the request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var events []AssistantEventType
			msg := r.Stream(context.Background(), &Request{Model: tc.model}, func(e *AssistantEvent) {
				events = append(events, e.Type)
			})
			final := EventDone
			if tc.err != "" {
				final = EventError
			}
			if msg == nil || len(events) == 0 || events[len(events)-1] != final {
				t.Fatalf("message %+v after events %v", msg, events)
			}
			if tc.err != "" {
				if msg.StopReason != StopReasonError || msg.ErrorMessage != tc.err {
					t.Errorf("stop %s, error %q; want error %q", msg.StopReason, msg.ErrorMessage, tc.err)
				}
				return
			}
			if got := TextOf(msg.Content, ""); msg.StopReason != StopReasonStop || got != tc.text {
				t.Errorf("answered %q (stop %s, error %q), want %q", got, msg.StopReason, msg.ErrorMessage, tc.text)
			}
		})
	}
}
