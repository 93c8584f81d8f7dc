// Package responses streams answers from OpenAI's Responses API ("openai-responses" in pi's
// models.json) as pi 1.6's openai-responses provider does: the transcript becomes input items
// (body.go), reasoning items are replayed from the thinking blocks that keep them (encrypted content
// included: requests are sent with store:false, so the server keeps nothing between turns), text
// replays under its item id, tool calls as function calls whose call id and item id pi joins with "|"
// in the tool-call id; the stream's output items become content blocks (stream.go).
//
// The request goes through github.com/openai/openai-go/v3, OpenAI's own Go SDK, with its retries
// off (the harness retries visibly) and without its environment defaults (OPENAI_API_KEY and
// friends must not override what pi's files configure). go-openai, which the chat-completions
// package's tests use, has no Responses API. The SDK carries the call (base URL, auth, error
// statuses) and frames the event stream; the body is written here, member for member as pi writes
// it, because the SDK's typed parameters cannot replay a stored reasoning item verbatim, and the
// events are decoded into a small struct of the members pi reads, not the SDK's union of every event
// (the cost per delta is in bench_test.go).
//
// It knows the provider vocabulary and the wire format; nothing of the loop, tools, sessions or
// where keys come from.
package responses
