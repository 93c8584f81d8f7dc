package session

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrLocked is matched (errors.Is) by the error of opening a session file another process writes.
var ErrLocked = errors.New("session file is locked by another process")

// LockError says which session file another process holds.
type LockError struct{ Path string }

func (e *LockError) Error() string {
	return fmt.Sprintf("session file %s is in use by another pi-go process (it holds the file's lock); "+
		"finish that session first or start a new one", e.Path)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockError) Is(target error) bool { return target == ErrLocked }

// source is an open session file: the single writer's locked handle, and the place lazily decoded
// entries read their lines from. The kernel drops the flock when the descriptor closes, also when the
// process is killed, so a crashed pi-go never leaves a stale lock behind.
type source struct {
	path string
	f    *os.File
	// size is where the next append starts when nobody else writes the file (refreshed by fstat
	// after each append).
	size int64
	// needsNewline is set while the file ends in a line without '\n' (a torn or unterminated last
	// line): the next append first terminates it, so it can never fuse with a new entry.
	needsNewline bool
	dirty        bool // written since the last Sync
	// write is the one write call of an append; tests replace it to simulate a full disk.
	write func(f *os.File, p []byte) (int, error)
}

func fileWrite(f *os.File, p []byte) (int, error) { return f.Write(p) }

// openSource opens path for appending and takes its exclusive lock. With create, the file must not
// exist yet (a new session never clobbers a file).
func openSource(path string, create bool) (*source, error) {
	flags := os.O_RDWR | os.O_APPEND
	if create {
		flags |= os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open session file: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, &LockError{Path: path}
		}
		return nil, fmt.Errorf("lock session file %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat session file: %w", err)
	}
	return &source{path: path, f: f, size: st.Size(), write: fileWrite}, nil
}

func lockFile(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrLocked
		default:
			return err
		}
	}
}

// appendLines writes p (complete lines, each ending in '\n') with one write call and returns the file
// offset where p starts. If the write fails or is short, the file is truncated back to its previous
// size, so no partial line is ever left behind by pi-go.
func (s *source) appendLines(p []byte) (int64, error) {
	buf := p
	prefix := int64(0)
	if s.needsNewline {
		buf = make([]byte, 0, len(p)+1)
		buf = append(append(buf, '\n'), p...)
		prefix = 1
	}
	n, err := s.write(s.f, buf)
	if err == nil && n != len(buf) {
		err = io.ErrShortWrite
	}
	if err != nil {
		if n > 0 {
			if terr := s.f.Truncate(s.size); terr != nil {
				s.resync()
				return 0, fmt.Errorf("append to session file %s: %w (and removing the partial line failed: %v)", s.path, err, terr)
			}
		}
		return 0, fmt.Errorf("append to session file %s: %w", s.path, err)
	}
	s.dirty = true
	s.needsNewline = false
	st, serr := s.f.Stat()
	if serr != nil {
		s.size += int64(n)
	} else {
		// another (unlocked) writer may have appended since we last looked: with O_APPEND our bytes
		// are the last n of the file.
		s.size = st.Size()
	}
	return s.size - int64(n) + prefix, nil
}

// resync re-reads the file size and whether it ends in a newline after a failed rollback.
func (s *source) resync() {
	st, err := s.f.Stat()
	if err != nil {
		return
	}
	s.size = st.Size()
	if s.size > 0 {
		var last [1]byte
		if _, err := s.f.ReadAt(last[:], s.size-1); err == nil {
			s.needsNewline = last[0] != '\n'
		}
	}
}

// sync flushes written lines to stable storage.
func (s *source) sync() error {
	if !s.dirty {
		return nil
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync session file %s: %w", s.path, err)
	}
	s.dirty = false
	return nil
}

func (s *source) close() error {
	if s == nil || s.f == nil {
		return nil
	}
	err := s.f.Close()
	return err
}

// readLine reads an entry's line back and checks it is the line that was loaded or written.
func (s *source) readLine(l *location, e *Entry) ([]byte, error) {
	buf := make([]byte, l.size)
	if err := s.readAt(buf, l.off); err != nil {
		return nil, err
	}
	if crc32.Checksum(buf, crcTable) != l.sum {
		return nil, fmt.Errorf("session file %s changed on disk since it was loaded (entry %s, line %d)", s.path, e.ID, e.lineNo)
	}
	return buf, nil
}

func (s *source) readAt(buf []byte, off int64) error {
	n, err := s.f.ReadAt(buf, off)
	if n == len(buf) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("session file %s is closed", s.path)
	}
	return fmt.Errorf("read session file %s: %w", s.path, err)
}
