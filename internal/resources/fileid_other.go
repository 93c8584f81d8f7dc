//go:build !unix

package resources

import "path/filepath"

// fileKey is the identity two paths of one file share: the path with its symlinks resolved.
func fileKey(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
