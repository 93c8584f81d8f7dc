// Package anthropic streams assistant responses from Anthropic's Messages API as pi 1.6's
// "anthropic-messages" API does: it writes the request body key for key as pi does (body.go,
// messages.go, schema.go: prompt-cache breakpoints on the system prompt, the last tool and the last
// user message; thinking budgets or adaptive effort per model; signatures and redacted thinking replayed
// verbatim; strict tool schemas), sends it with Anthropic's Go SDK (github.com/anthropics/anthropic-sdk-go)
// with the SDK's own retries off (the harness retries visibly), reads the event stream with the SDK's
// SSE decoder (deltas with pi-go's JSON scanner, other events into one small struct; stream.go) and
// words failures so that provider.IsRetryable classifies overload (529) and rate limits (429) as pi
// does (errors.go).
//
// A session's next request keeps the previous body's messages and writes only what follows the last
// prompt both share (bodycache.go): the body of a 5,000-turn session is not converted again.
//
// It knows the provider vocabulary and the wire format; it knows nothing of the loop, tools, sessions,
// model catalogues or where credentials come from. pi's message threads (continuing a server-side
// thread instead of resending the conversation) are not used: every request carries the whole
// conversation, which Anthropic's prompt cache makes cheap.
package anthropic
