package openai

import (
	"io"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// BenchmarkRequestBody5000Turns: the request of a resumed 5,000-turn session (about 45 MB of JSON):
// converting the transcript, sizing the body, and reading it as the transport does (32 KB at a time).
// The body is never held whole: B/op is what converting and writing allocate.
func BenchmarkRequestBody5000Turns(b *testing.B) {
	m := testModel("http://127.0.0.1:1/v1")
	req := &provider.Request{Model: m, SystemPrompt: "You are pi.", Messages: largeTranscript(5000, 1),
		Tools: []provider.ToolDefinition{bashTool, readTool}}
	c := resolveCompat(m)
	buf := make([]byte, 32<<10)
	var size int64
	b.ReportAllocs()
	for b.Loop() {
		rb, err := newRequestBody(req, &c)
		if err != nil {
			b.Fatal(err)
		}
		readBody(b, rb, buf)
		size = rb.size
	}
	b.SetBytes(size)
	b.ReportMetric(float64(size)/1e6, "body-MB")
}

// readBody reads rb to its end as the transport does, len(buf) bytes at a time.
func readBody(b *testing.B, rb *requestBody, buf []byte) {
	r := rb.reader()
	for {
		_, err := r.Read(buf)
		if err == io.EOF {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
