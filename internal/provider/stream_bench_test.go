package provider

import (
	"testing"

	"github.com/pi-go/pi-go/internal/cputime"
)

// BenchmarkStreamBuilder measures what the builder adds to one streamed delta: the block update and
// the event (the parsing of the wire format is the provider's, benchmarked in
// provider/openai). Each op is one delta; allocs/op and B/op are per delta.
func BenchmarkStreamBuilder(b *testing.B) {
	m := &Model{ID: "m", Provider: "p", API: APIOpenAICompletions}
	cases := []struct {
		name  string
		setup func(sb *StreamBuilder)
		delta func(sb *StreamBuilder)
	}{
		{"text", func(sb *StreamBuilder) {}, func(sb *StreamBuilder) { sb.Text("a") }},
		{"text-after-thinking", func(sb *StreamBuilder) { sb.Thinking("hmm", "reasoning_content") },
			func(sb *StreamBuilder) { sb.Text("a") }},
		{"toolcall-args", func(sb *StreamBuilder) {
			i := 0
			sb.ToolCall(&i, "call_1", "write", `{"path":"a.txt","content":"`)
		}, func(sb *StreamBuilder) {
			i := 0
			sb.ToolCall(&i, "", "", "a")
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var events int
			var last *AssistantEvent
			sb := NewStreamBuilder(m, func(e *AssistantEvent) { events++; last = e })
			sb.Start()
			c.setup(sb)
			b.ReportAllocs()
			cpuBefore, cpuOK := cputime.Process()
			b.ResetTimer()
			for range b.N {
				// A fresh builder every 200,000 deltas, as a long answer is: the text never outgrows
				// what one response holds.
				if events >= 200_000 {
					b.StopTimer()
					sb = NewStreamBuilder(m, func(e *AssistantEvent) { events++; last = e })
					events = 0
					sb.Start()
					c.setup(sb)
					b.StartTimer()
				}
				c.delta(sb)
			}
			b.StopTimer()
			if cpuAfter, _ := cputime.Process(); cpuOK {
				// Process CPU (GC included): what a delta costs whatever else the shared machine runs.
				b.ReportMetric(float64((cpuAfter-cpuBefore).Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
			if last == nil || last.Partial == nil {
				b.Fatal("no partial message emitted")
			}
		})
	}
}
