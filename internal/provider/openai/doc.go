// Package openai streams assistant responses from OpenAI-compatible chat-completions servers (OpenAI,
// OpenRouter, Groq, DeepSeek, vLLM, llama.cpp, Ollama, …) as pi 0.73.1's "openai-completions" API does:
// it normalises the transcript (transform.go, request.go), writes the request body field for field as
// pi does while it is sent (body.go, bodystream.go), sends it with net/http and pi's SDK's retries
// (transport.go, sdkretry.go), reads the server-sent events with its own line reader and chunk decoder
// (sse.go, chunk.go), and turns them into provider events (stream.go). Every failure becomes an error
// message, never a panic, a hang or a Go error.
//
// It knows the provider vocabulary and the wire format; it knows nothing of the loop, tools, sessions,
// model catalogues or where API keys come from.
//
// pi-go owns the whole call; github.com/sashabaranov/go-openai, the Go SDK for this API, is not used,
// because each part it offers does something pi does not:
//   - The body. ChatCompletionRequest's omitempty fields cannot send store:false, strict:false,
//     tools:[], temperature 0, content:null on an assistant message with tool calls or content:"" on a
//     tool result; it has no field for the thinking switches of compatible servers (enable_thinking,
//     thinking:{type}, reasoning:{effort}), for Anthropic's cache_control or for thinking replayed under
//     the server's own field name; and it refuses, before sending, requests pi sends: tools with
//     reasoning on GPT-6 models, and model ids it takes for legacy completion models ("davinci",
//     "ada", …), which a local server may well serve.
//   - The stream. Recv decodes every chunk into the SDK's full response struct: 4.9–5.4 µs of CPU and
//     17 allocations per one-character delta, against 470–670 ns and one allocation for the reader here
//     on the same in-memory body (BenchmarkGoOpenAIRecvInMemory, BenchmarkStreamInMemory, 2 cores,
//     loaded). It also counts keep-alive comments against a limit (300 in a row end the stream of a
//     slow reasoning model behind a proxy) and cannot tell [DONE] from a dropped connection.
//   - Errors. pi's messages quote the status and the server's own words, name the URL without its
//     credentials, and classify context overflow and retryable errors (errors.go); pi's SDK sends a
//     request that failed with 408, 409, 429 or 5xx again after its own waits (sdkretry.go). go-openai
//     words its errors otherwise and does not retry.
//
// Until issue 19 the SDK was still called with an empty request, only to join the URL and set the
// Authorization and event-stream headers, while a custom HTTPDoer swapped in the real body and kept
// the response; transport.go now does those few lines itself and sends the same headers. go-openai
// remains a test dependency: the demo's tests and BenchmarkGoOpenAIRecvInMemory use it as an
// independent client of the wire format.
package openai
