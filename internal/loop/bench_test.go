package loop

import (
	"context"
	"runtime"
	"testing"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/provider"
)

// BenchmarkDeltaOverhead measures what the loop adds to one streamed text delta: the stream callback,
// the Agent's state update and delivery to one subscriber. The provider's events are built before the
// timer starts, so the allocations reported are the loop's own.
func BenchmarkDeltaOverhead(b *testing.B) {
	partial := &provider.AssistantMessage{Content: []provider.Content{provider.TextContent("x")}, StopReason: provider.StopReasonStop}
	start := &provider.AssistantEvent{Type: provider.EventStart, Partial: partial}
	textStart := &provider.AssistantEvent{Type: provider.EventTextStart, Partial: partial}
	delta := &provider.AssistantEvent{Type: provider.EventTextDelta, Delta: "x", Partial: partial}
	stream := func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
		emit(start)
		emit(textStart)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			emit(delta)
		}
		b.StopTimer()
		return partial
	}
	a := NewAgent(Config{Stream: stream}, State{Model: testModel})
	var bytes int
	a.Subscribe(func(ev Event) {
		if ev.AssistantEvent != nil {
			bytes += len(ev.AssistantEvent.Delta)
		}
	})
	if err := a.Prompt(context.Background(), user("hi")); err != nil {
		b.Fatal(err)
	}
	if bytes != b.N {
		b.Fatalf("subscriber saw %d deltas, want %d", bytes, b.N)
	}
}

const runDeltas = 100_000

// streamDeltas streams n small text deltas through a real StreamBuilder, as a provider does.
func streamDeltas(n int) StreamFunc {
	return func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
		sb := provider.NewStreamBuilder(req.Model, emit)
		sb.Start()
		for range n {
			sb.Text("tok ")
		}
		return sb.Finish()
	}
}

// heapPeak samples the live heap every few thousand events (ReadMemStats stops the world, so not on
// every delta).
type heapPeak struct {
	n    int
	peak uint64
	ms   runtime.MemStats
}

func (h *heapPeak) sample() {
	if h.n++; h.n%5000 != 0 {
		return
	}
	runtime.ReadMemStats(&h.ms)
	h.peak = max(h.peak, h.ms.HeapAlloc)
}

// BenchmarkRun100kDeltas runs a whole prompt whose answer streams 100,000 text deltas, in memory:
// provider StreamBuilder, loop, Agent state and one subscriber. It reports ns per delta and the peak
// live heap.
func BenchmarkRun100kDeltas(b *testing.B) {
	b.Run("subscriber", func(b *testing.B) {
		b.ReportAllocs()
		var peak uint64
		cpuBefore, cpuOK := cputime.Process()
		for range b.N {
			runtime.GC()
			a := NewAgent(Config{Stream: streamDeltas(runDeltas)}, State{Model: testModel})
			h := &heapPeak{}
			a.Subscribe(func(ev Event) { h.sample() })
			if err := a.Prompt(context.Background(), user("hi")); err != nil {
				b.Fatal(err)
			}
			final := a.Messages()[1].(*provider.AssistantMessage)
			if len(final.Content[0].Text) != 4*runDeltas {
				b.Fatalf("final text %d bytes", len(final.Content[0].Text))
			}
			peak = max(peak, h.peak)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/runDeltas, "ns/delta")
		if cpuAfter, _ := cputime.Process(); cpuOK {
			// Process CPU (GC included), steadier than wall time on a shared machine.
			b.ReportMetric(float64((cpuAfter-cpuBefore).Nanoseconds())/float64(b.N)/runDeltas, "cpu-ns/delta")
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	})
}

// BenchmarkJSONEventLines encodes every event of a 20,000-delta answer as pi 1.6's JSON mode writes it
// (a message_update line carries the delta and the usage, so the output grows with the answer), into
// one reused buffer. ns/op is per delta; B/s is output bytes.
func BenchmarkJSONEventLines(b *testing.B) {
	const deltas = 20_000
	var events []Event
	a := NewAgent(Config{Stream: func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
		sb := provider.NewStreamBuilder(req.Model, emit)
		sb.Start()
		for range deltas {
			sb.Text("a")
		}
		return sb.Finish()
	}}, State{Model: testModel})
	a.Subscribe(func(e Event) { events = append(events, e) })
	if err := a.Prompt(context.Background(), user("hi")); err != nil {
		b.Fatal(err)
	}
	var total int64
	for i := range events {
		data, err := events[i].MarshalJSON()
		if err != nil {
			b.Fatal(err)
		}
		total += int64(len(data)) + 1
	}
	b.SetBytes(total / deltas)
	b.ReportAllocs()
	var buf []byte
	for i := 0; i < b.N; {
		for j := range events {
			if i == b.N {
				break
			}
			var err error
			if buf, err = events[j].AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
			if events[j].Type == EventMessageUpdate && events[j].AssistantEvent.IsDelta() {
				i++
			}
		}
	}
}

// BenchmarkRequestLongTranscript is one prompt and answer on a transcript of 10,000 messages with
// four tools: what the loop does per request besides streaming (copy the state, declare tool
// changes, replay the system messages into the request's prompt and tools).
func BenchmarkRequestLongTranscript(b *testing.B) {
	var msgs []provider.Message
	for i := range 5000 {
		msgs = append(msgs, user("question"), &provider.AssistantMessage{
			Content: []provider.Content{provider.TextContent("answer")}, StopReason: provider.StopReasonStop, Timestamp: int64(i)})
	}
	tools := []Tool{&testTool{name: "read"}, &testTool{name: "bash"}, &testTool{name: "edit"}, &testTool{name: "write"}}
	answer := func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
		sb := provider.NewStreamBuilder(req.Model, emit)
		sb.Start()
		sb.Text("ok")
		return sb.Finish()
	}
	a := NewAgent(Config{Stream: answer}, State{Model: testModel, SystemPrompt: "be brief", Tools: tools, Messages: msgs})
	start := a.Messages() // the system message NewAgent added, then msgs
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		a.ReplaceMessages(start) // a copy of 10,001 pointers, counted in the time
		if err := a.Prompt(context.Background(), user("more")); err != nil {
			b.Fatal(err)
		}
	}
}
