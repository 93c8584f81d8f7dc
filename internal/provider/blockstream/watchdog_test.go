package blockstream

import (
	"context"
	"testing"
	"time"
)

func TestIdleTimeoutDefaults(t *testing.T) {
	for _, tc := range []struct {
		perCall  time.Duration
		thinking bool
		want     time.Duration
	}{
		{0, false, DefaultIdleTimeout}, {0, true, DefaultReasoningIdleTimeout}, {time.Second, true, time.Second}, {-1, false, -1},
	} {
		if got := IdleTimeout(tc.perCall, tc.thinking); got != tc.want {
			t.Errorf("IdleTimeout(%v, %v) = %v, want %v", tc.perCall, tc.thinking, got, tc.want)
		}
	}
}

// The watchdog cancels a call that goes quiet, and not one that keeps touching it.
func TestWatchdog(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	w := StartWatchdog(20*time.Millisecond, cancel)
	defer w.Stop()
	<-ctx.Done()
	if !Fired(ctx) {
		t.Fatalf("cause %v", context.Cause(ctx))
	}

	ctx2, cancel2 := context.WithCancelCause(context.Background())
	w2 := StartWatchdog(time.Hour, cancel2)
	w2.Touch()
	w2.Stop()
	if ctx2.Err() != nil || Fired(ctx2) {
		t.Errorf("a stopped watchdog fired")
	}
	off := StartWatchdog(-1, cancel2)
	off.Touch()
	off.Stop()
}
