package filewatch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestWatch(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.json")
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := Watch(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	wait := func(what string) {
		t.Helper()
		select {
		case _, ok := <-ch:
			if !ok {
				t.Fatalf("%s: channel closed", what)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: no change reported", what)
		}
	}
	if err := os.WriteFile(path, []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	wait("create")
	// An editor's save: write a temporary file, rename it over the original.
	tmp := filepath.Join(dir, ".mine.json.swp")
	if err := os.WriteFile(tmp, []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	wait("rename over")
	cancel()
	for range ch { // drains, then ends: the watcher stopped and closed the channel
	}
}

func TestTouches(t *testing.T) {
	if touches(nil, "x") || touches([]byte{1, 2}, "x") {
		t.Error("an empty or torn buffer touches nothing")
	}
}

func TestWatchMissingDirectory(t *testing.T) {
	if _, err := Watch(context.Background(), filepath.Join(t.TempDir(), "nope", "x.json")); err == nil {
		t.Error("watching in a missing directory should fail")
	}
}
