package checkpoint

import (
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// objectID is a git object name (SHA-1: the stores are created with git's default object format).
type objectID [sha1.Size]byte

func (id objectID) String() string { return hex.EncodeToString(id[:]) }

func parseObjectID(s string) (objectID, bool) {
	var id objectID
	if len(s) != 2*len(id) {
		return id, false
	}
	_, err := hex.Decode(id[:], []byte(s))
	return id, err == nil
}

// objectWriter writes loose objects into a store's object database in git's format, so a snapshot
// needs no git process: the store's git reads them as if git had written them.
type objectWriter struct {
	dir string // the objects folder
}

// objectHeader is what git hashes and stores ahead of an object's content.
func objectHeader(kind string, size int64) []byte {
	return []byte(kind + " " + strconv.FormatInt(size, 10) + "\x00")
}

// write stores an object given whole and returns its id. An object already present is left as it is
// but its time is refreshed, as git does, so a pruning that started before it was needed keeps it.
func (w *objectWriter) write(kind string, content []byte) (objectID, error) {
	h := sha1.New()
	header := objectHeader(kind, int64(len(content)))
	h.Write(header)
	h.Write(content)
	var id objectID
	h.Sum(id[:0])
	return id, w.store(id, func(z io.Writer) error {
		if _, err := z.Write(header); err != nil {
			return err
		}
		_, err := z.Write(content)
		return err
	})
}

// exists reports whether the object is stored loose, refreshing its time when it is.
func (w *objectWriter) exists(id objectID) bool {
	p := w.path(id)
	if _, err := os.Stat(p); err != nil {
		return false
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now)
	return true
}

func (w *objectWriter) path(id objectID) string {
	s := id.String()
	return filepath.Join(w.dir, s[:2], s[2:])
}

// store writes a loose object unless it exists: fill writes the uncompressed object (header and
// content) into the compressor.
func (w *objectWriter) store(id objectID, fill func(io.Writer) error) error {
	if w.exists(id) {
		return nil
	}
	final := w.path(id)
	if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
		return fmt.Errorf("checkpoints: store object: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(final), "tmp_obj_")
	if err != nil {
		return fmt.Errorf("checkpoints: store object: %w", err)
	}
	defer os.Remove(f.Name()) // after the rename: a no-op
	z := getZlib(f)
	err = fill(z)
	if cerr := z.Close(); err == nil {
		err = cerr
	}
	zlibPool.Put(z)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(f.Name(), final)
	}
	if err != nil {
		return fmt.Errorf("checkpoints: store object %s: %w", id, err)
	}
	return nil
}

// zlibPool keeps compressors: each holds about a megabyte of tables, which a snapshot of a few small
// files would otherwise allocate and clear per object.
var zlibPool sync.Pool

// getZlib is a compressor writing to w. Objects are mostly written once and read rarely; the fastest
// level keeps a big first snapshot quick, and pruning repacks them smaller anyway.
func getZlib(w io.Writer) *zlib.Writer {
	if z, ok := zlibPool.Get().(*zlib.Writer); ok {
		z.Reset(w)
		return z
	}
	z, _ := zlib.NewWriterLevel(w, zlib.BestSpeed)
	return z
}

// errChangedWhileRead reports a file that changed size while it was being stored.
var errChangedWhileRead = fmt.Errorf("the file changed while it was read")

// writeFileBlob stores the content of the regular file at path (whose size, from its lstat, is size)
// as a blob. Files up to 64 MiB are read whole; larger ones are streamed through the hash and the
// compressor at once, and a file whose length is not size is reported with errChangedWhileRead.
func (w *objectWriter) writeFileBlob(path string, size int64) (objectID, error) {
	if size <= 64<<20 {
		data, err := os.ReadFile(path)
		if err != nil {
			return objectID{}, err
		}
		return w.write("blob", data)
	}
	return w.streamFileBlob(path, size)
}

func (w *objectWriter) streamFileBlob(path string, size int64) (objectID, error) {
	f, err := os.Open(path)
	if err != nil {
		return objectID{}, err
	}
	defer f.Close()
	if err := os.MkdirAll(w.dir, 0o700); err != nil {
		return objectID{}, err
	}
	tmp, err := os.CreateTemp(w.dir, "tmp_obj_")
	if err != nil {
		return objectID{}, err
	}
	defer os.Remove(tmp.Name())
	h := sha1.New()
	z := getZlib(tmp)
	id, err := copyObject(h, z, objectHeader("blob", size), f, size)
	if cerr := z.Close(); err == nil {
		err = cerr
	}
	zlibPool.Put(z)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return objectID{}, err
	}
	if w.exists(id) {
		return id, nil
	}
	final := w.path(id)
	if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
		return objectID{}, err
	}
	if err := os.Chmod(tmp.Name(), 0o444); err != nil {
		return objectID{}, err
	}
	return id, os.Rename(tmp.Name(), final)
}

// copyObject writes header and exactly size bytes of r through h and z, returning the object id.
func copyObject(h hash.Hash, z io.Writer, header []byte, r io.Reader, size int64) (objectID, error) {
	out := io.MultiWriter(h, z)
	if _, err := out.Write(header); err != nil {
		return objectID{}, err
	}
	n, err := io.CopyN(out, r, size)
	if err == io.EOF || n != size {
		return objectID{}, errChangedWhileRead
	}
	if err != nil {
		return objectID{}, err
	}
	var one [1]byte
	if m, _ := r.Read(one[:]); m > 0 {
		return objectID{}, errChangedWhileRead
	}
	var id objectID
	h.Sum(id[:0])
	return id, nil
}

// Git's modes of tree entries.
const (
	modeFile    uint32 = 0o100644
	modeExec    uint32 = 0o100755
	modeSymlink uint32 = 0o120000
	modeTree    uint32 = 0o40000
)

// treeEntry is one entry of a tree object.
type treeEntry struct {
	name string
	mode uint32
	id   objectID
}

// treeOrder is git's order of tree entries: by name, a tree's name compared as if it ended in "/".
func treeOrder(a, b treeEntry) int {
	an, bn := a.name, b.name
	if a.mode == modeTree {
		an += "/"
	}
	if b.mode == modeTree {
		bn += "/"
	}
	return strings.Compare(an, bn)
}

// writeTree stores a tree of entries (in any order) and returns its id.
func (w *objectWriter) writeTree(entries []treeEntry) (objectID, error) {
	slices.SortFunc(entries, treeOrder)
	size := 0
	for _, e := range entries {
		size += len("100644 ") + len(e.name) + 1 + len(e.id)
	}
	b := make([]byte, 0, size)
	for _, e := range entries {
		b = strconv.AppendUint(b, uint64(e.mode), 8)
		b = append(b, ' ')
		b = append(b, e.name...)
		b = append(b, 0)
		b = append(b, e.id[:]...)
	}
	return w.write("tree", b)
}

// writeCommit stores a commit of tree without parents, by pi-go, at t, and returns its id.
func (w *objectWriter) writeCommit(tree objectID, t time.Time, message string) (objectID, error) {
	who := "pi-go <pi-go@localhost> " + strconv.FormatInt(t.Unix(), 10) + " +0000"
	var b strings.Builder
	b.WriteString("tree " + tree.String() + "\n")
	b.WriteString("author " + who + "\n")
	b.WriteString("committer " + who + "\n\n")
	b.WriteString(strings.TrimRight(message, "\n") + "\n")
	return w.write("commit", []byte(b.String()))
}
