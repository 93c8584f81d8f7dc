package clipboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// limitedBuffer keeps at most maxBytes and notes an overflow.
type limitedBuffer struct {
	bytes.Buffer
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > maxBytes {
		b.over = true
		return 0, errors.New("clipboard output too large")
	}
	return b.Buffer.Write(p)
}

// run runs a clipboard tool from "/" in its own process group (a tool that stays behind as the
// clipboard's owner must not be stopped by the terminal's Ctrl+Z), with stdin and stderr closed,
// and returns its output; errUnavailable (wrapped) when it is missing, fails or times out.
func run(ctx context.Context, timeout time.Duration, name string, args ...string) ([]byte, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %s not found", errUnavailable, name)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out limitedBuffer
	cmd.Stdout = &out
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil || out.over {
		return nil, fmt.Errorf("%w: %s: %v", errUnavailable, name, err)
	}
	return out.Bytes(), nil
}
