package loop

import "github.com/pi-go/pi-go/internal/provider"

// messageQueue is a FIFO of steering or follow-up messages. The Agent's mutex guards it; the mode is
// read at every poll, so a change takes effect at the next poll of a running loop.
type messageQueue struct {
	mode  QueueMode
	items []provider.Message
}

func normaliseMode(m QueueMode) QueueMode {
	if m == QueueAll {
		return QueueAll
	}
	return QueueOneAtATime
}

func (q *messageQueue) push(m provider.Message) { q.items = append(q.items, m) }

// drain takes what one poll takes: the first message, or all of them in "all" mode.
func (q *messageQueue) drain() []provider.Message {
	if len(q.items) == 0 {
		return nil
	}
	if q.mode == QueueAll {
		out := q.items
		q.items = nil
		return out
	}
	out := []provider.Message{q.items[0]}
	q.items[0] = nil
	q.items = q.items[1:]
	if len(q.items) == 0 {
		q.items = nil
	}
	return out
}

// clear empties the queue and returns what it held.
func (q *messageQueue) clear() []provider.Message {
	out := q.items
	q.items = nil
	return out
}
