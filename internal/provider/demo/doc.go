// Package demo is pi-go's offline demo model: a scripted "LLM" behind an http.RoundTripper that answers
// POST …/chat/completions exactly as an OpenAI endpoint streaming SSE would. Pointing the real
// OpenAI-compatible provider at HTTPClient() runs its whole request and parsing path with no network
// and no credentials, so a new user sees streaming, thinking, tool calls, steering and abort working
// before configuring anything.
//
// The package knows the OpenAI wire format and the names and parameters of pi's built-in tools (ls,
// read, bash), because that is what it plays with. It must not know the provider implementation, the
// loop, the tools' code, the TUI or the configuration: cmd/pi wires it (newRouter registers a
// provider/openai Provider on HTTPClient() for the models of ProviderName, which Model() describes).
package demo
