package tui

import (
	"context"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/loop"
)

// inbox carries what happens on other goroutines (the session's events, a `!` command's output)
// into Update without ever making the producer wait for the UI: pushing only appends under a lock.
// While the UI is behind, consecutive message_update events are merged (each gives the whole partial
// message, which Update copies with MessageSnapshot, so the newest one says everything) and so are consecutive output chunks of the
// same `!` command; every other event (the session's retry, compaction and queue events included) is
// kept, in order.
type inbox struct {
	mu      sync.Mutex
	pending []inboxItem
	ready   chan struct{}
}

// inboxItem is one session event or one message for Update.
type inboxItem struct {
	ev  harness.Event
	msg tea.Msg // nil for a session event
}

// inboxMsg delivers everything the inbox held, oldest first.
type inboxMsg []inboxItem

func newInbox() *inbox { return &inbox{ready: make(chan struct{}, 1)} }

// pushEvent queues a session event; it is the session subscriber.
func (b *inbox) pushEvent(ev harness.Event) {
	b.mu.Lock()
	if n := len(b.pending); n > 0 && isStreamUpdate(ev) && b.pending[n-1].msg == nil &&
		isStreamUpdate(b.pending[n-1].ev) {
		b.pending[n-1].ev = ev
		b.mu.Unlock()
		return
	}
	b.pending = append(b.pending, inboxItem{ev: ev})
	b.mu.Unlock()
	b.signal()
}

// pushMsg queues a message for Update.
func (b *inbox) pushMsg(msg tea.Msg) {
	b.mu.Lock()
	if c, ok := msg.(bashChunkMsg); ok {
		if n := len(b.pending); n > 0 {
			if last, ok := b.pending[n-1].msg.(bashChunkMsg); ok && last.id == c.id {
				last.text += c.text
				b.pending[n-1].msg = last
				b.mu.Unlock()
				return
			}
		}
	}
	b.pending = append(b.pending, inboxItem{msg: msg})
	b.mu.Unlock()
	b.signal()
}

func (b *inbox) signal() {
	select {
	case b.ready <- struct{}{}:
	default:
	}
}

// drain returns everything queued and empties the queue.
func (b *inbox) drain() []inboxItem {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.pending
	b.pending = nil
	return out
}

// wait is the command that delivers the next batch; Update re-arms it after every batch (Bubble
// Tea's realtime pattern). It returns nil once ctx ends.
func (b *inbox) wait(ctx context.Context) tea.Cmd {
	return func() tea.Msg {
		for {
			if items := b.drain(); len(items) > 0 {
				return inboxMsg(items)
			}
			select {
			case <-b.ready:
			case <-ctx.Done():
				return nil
			}
		}
	}
}

func isStreamUpdate(ev harness.Event) bool {
	return ev.Agent != nil && ev.Agent.Type == loop.EventMessageUpdate
}
