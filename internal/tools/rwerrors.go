package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// errRWAborted is what read, write and edit return when the run is aborted (pi's text).
var errRWAborted = errors.New("Operation aborted")

// rwFileError is a file-system error worded as Node.js words it ("ENOENT: no such file or
// directory, access '/abs/path'"), which is the text pi's tools show the model. It unwraps to the
// underlying error.
type rwFileError struct {
	text string
	err  error
}

func (e *rwFileError) Error() string { return e.text }
func (e *rwFileError) Unwrap() error { return e.err }

// rwErrnoText is libuv's description of the errors file tools meet; others fall back to Go's text.
var rwErrnoText = map[syscall.Errno]string{
	syscall.ENOENT:       "no such file or directory",
	syscall.EACCES:       "permission denied",
	syscall.EPERM:        "operation not permitted",
	syscall.EISDIR:       "illegal operation on a directory",
	syscall.ENOTDIR:      "not a directory",
	syscall.EEXIST:       "file already exists",
	syscall.ENOSPC:       "no space left on device",
	syscall.EROFS:        "read-only file system",
	syscall.ELOOP:        "too many symbolic links encountered",
	syscall.ENAMETOOLONG: "name too long",
	syscall.EMFILE:       "too many open files",
	syscall.EBUSY:        "resource busy or locked",
	syscall.EXDEV:        "cross-device link not permitted",
	syscall.EFBIG:        "file too large",
	syscall.EIO:          "i/o error",
	syscall.ETXTBSY:      "text file is busy",
	syscall.EINVAL:       "invalid argument",
}

// rwErrno digs the errno out of err, if it has one.
func rwErrno(err error) (syscall.Errno, bool) {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno, true
	}
	return 0, false
}

// rwErrnoCode is the errno's name ("ENOENT"), or "" when err carries none.
func rwErrnoCode(err error) string {
	if errno, ok := rwErrno(err); ok {
		return unix.ErrnoName(errno)
	}
	return ""
}

// rwNodeError rewords err in Node's form for the system call syscallName on path.
func rwNodeError(err error, syscallName, path string) error {
	if err == nil {
		return nil
	}
	errno, ok := rwErrno(err)
	desc, known := rwErrnoText[errno]
	if !ok || !known {
		return &rwFileError{text: fmt.Sprintf("%s '%s': %v", syscallName, path, rwUnwrapPath(err)), err: err}
	}
	return &rwFileError{text: fmt.Sprintf("%s: %s, %s '%s'", unix.ErrnoName(errno), desc, syscallName, path), err: err}
}

// rwUnwrapPath drops Go's "op path:" prefix from a PathError so messages do not repeat the path.
func rwUnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
