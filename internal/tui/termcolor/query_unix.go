//go:build unix

package termcolor

import (
	"errors"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

// Query asks the terminal on in/out for its colours and waits at most timeout for the answers (pi
// waits 100 ms). in must be a terminal in raw mode that nothing else reads yet. A terminal that does
// not answer gives nil colours. Keys typed during the wait are dropped.
func Query(in *os.File, out io.Writer, timeout time.Duration) (bg, fg *theme.RGB) {
	if _, err := io.WriteString(out, query); err != nil {
		return nil, nil
	}
	fd := int(in.Fd())
	deadline := time.Now().Add(timeout)
	var buf []byte
	chunk := make([]byte, 256)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		// poll rather than a blocking read in a goroutine: a read left waiting would steal the
		// user's first key from Bubble Tea.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			break
		}
		r, err := unix.Read(fd, chunk)
		if r <= 0 || (err != nil && !errors.Is(err, unix.EINTR)) {
			break
		}
		buf = append(buf, chunk[:r]...)
		var done bool
		if bg, fg, done = parse(buf); done {
			return bg, fg
		}
	}
	bg, fg, _ = parse(buf)
	return bg, fg
}
