package openai

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"testing"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

const benchDeltas = 200_000

// benchmarkStream streams benchDeltas one-character deltas per iteration and reports the cost per delta.
func benchmarkStream(b *testing.B, p *Provider, baseURL string) {
	m := testModel(baseURL)
	req := simpleRequest(m)
	req.Options.APIKey = testKey
	var deltas int
	emit := func(e *provider.AssistantEvent) {
		if e.Type == provider.EventTextDelta {
			deltas++
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpuBefore, cpuOK := cputime.Process()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		deltas = 0
		msg := p.Stream(context.Background(), req, emit)
		if msg.StopReason != provider.StopReasonStop || deltas != benchDeltas {
			b.Fatalf("stream: %s %q, %d deltas", msg.StopReason, msg.ErrorMessage, deltas)
		}
	}
	b.StopTimer()
	cpuAfter, _ := cputime.Process()
	runtime.ReadMemStats(&after)
	total := float64(b.N) * benchDeltas
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/delta")
	b.ReportMetric(total/b.Elapsed().Seconds(), "deltas/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/total, "allocs/delta")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/total, "B/delta")
	if cpuOK {
		// CPU time of the whole process (server included on loopback): the cost on one core, whatever
		// else the machine is doing.
		b.ReportMetric(float64((cpuAfter-cpuBefore).Nanoseconds())/total, "cpu-ns/delta")
	}
}

// BenchmarkStreamLoopback: 200,000 one-character deltas from the scripted server on 127.0.0.1,
// through the request path, our SSE reader and chunk decoder, into provider events.
func BenchmarkStreamLoopback(b *testing.B) {
	srv := openaitest.Start(b)
	srv.SetFallback(openaitest.Response{Raw: openaitest.LongText("test-model", benchDeltas, "a")})
	p := newTestProvider(b, Config{})
	benchmarkStream(b, p, srv.URL)
}

// memoryTransport answers every request with the same body, so the benchmark measures the client
// alone (no server, no kernel).
type memoryTransport struct{ body []byte }

func (t memoryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(t.body)), Request: req}, nil
}

// BenchmarkStreamInMemory is the same stream from an in-memory RoundTripper (as the demo model uses).
func BenchmarkStreamInMemory(b *testing.B) {
	body := openaitest.LongText("test-model", benchDeltas, "a")
	p := New(Config{HTTPClient: &http.Client{Transport: memoryTransport{body}}})
	benchmarkStream(b, p, "http://memory/v1")
}

// BenchmarkChunkDecode: what the JSON reading of one delta costs alone: the SSE reader's check that
// the event is whole and the decode of the chunk, over the data lines of a 2,000-delta stream.
func BenchmarkChunkDecode(b *testing.B) {
	var lines [][]byte
	for _, l := range bytes.Split(openaitest.LongText("test-model", 2000, "a"), []byte("\n")) {
		if d, ok := bytes.CutPrefix(l, []byte("data: ")); ok && !isDone(d) {
			lines = append(lines, d)
		}
	}
	var r sseReader
	var d chunkDecoder
	b.ReportAllocs()
	cpuBefore, cpuOK := cputime.Process()
	for b.Loop() {
		for _, l := range lines {
			if _, err := d.decode(l); err != nil || !r.complete(l) {
				b.Fatal(err)
			}
		}
	}
	cpuAfter, _ := cputime.Process()
	total := float64(b.N) * float64(len(lines))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/chunk")
	if cpuOK {
		b.ReportMetric(float64((cpuAfter-cpuBefore).Nanoseconds())/total, "cpu-ns/chunk")
	}
}
