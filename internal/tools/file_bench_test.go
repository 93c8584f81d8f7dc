package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-go/pi-go/internal/loop"
)

// reportMaxRSS reports the process's peak resident memory: had the tool loaded the file, this
// would be at least the file's size.
func reportMaxRSS(b *testing.B) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "maxrss-MB") // Linux reports KiB
	}
}

// BenchmarkReadOffsetMiddle100MB reads 100 lines from the middle of a 100 MB file (and, as pi's
// hints need, counts the file's lines).
func BenchmarkReadOffsetMiddle100MB(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "big.txt")
	lines := readWriteBigFile(b, path, 100<<20)
	tool := NewRead(dir, ReadOptions{})
	mid := lines / 2
	args, _ := json.Marshal(map[string]any{"path": path, "offset": mid, "limit": 100})
	call := loop.ToolCall{Name: "read", Args: args}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := tool.Execute(context.Background(), call, nil)
		if err != nil {
			b.Fatal(err)
		}
		if text := res.Content[0].Text; !strings.HasPrefix(text, fmt.Sprintf("line %d ", mid)) {
			b.Fatalf("unexpected text %q", text[:40])
		}
	}
	b.StopTimer()
	reportMaxRSS(b)
}

// BenchmarkEdit10MB replaces one line in the middle of a 10 MB file: read, match (pi also counts
// occurrences in the normalised file), atomic write with fsync, diff.
func BenchmarkEdit10MB(b *testing.B) {
	for _, mode := range []string{"exact", "fuzzy"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "big.txt")
			lines := readWriteBigFile(b, path, 10<<20)
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			// A marker line in the middle; the fuzzy variant writes it with smart quotes and matches
			// it with ASCII ones, so every iteration takes the normalised path.
			marker := func(v string) string { return fmt.Sprintf("marker %q", v) }
			if mode == "fuzzy" {
				marker = func(v string) string { return "marker \u201C" + v + "\u201D" }
			}
			mid := strings.Index(string(data[len(data)/2:]), "\n") + len(data)/2 + 1
			content := string(data[:mid]) + marker("A") + "\n" + string(data[mid:])
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
			tool := NewEdit(dir, EditOptions{})
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				from, to := "A", "B"
				if i%2 == 1 {
					from, to = "B", "A"
				}
				i++
				args, _ := json.Marshal(editArgs("big.txt", fmt.Sprintf("marker %q", from), marker(to)))
				res, err := tool.Execute(context.Background(), loop.ToolCall{Name: "edit", Args: args}, nil)
				if err != nil {
					b.Fatal(err)
				}
				if d := res.Details.(*EditDetails); d.FirstChangedLine < lines/2 {
					b.Fatalf("first changed line %d", d.FirstChangedLine)
				}
			}
			b.StopTimer()
			reportMaxRSS(b)
		})
	}
}
