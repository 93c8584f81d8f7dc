package filewatch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Watch reports changes to the file at path on the returned channel (one value per burst of
// changes, never blocking the watcher) until ctx ends; then the channel is closed. The file's
// directory must exist; the file need not.
func Watch(ctx context.Context, path string) (<-chan struct{}, error) {
	dir, name := filepath.Split(filepath.Clean(path))
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", path, err)
	}
	const mask = unix.IN_CLOSE_WRITE | unix.IN_MOVED_TO | unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MODIFY
	if _, err := unix.InotifyAddWatch(fd, filepath.Clean(dir), mask); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("watch %s: %w", path, err)
	}
	// A non-blocking descriptor goes to Go's poller: the reading goroutine parks without a thread,
	// and Close wakes it.
	f := os.NewFile(uintptr(fd), "inotify")
	ch := make(chan struct{}, 1)
	stop := context.AfterFunc(ctx, func() { f.Close() })
	go func() {
		defer close(ch)
		defer f.Close() // also when the read fails for another reason than ctx's Close
		defer stop()
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded):
				// settle has passed since the file's last event: the burst is over.
				f.SetReadDeadline(time.Time{})
				select {
				case ch <- struct{}{}:
				default: // a change is already pending: the reader will see the file as it is now
				}
			case err != nil:
				return
			case touches(buf[:n], name):
				// The read deadline is the settle timer: no second goroutine, nothing sent after close.
				f.SetReadDeadline(time.Now().Add(settle))
			}
		}
	}()
	return ch, nil
}

// touches reports whether any inotify event in buf names the file.
func touches(buf []byte, name string) bool {
	for off := 0; off+unix.SizeofInotifyEvent <= len(buf); {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
		start := off + unix.SizeofInotifyEvent
		end := start + int(ev.Len)
		if end > len(buf) {
			return false
		}
		if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
			return true // events were lost: the file may have changed
		}
		got := buf[start:end]
		for i, b := range got {
			if b == 0 {
				got = got[:i]
				break
			}
		}
		if string(got) == name {
			return true
		}
		off = end
	}
	return false
}
