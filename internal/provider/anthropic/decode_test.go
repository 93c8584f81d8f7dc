package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/anthropictest"
)

// decodeBody runs an SSE body through the SDK's frame decoder and the event decoder, as Stream does
// after the response headers, and finishes the message.
func decodeBody(m *provider.Model, body []byte, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
	b := provider.NewBlockBuilder(m, emit)
	b.Start()
	resp := &http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(body))}
	d := newDecoder(b, m)
	s := ssestream.NewDecoder(resp)
	for s.Next() {
		ev := s.Event()
		if msg := d.handle(ev.Type, bytes.TrimSuffix(ev.Data, []byte("\n"))); msg != "" {
			return b.Fail(provider.StopReasonError, msg)
		}
	}
	if err := s.Err(); err != nil {
		return b.Fail(provider.StopReasonError, connectionLostMessage(err))
	}
	if msg := d.finish(); msg != "" {
		return b.Fail(provider.StopReasonError, msg)
	}
	return b.Finish()
}

func benchModel() *provider.Model {
	m, _ := provider.BuiltinModel("anthropic", "claude-sonnet-4-5")
	return &m
}

// FuzzDecoder feeds arbitrary bytes to the stream decoder: it must end every stream with one final
// message whose tool-call arguments are JSON, without panicking or hanging.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte(anthropictest.SSE(anthropictest.Answer{ID: "m", Model: "claude-sonnet-4-5", Ping: true, Blocks: []anthropictest.Block{
		anthropictest.Thinking("s", "a", "b"), anthropictest.Redacted("r"), anthropictest.Text("x"),
		anthropictest.ToolUse("t", "bash", `{"a":`, `1}`)}}.Events()...)))
	f.Add([]byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":7,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n"))
	f.Add([]byte("event: message_delta\r\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":null}}\r\n\r\n"))
	f.Add([]byte(anthropictest.ErrorEvent("overloaded_error", "Overloaded")))
	f.Fuzz(func(t *testing.T, body []byte) {
		final := decodeBody(benchModel(), body, nil)
		if final == nil || (final.StopReason != provider.StopReasonError && final.StopReason != provider.StopReasonStop &&
			final.StopReason != provider.StopReasonToolUse && final.StopReason != provider.StopReasonLength) {
			t.Fatalf("final %+v", final)
		}
		for _, c := range final.Content {
			if c.Type == provider.ContentToolCall && !json.Valid(c.Arguments) {
				t.Fatalf("arguments %q", c.Arguments)
			}
		}
		if _, err := json.Marshal(final); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkDecodeTextDelta is the parse cost of one streamed text delta: SSE framing by the SDK's
// decoder, the event decoded into the small event struct, and the provider event built and emitted.
func BenchmarkDecodeTextDelta(b *testing.B) {
	const deltas = 20000
	var sb strings.Builder
	a := anthropictest.Answer{ID: "m", Model: "claude-sonnet-4-5"}
	events := a.Events()
	sb.WriteString(events[0])
	sb.WriteString(anthropictest.Event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}}))
	for i := 0; i < deltas; i++ {
		sb.WriteString(fmt.Sprintf("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"%c\"}}\n\n", 'a'+i%26))
	}
	sb.WriteString(anthropictest.Event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}))
	sb.WriteString(strings.Join(events[len(events)-2:], ""))
	body := []byte(sb.String())
	m := benchModel()
	n := 0
	emit := func(*provider.AssistantEvent) { n++ }
	b.SetBytes(int64(len(body) / deltas))
	b.ResetTimer()
	cpu0, cpuOK := cputime.Process()
	for i := 0; i < b.N; i += deltas {
		if msg := decodeBody(m, body, emit); msg.StopReason != provider.StopReasonStop {
			b.Fatal(msg.ErrorMessage)
		}
	}
	done := float64(((b.N + deltas - 1) / deltas) * deltas)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/done, "ns/delta")
	if cpu1, ok := cputime.Process(); ok && cpuOK {
		// CPU time is what a loaded machine distorts least.
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/done, "cpu-ns/delta")
	}
}
