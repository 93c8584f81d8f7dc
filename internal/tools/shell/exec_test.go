package shell

import (
	"context"
	"strings"
	"testing"
	"time"
)

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// execText runs command in dir (timeout 0: none) and returns its whole output. onOutput sees the
// output so far after every chunk, on the caller's goroutine.
func execText(ctx context.Context, dir, command string, timeout time.Duration, onOutput func(soFar string)) (string, Result, error) {
	var out strings.Builder
	res, err := Exec(ctx, command, dir, Options{}, timeout, func(chunk []byte) time.Duration {
		out.Write(chunk)
		if onOutput != nil {
			onOutput(out.String())
		}
		return 0
	}, func() {})
	return out.String(), res, err
}
