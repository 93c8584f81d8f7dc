//go:build !unix

package checkpoint

import (
	"os"
	"path/filepath"
)

// statOf is what a snapshot compares to tell a file unchanged: size and modification time.
func statOf(info os.FileInfo) fileStat {
	return fileStat{size: info.Size(), mtime: info.ModTime().UnixNano()}
}

// statAt is the stat and git mode of the entry name of the open folder dir, without following a
// symlink; ok is false for what git does not store.
func statAt(dir *os.File, name string) (fileStat, uint32, bool, error) {
	info, err := os.Lstat(filepath.Join(dir.Name(), name))
	if err != nil {
		return fileStat{}, 0, false, err
	}
	mode, ok := modeOf(info)
	return statOf(info), mode, ok, nil
}

// statPath is statAt for a path.
func statPath(path string) (fileStat, uint32, bool, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return fileStat{}, 0, false, err
	}
	mode, ok := modeOf(info)
	return statOf(info), mode, ok, nil
}

// statDir is the stat of an open folder.
func statDir(d *os.File) (fileStat, bool) {
	info, err := d.Stat()
	if err != nil || !info.IsDir() {
		return fileStat{}, false
	}
	return statOf(info), true
}
