package session

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// tornSuffix starts the name of the file a torn last line is moved to: <session>.jsonl.torn-<time>
// (the time as in session file names). It does not end in .jsonl, so it is never listed as a session.
const tornSuffix = ".torn-"

// tornTail is an incomplete last line of a session file (a writer killed inside write(2)).
type tornTail struct {
	off  int64 // where the line starts; the file is cut back to here
	line int   // its 1-based line number
}

// moveTornTail moves the bytes of src from off to the end into a new sidecar file and cuts them off
// the session file, so the file stays valid JSONL and nothing is lost. The caller holds the file's
// lock. The sidecar is complete on stable storage before anything is cut; if the file changed since
// it was read (a writer that does not lock, like pi), or anything fails, nothing is cut and the
// sidecar is removed.
func moveTornTail(src *source, off int64, now time.Time) (string, error) {
	fragment := make([]byte, src.size-off)
	if err := src.readAt(fragment, off); err != nil {
		return "", err
	}
	sidecar, err := writeSidecar(src.path, fragment, now)
	if err != nil {
		return "", err
	}
	abandon := func(err error) (string, error) {
		os.Remove(sidecar)
		return "", err
	}
	// the fragment must still be the file's tail: only those bytes are ever cut
	st, err := src.f.Stat()
	if err != nil {
		return abandon(fmt.Errorf("stat session file: %w", err))
	}
	if st.Size() != src.size {
		return abandon(errors.New("the file changed while it was being repaired"))
	}
	check := make([]byte, len(fragment))
	if err := src.readAt(check, off); err != nil {
		return abandon(err)
	}
	if !bytes.Equal(check, fragment) {
		return abandon(errors.New("the file changed while it was being repaired"))
	}
	if err := src.f.Truncate(off); err != nil {
		return abandon(fmt.Errorf("truncate session file: %w", err))
	}
	src.size = off
	src.needsNewline = false
	src.dirty = true // the cut reaches the disk with the next sync, which reports a failure
	_ = src.sync()
	return sidecar, nil
}

// writeSidecar creates <path>.torn-<time> (or -<time>-N when taken) holding data, fsynced with its
// directory entry.
func writeSidecar(path string, data []byte, now time.Time) (string, error) {
	stamp := sessionFileStamp(isoTime(now))
	for n := 0; n < 100; n++ {
		name := path + tornSuffix + stamp
		if n > 0 {
			name = fmt.Sprintf("%s-%d", name, n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", err
		}
		syncDir(filepath.Dir(name))
		return name, nil
	}
	return "", fmt.Errorf("%s%s…: 100 such files exist already", path, tornSuffix)
}
