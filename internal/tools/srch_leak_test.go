package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"go.uber.org/goleak"

	"github.com/pi-go/pi-go/internal/loop"
)

// TestSearchGoroutinesEnd stops searches early (limits, a visitor that quits, cancellation) and
// checks that every goroutine they started has ended.
func TestSearchGoroutinesEnd(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srchIsolateHome(t)
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 400 {
		files[fmt.Sprintf("d%02d/f%03d.txt", i%20, i)] = "needle\nneedle\n"
	}
	srchWriteFiles(t, dir, files)

	for _, args := range []string{`{"pattern":"needle","limit":3}`, `{"pattern":"needle","limit":100000}`} {
		if _, err := (&grepTool{cwd: dir, backend: grepPureGo}).Execute(context.Background(),
			loop.ToolCall{Args: json.RawMessage(args)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := (&findTool{cwd: dir, backend: findPureGo}).Execute(context.Background(),
		loop.ToolCall{Args: json.RawMessage(`{"pattern":"*.txt","limit":5}`)}, nil); err != nil {
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
	_, err = (&grepTool{cwd: dir, backend: grepPureGo}).Execute(ctx,
		loop.ToolCall{Args: json.RawMessage(`{"pattern":"needle","limit":100000}`)}, nil)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
}
