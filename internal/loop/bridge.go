package loop

import (
	"context"
	"strings"
	"sync"
)

// Bridge carries an Agent's events to a consumer on another goroutine (the TUI, the RPC writer) without
// letting a slow consumer hold the loop up: Push only appends to a queue. While the consumer is behind,
// consecutive deltas (text, thinking or tool-call arguments) of the same content block are merged into
// one event carrying the concatenated delta and the newest partial message; every other event is kept,
// in order. The consumer reads a streaming answer with Event.MessageSnapshot (the provider keeps
// changing the message itself).
//
//	b := loop.NewBridge()
//	unsubscribe := agent.Subscribe(b.Push)
//	for { events, err := b.Next(ctx); ... }
type Bridge struct {
	mu      sync.Mutex
	pending []Event
	// merging says the last pending event is a merged delta whose text lives in merged.
	merging bool
	merged  strings.Builder
	ready   chan struct{}
}

// NewBridge returns an empty bridge.
func NewBridge() *Bridge { return &Bridge{ready: make(chan struct{}, 1)} }

// Push queues an event; use it as the Agent subscriber. It never blocks for longer than an append.
func (b *Bridge) Push(ev Event) {
	b.mu.Lock()
	if n := len(b.pending); n > 0 && ev.IsDelta() {
		last := &b.pending[n-1]
		if last.IsDelta() && last.AssistantEvent.Type == ev.AssistantEvent.Type &&
			last.AssistantEvent.ContentIndex == ev.AssistantEvent.ContentIndex {
			if !b.merging {
				b.merged.Reset()
				b.merged.WriteString(last.AssistantEvent.Delta)
				b.merging = true
			}
			b.merged.WriteString(ev.AssistantEvent.Delta)
			// The newest event carries the newest partial; its delta is replaced when the merge ends.
			last.Message = ev.Message
			last.AssistantEvent = ev.AssistantEvent
			b.mu.Unlock()
			return
		}
	}
	b.endMerge()
	b.pending = append(b.pending, ev)
	b.mu.Unlock()
	select {
	case b.ready <- struct{}{}:
	default:
	}
}

// endMerge gives the last pending event its concatenated delta. The provider's event is not changed:
// the merged event gets its own copy. The caller holds b.mu.
func (b *Bridge) endMerge() {
	if !b.merging {
		return
	}
	b.merging = false
	last := &b.pending[len(b.pending)-1]
	ae := *last.AssistantEvent
	ae.Delta = b.merged.String()
	last.AssistantEvent = &ae
	b.merged.Reset()
}

// Ready is signalled after Push when events may be waiting; a consumer that selects on it calls Drain.
func (b *Bridge) Ready() <-chan struct{} { return b.ready }

// Drain returns every queued event (oldest first) and empties the queue; nil when there is none.
func (b *Bridge) Drain() []Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.endMerge()
	out := b.pending
	b.pending = nil
	return out
}

// Next waits until at least one event is queued and returns every queued event, or returns ctx's error.
func (b *Bridge) Next(ctx context.Context) ([]Event, error) {
	for {
		if evs := b.Drain(); len(evs) > 0 {
			return evs, nil
		}
		select {
		case <-b.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Len is the number of queued events.
func (b *Bridge) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}
