package provider

import "sync"

// LastRequest holds what a provider kept of its last request (the converted or encoded transcript)
// for a session's next request to build on: a transcript grows at its end, so the next request
// converts only what is new. One request at a time holds it: Take empties it, so a request built at
// the same time starts from scratch rather than share a state another request is writing. A nil
// *LastRequest keeps nothing.
type LastRequest[T any] struct {
	mu   sync.Mutex
	last *T
}

// Take hands the kept state to a new request, or nil when there is none or another request holds it.
func (c *LastRequest[T]) Take() *T {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.last
	c.last = nil
	return st
}

// Keep stores the state of a request for the next one; nil keeps what is there.
func (c *LastRequest[T]) Keep(st *T) {
	if c == nil || st == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = st
}
