//go:build unix

package resources

import (
	"os"
	"strconv"
	"syscall"
)

// fileKey is the identity two paths of one file share (device and inode): one stat, where resolving
// every symlink of the path would take one per path component.
func fileKey(p string) string {
	info, err := os.Stat(p)
	if err != nil {
		return p
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return strconv.FormatUint(uint64(st.Dev), 16) + ":" + strconv.FormatUint(uint64(st.Ino), 16)
	}
	return p
}
