package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/pi-go/pi-go/internal/jsonx"
)

// headerScanLimit bounds the search for a file's session header, as pi's session discovery does.
const headerScanLimit = 1 << 20

// readHeader finds a file's session header by pi's rule: blank and malformed lines before it are
// skipped, and the first line that is JSON must be a session header with a string id. The error says
// why the file is not a session; a named pipe or device is never opened (reading one could block).
func readHeader(path string) (Header, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Header{}, fmt.Errorf("cannot be read (%v)", pathErrReason(err))
	}
	if !st.Mode().IsRegular() {
		return Header{}, fmt.Errorf("not a regular file (%s)", fileKind(st.Mode()))
	}
	if st.Size() == 0 {
		return Header{}, errors.New("empty")
	}
	f, err := os.Open(path)
	if err != nil {
		return Header{}, fmt.Errorf("cannot be read (%v)", pathErrReason(err))
	}
	defer f.Close()
	size := min(st.Size(), headerScanLimit)
	var h Header
	var reason error
	found := errors.New("found")
	_, err = eachLineBuf(f, size, make([]byte, min(size+1, 64<<10)), func(line []byte, _ int64, no int, _ bool) error {
		if len(line) == 0 || !jsonx.Valid(line) {
			return nil // blank or malformed: pi looks further
		}
		var ok bool
		if h, ok = parseHeader(line); !ok {
			reason = fmt.Errorf("not a session file (its first JSON line, line %d, is not a session header)", no)
		}
		return found
	})
	switch {
	case errors.Is(err, found) && reason == nil:
		return h, nil
	case errors.Is(err, found):
		return Header{}, reason
	case err != nil:
		return Header{}, fmt.Errorf("cannot be read (%v)", pathErrReason(err))
	case st.Size() > headerScanLimit:
		return Header{}, fmt.Errorf("not a session file (no session header in its first %d MiB)", headerScanLimit>>20)
	}
	return Header{}, errors.New("not a session file (no line is JSON: binary or garbage)")
}

// pathErrReason is the reason of a file-system error without the path (the warning names the file).
func pathErrReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// fileKind names what a non-regular directory entry is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// FindMostRecent returns the most recently modified (mtime) file of dir that is a session (see
// readHeader), or "" when there is none (-c/--continue). Every newer *.jsonl file it passed over is
// returned as a warning that says why.
func FindMostRecent(dir string) (string, []Warning, error) {
	files, err := sessionFiles(dir)
	if err != nil {
		return "", nil, err
	}
	type candidate struct {
		path  string
		mtime time.Time
	}
	cands := make([]candidate, 0, len(files))
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			// a link that cannot be followed still has a time of its own to order it by
			st, err = os.Lstat(f)
		}
		var mtime time.Time
		if err == nil {
			mtime = st.ModTime()
		}
		cands = append(cands, candidate{f, mtime})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].mtime.After(cands[j].mtime) })
	var skipped []Warning
	for _, c := range cands {
		if _, err := readHeader(c.path); err != nil {
			skipped = append(skipped, Warning{Path: c.path, Message: "skipped by --continue: " + err.Error()})
			continue
		}
		return c.path, skipped, nil
	}
	return "", skipped, nil
}

// ContinueRecent opens the most recently modified session of dir, or creates a new one (-c). Newer
// files that are not sessions are passed over (as pi does) and each is named in a Warning with the
// reason (pi says nothing), followed by one naming the session continued or saying a new one starts.
func ContinueRecent(cwd, dir string) (*Manager, error) {
	path, skipped, err := FindMostRecent(dir)
	if err != nil {
		return nil, err
	}
	if path == "" {
		m := Create(cwd, dir)
		if len(skipped) > 0 {
			m.warnings = append(skipped, Warning{Path: filepath.Clean(dir),
				Message: "no valid session to continue: a new session is started"})
		}
		return m, nil
	}
	m, err := Open(path, OpenOptions{SessionDir: dir, Cwd: cwd})
	if err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		note := Warning{Path: path, Message: fmt.Sprintf("continuing this session, the newest valid one "+
			"(%d newer file(s) skipped)", len(skipped))}
		m.warnings = append(append(skipped, note), m.warnings...)
	}
	return m, nil
}
