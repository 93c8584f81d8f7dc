//go:build !unix

package checkpoint

import "os"

// statOf is what a snapshot compares to tell a file unchanged: size and modification time.
func statOf(info os.FileInfo) fileStat {
	return fileStat{size: info.Size(), mtime: info.ModTime().UnixNano()}
}
