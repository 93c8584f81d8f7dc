package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileError is a file-system error worded as Node.js words it ("ENOENT: no such file or
// directory, access '/abs/path'"), which is the text pi's tools show the model. It unwraps to the
// underlying error.
type fileError struct {
	text string
	err  error
}

func (e *fileError) Error() string { return e.text }
func (e *fileError) Unwrap() error { return e.err }

// errnoText is libuv's description of the errors file tools meet; others fall back to Go's text.
var errnoText = map[syscall.Errno]string{
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

// errnoOf digs the errno out of err, if it has one.
func errnoOf(err error) (syscall.Errno, bool) {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno, true
	}
	return 0, false
}

// errnoCode is the errno's name ("ENOENT"), or "" when err carries none.
func errnoCode(err error) string {
	if errno, ok := errnoOf(err); ok {
		return unix.ErrnoName(errno)
	}
	return ""
}

// nodeError rewords err in Node's form for the system call syscallName on path.
func nodeError(err error, syscallName, path string) error {
	if err == nil {
		return nil
	}
	errno, ok := errnoOf(err)
	desc, known := errnoText[errno]
	if !ok || !known {
		return &fileError{text: fmt.Sprintf("%s '%s': %v", syscallName, path, unwrapPath(err)), err: err}
	}
	return &fileError{text: fmt.Sprintf("%s: %s, %s '%s'", unix.ErrnoName(errno), desc, syscallName, path), err: err}
}

// unwrapPath drops Go's "op path:" prefix from a PathError so messages do not repeat the path.
func unwrapPath(err error) error {
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
