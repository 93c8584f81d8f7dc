package tools

import (
	"context"
	"path/filepath"
	"sync"
)

// MutationQueue serialises changes to one file: write and edit calls that target the same file run
// one after another, in the order they asked, while calls on different files run in parallel. Share
// one queue between every write and edit tool that may touch the same files (one per process is
// simplest); the zero value is ready to use.
type MutationQueue struct {
	mu    sync.Mutex
	files map[string][]*mutationTicket // per file key: the holder first, then the waiters in order
	// changed, when set (tests), is called under the lock after every change of a line.
	changed func()
}

type mutationTicket struct {
	ready chan struct{} // closed when this ticket holds the file
}

// NewMutationQueue returns an empty queue.
func NewMutationQueue() *MutationQueue { return &MutationQueue{} }

// queueOrNew is q, or a queue of its own for a tool given none.
func queueOrNew(q *MutationQueue) *MutationQueue {
	if q == nil {
		return NewMutationQueue()
	}
	return q
}

// lockForChange waits for abs's turn in q before a write or an edit: errAborted when ctx ends
// before the turn comes or as it comes.
func lockForChange(ctx context.Context, q *MutationQueue, abs string) (unlock func(), err error) {
	if unlock, err = q.Lock(ctx, abs); err != nil {
		return nil, errAborted
	}
	if ctx.Err() != nil {
		unlock()
		return nil, errAborted
	}
	return unlock, nil
}

// mutationKey names the file behind path: symlinks resolved so two spellings of one file share a
// turn. A file that does not exist yet is named through its resolved folder.
func mutationKey(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// Lock waits for path's turn and returns the function that ends it. The turn is taken in the order
// Lock is called. If ctx ends first, Lock gives up its place and returns ctx's error.
func (q *MutationQueue) Lock(ctx context.Context, path string) (unlock func(), err error) {
	key := mutationKey(path)
	t := &mutationTicket{ready: make(chan struct{})}
	q.mu.Lock()
	if q.files == nil {
		q.files = make(map[string][]*mutationTicket)
	}
	q.files[key] = append(q.files[key], t)
	if len(q.files[key]) == 1 {
		close(t.ready)
	}
	if q.changed != nil {
		q.changed()
	}
	q.mu.Unlock()

	var once sync.Once
	unlock = func() { once.Do(func() { q.release(key, t) }) }
	select {
	case <-t.ready:
		return unlock, nil
	case <-ctx.Done():
		q.release(key, t)
		return nil, ctx.Err()
	}
}

// release removes t from key's line; when t held the file, the next waiter gets it.
func (q *MutationQueue) release(key string, t *mutationTicket) {
	q.mu.Lock()
	defer q.mu.Unlock()
	line := q.files[key]
	for i, w := range line {
		if w != t {
			continue
		}
		line = append(line[:i:i], line[i+1:]...)
		if i == 0 && len(line) > 0 {
			close(line[0].ready)
		}
		break
	}
	if len(line) == 0 {
		delete(q.files, key)
	} else {
		q.files[key] = line
	}
	if q.changed != nil {
		q.changed()
	}
}

// waiting reports how many calls hold or wait for path's turn (for tests).
func (q *MutationQueue) waiting(path string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.files[mutationKey(path)])
}
