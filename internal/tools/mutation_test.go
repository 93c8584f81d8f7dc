package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// mutationWatch makes q report its changes; mutationWaitFor then waits for them.
func mutationWatch(q *MutationQueue) chan struct{} {
	ch := make(chan struct{}, 1)
	q.changed = func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	return ch
}

// mutationWaitFor waits until n calls hold or wait for path, woken by the queue's changes.
func mutationWaitFor(t *testing.T, q *MutationQueue, changed chan struct{}, path string, n int) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for q.waiting(path) != n {
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("queue for %s never reached %d callers (has %d)", path, n, q.waiting(path))
		}
	}
}

func TestMutationQueueOrder(t *testing.T) {
	q := NewMutationQueue()
	changed := mutationWatch(q)
	path := filepath.Join(t.TempDir(), "f.txt")
	first, err := q.Lock(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan int, 5)
	done := make(chan struct{})
	for i := 1; i <= 5; i++ {
		go func() {
			unlock, err := q.Lock(context.Background(), path)
			if err != nil {
				t.Error(err)
				return
			}
			order <- i
			unlock()
			if i == 5 {
				close(done)
			}
		}()
		mutationWaitFor(t, q, changed, path, i+1) // caller i is queued before caller i+1 starts
	}
	first()
	<-done
	close(order)
	want := 1
	for got := range order {
		if got != want {
			t.Fatalf("turn %d went to caller %d", want, got)
		}
		want++
	}
	if q.waiting(path) != 0 {
		t.Error("queue not empty after everyone finished")
	}
}

func TestMutationQueueCancelledWaiterGivesUpItsPlace(t *testing.T) {
	q := NewMutationQueue()
	changed := mutationWatch(q)
	path := filepath.Join(t.TempDir(), "f.txt")
	hold, _ := q.Lock(context.Background(), path)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := q.Lock(ctx, path)
		errc <- err
	}()
	mutationWaitFor(t, q, changed, path, 2)
	got := make(chan struct{})
	go func() {
		unlock, _ := q.Lock(context.Background(), path)
		unlock()
		close(got)
	}()
	mutationWaitFor(t, q, changed, path, 3)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter got %v", err)
	}
	hold()
	hold() // a second unlock is harmless
	<-got
}

func TestMutationQueueKeysFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	a := mutationKey(filepath.Join(dir, "real", "new.txt"))
	b := mutationKey(filepath.Join(dir, "alias", "new.txt"))
	if a != b {
		t.Errorf("one file, two keys: %q and %q", a, b)
	}
	q := NewMutationQueue()
	unlock, _ := q.Lock(context.Background(), filepath.Join(dir, "alias", "new.txt"))
	if q.waiting(filepath.Join(dir, "real", "new.txt")) != 1 {
		t.Error("the lock taken through the alias is not seen through the real path")
	}
	unlock()
	// Different files do not wait for each other.
	u1, _ := q.Lock(context.Background(), filepath.Join(dir, "a"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	u2, err := q.Lock(ctx, filepath.Join(dir, "b"))
	if err != nil {
		t.Fatal("a second file waited for the first")
	}
	u1()
	u2()
}
