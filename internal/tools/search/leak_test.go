package search

import (
	"context"
	"fmt"
	"testing"

	"go.uber.org/goleak"
)

// TestSearchGoroutinesEnd stops searches early (limits, a visitor that quits, cancellation) and
// checks that every goroutine they started has ended.
func TestSearchGoroutinesEnd(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	isolateHome(t)
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 400 {
		files[fmt.Sprintf("d%02d/f%03d.txt", i%20, i)] = "needle\nneedle\n"
	}
	writeFiles(t, dir, files)

	grepFor := func(limit float64) *GrepRequest {
		return &GrepRequest{Path: dir, IsDir: true, Pattern: "needle", Limit: limit, Cwd: dir}
	}
	for _, limit := range []float64{3, 100000} {
		if _, _, err := Grep(context.Background(), grepFor(limit), PureGo); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := NewFinder(PureGo).Find(context.Background(),
		&FindRequest{Path: dir, Pattern: "*.txt", Limit: 5, Cwd: dir}); err != nil {
		t.Fatal(err)
	}

	visited := 0
	if err := walkTree(context.Background(), dir, &walkOptions{}, func(*walkEntry) bool {
		visited++
		return visited < 10
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err := walkTree(ctx, dir, &walkOptions{}, func(*walkEntry) bool {
		cancel()
		return true
	})
	if err != context.Canceled {
		t.Fatalf("cancelled walk returned %v", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	_, _, err = Grep(ctx, grepFor(100000), PureGo)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
}
