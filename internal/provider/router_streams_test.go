package provider

import (
	"context"
	"testing"
)

func TestRouterStreamsOfRegisteredProviders(t *testing.T) {
	r := NewRouter()
	r.HandleAPI(APIOpenAICompletions, answering("completions"))
	r.HandleProviderAPI("ext", "ext-api", answering("extension"))
	text := func(m *Model) string {
		msg := r.Stream(context.Background(), &Request{Model: m}, nil)
		if len(msg.Content) == 0 {
			return msg.ErrorMessage
		}
		return msg.Content[0].Text
	}
	if got := text(&Model{Provider: "ext", API: "ext-api"}); got != "extension" {
		t.Fatalf("ext model of its api: %q", got)
	}
	// Only the provider's models of that api: its other models go by API as any.
	if got := text(&Model{Provider: "ext", API: APIOpenAICompletions}); got != "completions" {
		t.Fatalf("ext model of another api: %q", got)
	}
	if got := text(&Model{Provider: "other", API: "ext-api"}); got != "No API provider registered for api: ext-api" {
		t.Fatalf("another provider's model of that api: %q", got)
	}
	r.RemoveProviderStreams("ext")
	if got := text(&Model{Provider: "ext", API: "ext-api"}); got != "No API provider registered for api: ext-api" {
		t.Fatalf("after removal: %q", got)
	}
}
