//go:build unix

package checkpoint

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
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

// statAt is the stat and git mode of the entry name of the open folder dir, without following a
// symlink; ok is false for what git does not store. One fstatat relative to the folder spares the
// kernel the lookup of the whole path for each of a tree's files.
func statAt(dir *os.File, name string) (st fileStat, mode uint32, ok bool, err error) {
	var s unix.Stat_t
	for {
		err = unix.Fstatat(int(dir.Fd()), name, &s, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return st, 0, false, err
	}
	st = fileStat{size: s.Size, mtime: s.Mtim.Sec*1e9 + s.Mtim.Nsec, ctime: s.Ctim.Sec*1e9 + s.Ctim.Nsec, ino: s.Ino}
	switch s.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return st, modeSymlink, true, nil
	case unix.S_IFREG:
		if s.Mode&0o100 != 0 {
			return st, modeExec, true, nil
		}
		return st, modeFile, true, nil
	}
	return st, 0, false, nil
}
