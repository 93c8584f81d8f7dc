package openai

import (
	"sync"
	"unsafe"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// quotedLens remembers the escaped length of the long strings of the last request, so that the next
// request of the same session sizes its body (the Content-Length, known before the first byte) without
// escaping the whole transcript again: on a resumed 5,000-turn session that escaping was most of the
// cost of preparing each request. Only the strings of the latest request are kept.
//
// A string is known by its address and length. An entry holds the string itself, so its memory stays
// allocated while the entry exists and the address cannot come to hold other bytes.
type quotedLens struct {
	mu   sync.Mutex
	last map[stringKey]quotedLen
}

type stringKey struct {
	p *byte
	n int
}

type quotedLen struct {
	s string // keeps the bytes at the key's address alive
	n int64
}

func keyOf(s string) stringKey { return stringKey{unsafe.StringData(s), len(s)} }

// take hands the last request's lengths to a new request (nil when none, or when another request
// is sizing concurrently: it then simply escapes everything).
func (c *quotedLens) take() map[stringKey]quotedLen {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.last
	c.last = nil
	return m
}

// keep stores the lengths of the request just sized.
func (c *quotedLens) keep(m map[stringKey]quotedLen) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last = m
}

// lenSizer sizes long strings, from prev when it knows them, and records every one in next.
type lenSizer struct {
	prev, next map[stringKey]quotedLen
}

func (z *lenSizer) quotedLen(s string) int64 {
	k := keyOf(s)
	q, ok := z.prev[k]
	if !ok {
		q = quotedLen{s: s, n: int64(jsonx.QuotedLen(s))}
	}
	if z.next != nil {
		z.next[k] = q
	}
	return q.n
}
