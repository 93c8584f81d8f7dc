package session

import (
	"bytes"
	"os"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

// BenchmarkDecodeMessages decodes every message of the 50 MB benchmark session from memory (no I/O):
// the cost of the message decoder alone.
func BenchmarkDecodeMessages(b *testing.B) {
	path, _ := benchFile(b, "linear-5000", 5000, 0)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var msgs [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if p, err := scanLine(line, &msgHead{}); err == nil && p.typ == TypeMessage {
			msgs = append(msgs, line[p.msgStart:p.msgEnd])
		}
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	var dec provider.MessageDecoder
	for i := 0; i < b.N; i++ {
		for _, m := range msgs {
			if _, err := dec.Decode(m); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}
