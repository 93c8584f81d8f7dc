package shell

import (
	"context"
	"testing"

	"go.uber.org/goleak"
)

// TestAbortedRunLeavesNoGoroutines aborts a command and checks that every goroutine the run started
// (the spawner, the pipe reader) has ended.
func TestAbortedRunLeavesNoGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, res, err := execText(ctx, t.TempDir(), "echo go; sleep 300", 0, func(string) { cancel() })
	if err != nil || !res.Aborted {
		t.Fatalf("result %+v, error %v", res, err)
	}
}
