package harness

import (
	"slices"
	"sync"
	"testing"
)

// A steering message and a follow-up queued at the same moment from two goroutines (the TUI sends each
// from its own command) end with a queue_update that shows both, even when the older snapshot reaches
// the listeners last: here the steering goroutine is held between its snapshot and its delivery until
// the follow-up's update has been delivered.
func TestConcurrentQueueingEndsWithTheCurrentQueues(t *testing.T) {
	f := newFixture(t, nil, nil)
	steerSnapshot, followUpDelivered := make(chan struct{}), make(chan struct{})
	testHookQueueSnapshot = func(steering, followUp []string) {
		if len(steering) == 1 && len(followUp) == 0 {
			close(steerSnapshot)
			<-followUpDelivered
		}
	}
	t.Cleanup(func() { testHookQueueSnapshot = nil })
	var (
		mu   sync.Mutex
		last Event
	)
	unsubscribe := f.s.Subscribe(func(e Event) {
		if e.Type == EventQueueUpdate {
			mu.Lock()
			last = e
			mu.Unlock()
		}
	})
	defer unsubscribe()

	steered := make(chan struct{})
	go func() { defer close(steered); f.s.Steer("steer", nil) }()
	<-steerSnapshot // the follow-up's snapshot, taken now, holds both messages
	f.s.FollowUp("follow", nil)
	close(followUpDelivered)
	<-steered

	mu.Lock()
	got := last
	mu.Unlock()
	if !slices.Equal(got.Steering, []string{"steer"}) || !slices.Equal(got.FollowUp, []string{"follow"}) {
		t.Fatalf("last queue_update = steering %q, follow-up %q; want both queued", got.Steering, got.FollowUp)
	}
}
