package curvetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/provider"
)

// BenchmarkBuild is what building one request body of a long session costs at 100, 1,000 and 5,000
// turns: request builds the request of a transcript of turns turns, and newBuilder a function that
// builds a body and returns its size, keeping what the provider caches between requests when cached
// is true. "prepare" builds from scratch, as for the first request after a resume; "next" is a
// session's next request, the previous one (the transcript up to the last tool result) built first
// through the same cache, outside the timer. cpu-ms/op is process CPU time (steadier than ns/op on a
// shared machine).
func BenchmarkBuild(b *testing.B, request func(turns int) *provider.Request, newBuilder func(cached bool) func(*provider.Request) int) {
	for _, turns := range []int{100, 1000, 5000} {
		req := request(turns)
		prev := *req
		prev.Messages = req.Messages[:len(req.Messages)-1]
		for _, step := range []string{"prepare", "next"} {
			b.Run(fmt.Sprintf("%s/turns=%d", step, turns), func(b *testing.B) {
				next := step == "next"
				build := newBuilder(next)
				b.ReportAllocs()
				var cpu time.Duration
				var size int
				for b.Loop() {
					if next {
						b.StopTimer()
						build(&prev)
						b.StartTimer()
					}
					cpu0, _ := cputime.Process()
					size = build(req)
					cpu1, _ := cputime.Process()
					cpu += cpu1 - cpu0
				}
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
				b.ReportMetric(float64(size)/1e6, "body-MB")
			})
		}
	}
}
