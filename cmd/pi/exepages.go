package main

import (
	"context"
	"time"

	"github.com/pi-go/pi-go/internal/cputime"
)

// Once an interactive or RPC process has started, it releases its executable's pages again when it
// has gone quiet: the first frame, the resources and the extensions' start touch as much of the
// binary again as start-up did, and an idle process needs a fraction of it.
const (
	settleTick   = 500 * time.Millisecond
	settleQuiet  = 5 * time.Millisecond // CPU time over one tick below which the process is quiet
	settleGiveUp = 30 * time.Second
)

// releaseWhenSettled calls release once the process has used less than quiet of CPU over one tick,
// and then returns; it gives up after giveUpAfter of activity, or when ctx ends.
func releaseWhenSettled(ctx context.Context, tickEvery, quiet, giveUpAfter time.Duration, release func() int) {
	last, ok := cputime.Process()
	if !ok {
		return
	}
	tick := time.NewTicker(tickEvery)
	defer tick.Stop()
	giveUp := time.NewTimer(giveUpAfter)
	defer giveUp.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-giveUp.C:
			return
		case <-tick.C:
			now, _ := cputime.Process()
			if now-last < quiet {
				release()
				return
			}
			last = now
		}
	}
}

// startSettleRelease runs releaseWhenSettled for the life of a mode; the returned stop ends it and
// waits for it.
func startSettleRelease(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		releaseWhenSettled(ctx, settleTick, settleQuiet, settleGiveUp, releaseExecutablePages)
	}()
	return func() {
		cancel()
		<-done
	}
}
