//go:build unix

package checkpoint

import (
	"os"
	"syscall"
)

// statOf is what a snapshot compares to tell a file unchanged: besides size and modification time,
// the change time (chmod, a rename onto the path) and the inode (a file replaced, as sed -i does).
func statOf(info os.FileInfo) fileStat {
	st := fileStat{size: info.Size(), mtime: info.ModTime().UnixNano()}
	if sys, ok := info.Sys().(*syscall.Stat_t); ok {
		st.ctime = sys.Ctim.Sec*1e9 + sys.Ctim.Nsec
		st.ino = sys.Ino
	}
	return st
}
