package rpc

import (
	"encoding/base64"
	"io"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
	"github.com/pi-go/pi-go/internal/provider"
)

// BenchmarkParseCommandLine measures what every input line costs before its command runs: UTF-8
// decoding, the JSON.parse-compatible check and the decoding of the fields, for a prompt carrying a
// 1 MB image.
func BenchmarkParseCommandLine(b *testing.B) {
	img := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x89PNG-ish bytes ", 1<<16)))[:1<<20]
	line := []byte(`{"id":"req-1","type":"prompt","message":"What is in this picture? ünïcödé \u2028 ok",` +
		`"images":[{"type":"image","data":"` + img + `","mimeType":"image/png"}]}`)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		text := decodeUTF8(line)
		if err := checkJSON(text); err != nil {
			b.Fatal(string(appendJSONUTF16(nil, err.jsMessage(text))))
		}
		c, resp := parseCommand(text)
		if resp != nil || c == nil {
			b.Fatal("not a command")
		}
		if _, err := c.images(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeltaEventOutput measures what RPC adds per streamed delta: a message_update event of an
// answer 8 KB long so far (pi 1.6 writes the delta and the usage), encoded and written through the
// buffered line writer.
func BenchmarkDeltaEventOutput(b *testing.B) {
	partial := &provider.AssistantMessage{Content: []provider.Content{provider.TextContent(strings.Repeat("lorem ipsum ", 700))},
		API: provider.APIOpenAICompletions, Provider: "mock", Model: "mock-model", StopReason: provider.StopReasonStop, Timestamp: 1}
	e := harness.Event{Type: string(loop.EventMessageUpdate), Agent: &loop.Event{Type: loop.EventMessageUpdate, Message: partial,
		AssistantEvent: &provider.AssistantEvent{Type: provider.EventTextDelta, Delta: "ipsum", Partial: partial}}}
	out := NewLineWriter(io.Discard)
	s := &server{out: out, events: NewEventWriter(out), runs: &runState{progress: make(chan struct{})}, outFailed: make(chan struct{})}
	defer s.out.Close()
	data, _ := e.MarshalJSON()
	b.SetBytes(int64(len(data) + 1))
	b.ReportAllocs()
	for b.Loop() {
		s.onEvent(e)
	}
}
