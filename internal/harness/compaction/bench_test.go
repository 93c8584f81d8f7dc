package compaction

import (
	"context"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
	"github.com/pi-go/pi-go/internal/session"
)

// benchSession writes a session of n turns (4 entries each, about 2.3 KB of messages per turn) and
// returns its manager, still open.
func benchSession(b *testing.B, n int) *session.Manager {
	b.Helper()
	m := session.Create("/work/proj", b.TempDir())
	appendTurns(b, m, n, 1000)
	return m
}

// BenchmarkPrepare5000Turns prepares the compaction of a 5,000-turn branch whose messages are in
// memory (the usual case: the session was built or already read in this process).
func BenchmarkPrepare5000Turns(b *testing.B) {
	m := benchSession(b, 5000)
	defer m.Close()
	branch := m.Path("")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Prepare(branch, DefaultSettings(), Limits{ContextWindow: 128000}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepare5000TurnsCold prepares the same branch right after opening its file: every message
// is read and decoded (a resumed session compacted at once).
func BenchmarkPrepare5000TurnsCold(b *testing.B) {
	m := benchSession(b, 5000)
	file := m.SessionFile()
	m.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		m, err := session.Open(file, session.OpenOptions{})
		if err != nil {
			b.Fatal(err)
		}
		branch := m.Path("")
		b.StartTimer()
		if _, err := Prepare(branch, DefaultSettings(), Limits{ContextWindow: 128000}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		m.Close()
		b.StartTimer()
	}
}

// BenchmarkCompact5000Turns is a whole compaction of the branch with an instant model: preparation,
// conversion and serialisation of the history into the summary request.
func BenchmarkCompact5000Turns(b *testing.B) {
	m := benchSession(b, 5000)
	defer m.Close()
	branch := m.Path("")
	s := Summarizer{
		Stream: func(ctx context.Context, req *provider.Request, emit func(*provider.AssistantEvent)) *provider.AssistantMessage {
			sb := provider.NewStreamBuilder(req.Model, emit)
			sb.Text("summary")
			return sb.Finish()
		},
		Model: testModel, ConvertToLLM: convert,
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Compact(context.Background(), Params{Summarizer: s, Branch: branch, Settings: DefaultSettings()}); err != nil {
			b.Fatal(err)
		}
	}
}
