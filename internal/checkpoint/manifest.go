package checkpoint

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
)

// fileStat is what a snapshot saw of a file; an unchanged fileStat means unchanged content (unless
// the entry is racy).
type fileStat struct {
	size, mtime, ctime int64
	ino                uint64
}

// fileEntry is one file of the latest snapshot.
type fileEntry struct {
	stat fileStat
	mode uint32 // modeFile, modeExec or modeSymlink
	id   objectID
	// skipped: larger than the size limit, so not in the snapshot (but known, so it is not new).
	skipped bool
	// racy: it was read so soon after its last change that a further change within the file
	// system's time resolution could keep the same stat; it is read again next time, as git does.
	racy bool
}

// dirNode is one folder of the latest snapshot, with the tree object it was stored as.
type dirNode struct {
	files map[string]*fileEntry
	dirs  map[string]*dirNode
	// nested: the folder holds a nested git repository (its own .git), whose content is left out.
	nested bool
	tree   objectID
	empty  bool // nothing in it is stored: it has no tree and is left out of its parent's
	treeOK bool // tree and empty are up to date
	// stat is the folder's own stat when its entries were last listed; while it stays the same (and
	// statOK), no entry was added, removed or renamed, so the walk checks the known ones only.
	stat   fileStat
	statOK bool
}

func newDirNode() *dirNode {
	return &dirNode{files: map[string]*fileEntry{}, dirs: map[string]*dirNode{}}
}

// manifest is what the store knows of the working tree as of its latest snapshot: each file's stat
// and blob, each folder's tree, and the paths git ignores. A snapshot reads only the files whose stat
// differs, and asks git about ignore rules only for paths it has not seen before.
type manifest struct {
	commit string // the snapshot it describes
	root   *dirNode
	// ignored are the paths (slash-separated, relative to the project) that git's ignore rules
	// leave out; folders among them are not walked. A path both known and ignored stays known, as a
	// tracked file stays tracked in git.
	ignored map[string]bool
	// saved is the size of the file last written, to allocate the next one at once.
	saved int
}

func newManifest() *manifest {
	return &manifest{root: newDirNode(), ignored: map[string]bool{}}
}

const manifestMagic = "pi-go checkpoint manifest 2\n"

// Record kinds of the manifest file.
const (
	recDir     = 'd'
	recFile    = 'f'
	recIgnored = 'i'
)

// Flags of file and dir records.
const (
	flagSkipped = 1 << iota
	flagRacy
	flagNested
	flagEmpty
	flagTreeOK
	flagStatOK
)

// save writes the manifest to path (atomically): a header, the records, and a SHA-1 of both.
func (m *manifest) save(p string) error {
	var b bytes.Buffer
	b.Grow(m.saved + m.saved/8 + 4096)
	b.WriteString(manifestMagic)
	b.WriteString(m.commit + "\n")
	var num [binary.MaxVarintLen64]byte
	putString := func(s string) {
		b.Write(num[:binary.PutUvarint(num[:], uint64(len(s)))])
		b.WriteString(s)
	}
	putInt := func(v int64) { b.Write(num[:binary.PutVarint(num[:], v)]) }
	putUint := func(v uint64) { b.Write(num[:binary.PutUvarint(num[:], v)]) }
	var walk func(n *dirNode, rel string)
	walk = func(n *dirNode, rel string) {
		var flags byte
		if n.nested {
			flags |= flagNested
		}
		if n.empty {
			flags |= flagEmpty
		}
		if n.treeOK {
			flags |= flagTreeOK
		}
		if n.statOK {
			flags |= flagStatOK
		}
		b.WriteByte(recDir)
		putString(rel)
		b.Write(n.tree[:])
		b.WriteByte(flags)
		putInt(n.stat.size)
		putInt(n.stat.mtime)
		putInt(n.stat.ctime)
		putUint(n.stat.ino)
		for _, name := range slices.Sorted(maps.Keys(n.files)) {
			f := n.files[name]
			b.WriteByte(recFile)
			putString(joinRel(rel, name))
			putUint(uint64(f.mode))
			putInt(f.stat.size)
			putInt(f.stat.mtime)
			putInt(f.stat.ctime)
			putUint(f.stat.ino)
			b.Write(f.id[:])
			var ff byte
			if f.skipped {
				ff |= flagSkipped
			}
			if f.racy {
				ff |= flagRacy
			}
			b.WriteByte(ff)
		}
		for _, name := range slices.Sorted(maps.Keys(n.dirs)) {
			walk(n.dirs[name], joinRel(rel, name))
		}
	}
	walk(m.root, "")
	for _, p := range slices.Sorted(maps.Keys(m.ignored)) {
		b.WriteByte(recIgnored)
		putString(p)
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	m.saved = b.Len()
	return writeFileAtomic(p, b.Bytes())
}

// errBadManifest is a manifest file that cannot be read (the snapshot then reads every file).
var errBadManifest = errors.New("unreadable checkpoint manifest")

// loadManifest reads a manifest written by save.
func loadManifest(p string) (*manifest, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if len(data) < len(manifestMagic)+sha1.Size || !bytes.HasPrefix(data, []byte(manifestMagic)) {
		return nil, errBadManifest
	}
	body, sum := data[:len(data)-sha1.Size], data[len(data)-sha1.Size:]
	if got := sha1.Sum(body); !bytes.Equal(got[:], sum) {
		return nil, errBadManifest
	}
	r := bufio.NewReader(bytes.NewReader(body[len(manifestMagic):]))
	commit, err := r.ReadString('\n')
	if err != nil {
		return nil, errBadManifest
	}
	m := newManifest()
	m.commit = strings.TrimSuffix(commit, "\n")
	dirs := map[string]*dirNode{"": m.root}
	getString := func() (string, error) {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > 1<<20 {
			return "", errBadManifest
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", errBadManifest
		}
		return string(buf), nil
	}
	for {
		kind, err := r.ReadByte()
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return nil, errBadManifest
		}
		rel, err := getString()
		if err != nil {
			return nil, err
		}
		switch kind {
		case recIgnored:
			m.ignored[rel] = true
		case recDir:
			n := m.root
			if rel != "" {
				parent := dirs[path.Dir(rel)]
				if path.Dir(rel) == "." {
					parent = m.root
				}
				if parent == nil {
					return nil, errBadManifest
				}
				n = newDirNode()
				parent.dirs[path.Base(rel)] = n
				dirs[rel] = n
			}
			var flags [1]byte
			if _, err := io.ReadFull(r, n.tree[:]); err != nil {
				return nil, errBadManifest
			}
			if _, err := io.ReadFull(r, flags[:]); err != nil {
				return nil, errBadManifest
			}
			n.nested, n.empty, n.treeOK = flags[0]&flagNested != 0, flags[0]&flagEmpty != 0, flags[0]&flagTreeOK != 0
			n.statOK = flags[0]&flagStatOK != 0
			size, err1 := binary.ReadVarint(r)
			mtime, err2 := binary.ReadVarint(r)
			ctime, err3 := binary.ReadVarint(r)
			ino, err4 := binary.ReadUvarint(r)
			if err := errors.Join(err1, err2, err3, err4); err != nil {
				return nil, errBadManifest
			}
			n.stat = fileStat{size: size, mtime: mtime, ctime: ctime, ino: ino}
		case recFile:
			dir := path.Dir(rel)
			if dir == "." {
				dir = ""
			}
			parent := dirs[dir]
			if parent == nil {
				return nil, errBadManifest
			}
			f := &fileEntry{}
			mode, err1 := binary.ReadUvarint(r)
			size, err2 := binary.ReadVarint(r)
			mtime, err3 := binary.ReadVarint(r)
			ctime, err4 := binary.ReadVarint(r)
			ino, err5 := binary.ReadUvarint(r)
			if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
				return nil, errBadManifest
			}
			f.mode, f.stat = uint32(mode), fileStat{size: size, mtime: mtime, ctime: ctime, ino: ino}
			var flags [1]byte
			if _, err := io.ReadFull(r, f.id[:]); err != nil {
				return nil, errBadManifest
			}
			if _, err := io.ReadFull(r, flags[:]); err != nil {
				return nil, errBadManifest
			}
			f.skipped, f.racy = flags[0]&flagSkipped != 0, flags[0]&flagRacy != 0
			parent.files[path.Base(rel)] = f
		default:
			return nil, fmt.Errorf("%w: record kind %q", errBadManifest, kind)
		}
	}
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
