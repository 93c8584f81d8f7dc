package tools

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
)

// atomicWriter replaces a file's content so that readers, and a crash at any moment, see either the
// old content or the new one, never a mix: it writes a temporary file in the same folder, syncs it,
// and renames it over the target. The zero value is ready to use; the fields are test hooks.
type atomicWriter struct {
	// beforeRename runs after the temporary file is complete and synced, before the rename.
	beforeRename func(tmp string) error
	// rename replaces os.Rename.
	rename func(oldpath, newpath string) error
}

// maxLinkHops bounds symlink chains (Linux gives up at 40 too).
const maxLinkHops = 40

// resolveTarget follows symlinks at path so that writing through a link updates the file it points
// to (as an in-place write would) instead of replacing the link. A dangling link resolves to the
// missing file it names, which is then created.
func resolveTarget(path string) (string, fs.FileInfo, error) {
	target := path
	for range maxLinkHops {
		info, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) {
			return target, nil, nil
		}
		if err != nil {
			return "", nil, nodeError(err, "open", path)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return target, info, nil
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", nil, nodeError(err, "open", path)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		target = link
	}
	return "", nil, nodeError(syscall.ELOOP, "open", path)
}

// write replaces the content of path with data. path is what error messages name.
func (w atomicWriter) write(path string, data string) error {
	target, info, err := resolveTarget(path)
	if err != nil {
		return err
	}
	if info != nil && info.IsDir() {
		return nodeError(syscall.EISDIR, "open", path)
	}
	if info != nil && !info.Mode().IsRegular() {
		// A device or pipe is written to, never replaced.
		return w.writeInPlace(path, target, data)
	}
	dir, base := filepath.Dir(target), filepath.Base(target)
	if len(base) > 100 {
		base = base[:100]
	}
	var suffix [8]byte
	for i := range suffix {
		suffix[i] = byte(rand.Uint32())
	}
	tmp := filepath.Join(dir, "."+base+".pi-go-"+hex.EncodeToString(suffix[:])+".tmp")

	perm := fs.FileMode(0o666) // a new file gets the usual mode; the umask applies
	if info != nil {
		perm = info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			// The folder does not let us create files but the file may still be writable (pi writes in
			// place): do that, the one case where the write is not atomic.
			return w.writeInPlace(path, target, data)
		}
		return nodeError(err, "open", path)
	}
	committed := false
	defer func() {
		if !committed {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if info != nil {
		// Exact mode of the original, whatever the umask; keep the owner when we may (root editing
		// someone's file), otherwise the file becomes ours, as any rewrite would.
		if err := f.Chmod(perm); err != nil {
			return nodeError(err, "chmod", path)
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
			_ = f.Chown(int(st.Uid), int(st.Gid))
		}
	}
	if _, err := f.WriteString(data); err != nil {
		return nodeError(err, "write", path)
	}
	if err := f.Sync(); err != nil {
		return nodeError(err, "fsync", path)
	}
	if err := f.Close(); err != nil {
		return nodeError(err, "close", path)
	}
	if w.beforeRename != nil {
		if err := w.beforeRename(tmp); err != nil {
			os.Remove(tmp)
			committed = true
			return err
		}
	}
	rename := w.rename
	if rename == nil {
		rename = os.Rename
	}
	if err := rename(tmp, target); err != nil {
		os.Remove(tmp)
		committed = true
		return nodeError(err, "rename", path)
	}
	committed = true
	// Make the rename itself durable; some file systems cannot sync a folder, which is harmless.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// writeInPlace truncates and rewrites target; only used when the folder forbids a temporary file.
func (w atomicWriter) writeInPlace(path, target string, data string) error {
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nodeError(err, "open", path)
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return nodeError(err, "write", path)
	}
	// Devices and pipes cannot be synced (EINVAL); that is not a failure of the write.
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		f.Close()
		return nodeError(err, "fsync", path)
	}
	return nodeError(f.Close(), "close", path)
}
