package session

import (
	"sync"
	"testing"
)

// Readers (a UI walking the tree, decoding messages, reading raw lines) run while entries are
// appended and written; -race checks the entry locations that change when pending entries are
// written.
func TestConcurrentReadersWhileAppending(t *testing.T) {
	dir := t.TempDir()
	s := Create("/proj", dir)
	defer s.Close()
	ok := mustAppend(t)
	ok(s.AppendMessage(userMsg("q0"))) // pending until the assistant message below
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				for _, e := range s.Entries() {
					if _, err := e.Raw(); err != nil {
						t.Error(err)
						return
					}
					if e.Type == TypeMessage {
						if _, err := e.Message(); err != nil {
							t.Error(err)
							return
						}
					}
				}
				s.Tree()
				if _, err := s.BuildContext(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := 0; i < 200; i++ {
		ok(s.AppendMessage(assistantMsg("a")))
		ok(s.AppendMessage(userMsg("q")))
		ok(s.AppendLabelChange(s.LeafID(), "l"))
	}
	close(done)
	wg.Wait()
}
