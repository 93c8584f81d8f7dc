// Package openai streams assistant responses from OpenAI-compatible chat-completions servers (OpenAI,
// OpenRouter, Groq, DeepSeek, vLLM, llama.cpp, Ollama, …) as pi 0.73.1's "openai-completions" API does:
// it normalises the transcript and writes the request body field for field as pi does, sends it through
// github.com/sashabaranov/go-openai, reads the server-sent events with its own line reader and chunk
// decoder, and turns them into provider events. Every failure becomes an error message, never a panic,
// a hang or a Go error.
//
// It knows the provider vocabulary and the wire format; it knows nothing of the loop, tools, sessions,
// model catalogues or where API keys come from.
package openai
