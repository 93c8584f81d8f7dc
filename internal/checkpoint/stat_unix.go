//go:build unix

package checkpoint

import (
	"os"

	"golang.org/x/sys/unix"
)

// fromUnix is fileStat and git mode of a raw stat; ok is false for what git does not store.
func fromUnix(s *unix.Stat_t) (st fileStat, mode uint32, ok bool) {
	st = fileStat{size: s.Size, mtime: s.Mtim.Sec*1e9 + int64(s.Mtim.Nsec), ctime: s.Ctim.Sec*1e9 + int64(s.Ctim.Nsec), ino: uint64(s.Ino)}
	switch s.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return st, modeSymlink, true
	case unix.S_IFREG:
		if s.Mode&0o100 != 0 {
			return st, modeExec, true
		}
		return st, modeFile, true
	}
	return st, 0, false
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
	st, mode, ok = fromUnix(&s)
	return st, mode, ok, nil
}

// statPath is statAt for a path.
func statPath(path string) (fileStat, uint32, bool, error) {
	var s unix.Stat_t
	var err error
	for {
		err = unix.Lstat(path, &s)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return fileStat{}, 0, false, &os.PathError{Op: "lstat", Path: path, Err: err}
	}
	st, mode, ok := fromUnix(&s)
	return st, mode, ok, nil
}

// statDir is the stat of an open folder.
func statDir(d *os.File) (fileStat, bool) {
	var s unix.Stat_t
	if err := unix.Fstat(int(d.Fd()), &s); err != nil || s.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fileStat{}, false
	}
	st, _, _ := fromUnix(&s)
	st.size = s.Size
	return st, true
}
