package extensions

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// BenchmarkProviderStream measures one answer of 1,000 text deltas from a provider registered with
// streamSimple in pi's runner (the Node sidecar), streamed through the bridge into pi-go's events:
// the time of an answer, and the deltas per second that makes.
func BenchmarkProviderStream(b *testing.B) {
	pi := findPi(b, "1.6.0")
	dir := b.TempDir()
	src := `import { createAssistantMessageEventStream } from "@earendil-works/pi-ai";
const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
export default function (pi) {
	pi.registerProvider("bulk", {
		baseUrl: "http://127.0.0.1:9", apiKey: "k", api: "bulk-api",
		models: [{ id: "b1", name: "Bulk", reasoning: false, input: ["text"], cost: zero, contextWindow: 1000, maxTokens: 100 }],
		streamSimple(model) {
			const stream = createAssistantMessageEventStream();
			const message = { role: "assistant", content: [{ type: "text", text: "" }], api: model.api, provider: model.provider,
				model: model.id, usage: { ...zero, totalTokens: 0, cost: { ...zero, total: 0 } }, stopReason: "stop", timestamp: Date.now() };
			queueMicrotask(() => {
				stream.push({ type: "start", partial: message });
				stream.push({ type: "text_start", contentIndex: 0, partial: message });
				for (let i = 0; i < 1000; i++) {
					message.content[0].text += "x";
					stream.push({ type: "text_delta", contentIndex: 0, delta: "x", partial: message });
				}
				stream.push({ type: "text_end", contentIndex: 0, content: message.content[0].text, partial: message });
				stream.push({ type: "done", reason: "stop", message });
			});
			return stream;
		},
	});
}
`
	ext := dir + "/bulk.ts"
	if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	script, err := writeScript(dir + "/cache")
	if err != nil {
		b.Fatal(err)
	}
	var stream provider.Provider
	h := New(Config{Cwd: dir, AgentDir: dir, Mode: "print",
		Sidecar: &Sidecar{Node: pi.node, Script: script, Package: pi.pkg, Extensions: []string{ext}},
		OnProvider: func(c ProviderChange) error {
			stream = c.Stream
			return nil
		}})
	h.Start()
	defer h.Close()
	if err := h.Wait(context.Background()); err != nil || stream == nil {
		b.Fatalf("start: %v (stream %v)", err, stream)
	}
	req := &provider.Request{Model: &provider.Model{ID: "b1", Provider: "bulk", API: "bulk-api"},
		Messages: []provider.Message{provider.NewUserMessage("go")}}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		deltas := 0
		final := stream.Stream(context.Background(), req, func(e *provider.AssistantEvent) {
			if e.Type == provider.EventTextDelta {
				deltas++
			}
		})
		if deltas != 1000 || final.StopReason != provider.StopReasonStop || len(final.Content[0].Text) != 1000 {
			b.Fatalf("deltas %d, final %+v", deltas, final)
		}
	}
	b.ReportMetric(float64(b.N*1000)/time.Since(start).Seconds(), "deltas/s")
}
