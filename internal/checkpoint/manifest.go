package checkpoint

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
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
	// nested: the folder holds a nested git repository (its own .git): its content is taken under
	// its own ignore rules, its .git left out.
	nested bool
	tree   objectID
	empty  bool // nothing in it is stored: it has no tree and is left out of its parent's
	treeOK bool // tree and empty are up to date
	// stat is the folder's own stat when its entries were last listed; while it stays the same (and
	// statOK), no entry was added, removed or renamed, so the walk checks the known ones only.
	stat   fileStat
	statOK bool
	// What changed since the manifest's files were written, for the next log block: relist, the
	// folder's entries (its whole record goes); unsaved, its own fields (tree, stat, flags);
	// touched, the names of files put or removed.
	relist, unsaved bool
	touched         map[string]bool
}

// touch records that the file name of n was put or removed.
func (n *dirNode) touch(name string) {
	if n.touched == nil {
		n.touched = map[string]bool{}
	}
	n.touched[name] = true
}

// saved marks n as written.
func (n *dirNode) saved() { n.relist, n.unsaved, n.touched = false, false, nil }

func newDirNode() *dirNode {
	return &dirNode{files: map[string]*fileEntry{}, dirs: map[string]*dirNode{}, relist: true}
}

// manifest is what the store knows of the working tree as of its latest snapshot: each file's stat
// and blob, each folder's tree, and the paths git ignores. A snapshot reads only the files whose stat
// differs, and asks git about ignore rules only for paths it has not seen before.
//
// On disk it is a base file holding all of it and a log of the folders changed since, one block per
// snapshot: a turn that changed a few files appends the records of a few folders instead of writing
// the whole tree again. When the log outgrows the base, the base is written again and the log
// emptied.
type manifest struct {
	commit string // the snapshot it describes
	root   *dirNode
	// ignored are the paths (slash-separated, relative to the project) that git's ignore rules
	// leave out; folders among them are not walked. A path both known and ignored stays known, as a
	// tracked file stays tracked in git.
	ignored map[string]bool
	// excludes and excludesStat are the user's global excludes file and its stat when ignored was
	// last asked for the whole tree: a change to either asks again.
	excludes     string
	excludesStat fileStat
	// ignoredUnsaved: ignored (or the excludes file) changed since the files were written.
	ignoredUnsaved bool
	// saved is the size of the base file, base its checksum (zero: no base file holds this
	// manifest's tree), logSize the length of the log file's good part (0: no log).
	saved   int
	base    [sha1.Size]byte
	logSize int64
	// scratch is the buffer of the last log block, kept for the next: memory the process already
	// holds costs no page faults (after a garbage collection returned the rest to the system).
	scratch []byte
}

func newManifest() *manifest {
	return &manifest{root: newDirNode(), ignored: map[string]bool{}}
}

// manifestMagic starts a base file; version 2 named every file by its whole path, version 3 by its
// name within the folder record it follows.
const (
	manifestMagic    = "pi-go checkpoint manifest 3\n"
	manifestMagicV2  = "pi-go checkpoint manifest 2\n"
	manifestLogMagic = "pi-go checkpoint manifest log 1\n"
)

// Record kinds of the manifest files.
const (
	recDir     = 'd'
	recFile    = 'f'
	recIgnored = 'i'
	// recSubdirs (in the log) lists a folder's subfolders: the others are gone.
	recSubdirs = 'k'
	// recClearIgnored (in the log) starts the ignored paths over; recIgnored records follow.
	recClearIgnored = 'c'
	// recExcludes is the global excludes file's path and stat.
	recExcludes = 'x'
	// recPatch (in the log) is a folder's own fields, followed by the records of the files put in
	// it (recFile) or removed from it (recRemoved); its other files stay.
	recPatch   = 'p'
	recRemoved = 'r'
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

// recordWriter appends manifest records to a buffer.
type recordWriter struct {
	b []byte
}

func (w *recordWriter) str(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *recordWriter) stat(st fileStat) {
	w.b = binary.AppendVarint(w.b, st.size)
	w.b = binary.AppendVarint(w.b, st.mtime)
	w.b = binary.AppendVarint(w.b, st.ctime)
	w.b = binary.AppendUvarint(w.b, st.ino)
}

// dir appends the record of folder n at rel followed by those of its files.
func (w *recordWriter) dir(n *dirNode, rel string) {
	w.header(recDir, n, rel)
	for name, f := range n.files {
		w.file(name, f)
	}
}

// header appends a folder's own fields, as a record of kind (recDir or recPatch).
func (w *recordWriter) header(kind byte, n *dirNode, rel string) {
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
	w.b = append(w.b, kind)
	w.str(rel)
	w.b = append(w.b, n.tree[:]...)
	w.b = append(w.b, flags)
	w.stat(n.stat)
}

func (w *recordWriter) file(name string, f *fileEntry) {
	w.b = append(w.b, recFile)
	w.str(name)
	w.b = binary.AppendUvarint(w.b, uint64(f.mode))
	w.stat(f.stat)
	w.b = append(w.b, f.id[:]...)
	var ff byte
	if f.skipped {
		ff |= flagSkipped
	}
	if f.racy {
		ff |= flagRacy
	}
	w.b = append(w.b, ff)
}

// ignored appends the ignored paths and the excludes file they were asked with.
func (w *recordWriter) ignored(m *manifest) {
	for p := range m.ignored {
		w.b = append(w.b, recIgnored)
		w.str(p)
	}
	w.b = append(w.b, recExcludes)
	w.str(m.excludes)
	w.stat(m.excludesStat)
}

// save writes the whole manifest as the base file at p (atomically): a header, the records, and a
// SHA-1 of both; the log at logPath, which belonged to the previous base, is removed.
func (m *manifest) save(p, logPath string) error {
	w := recordWriter{b: make([]byte, 0, m.saved+m.saved/8+4096)}
	w.b = append(w.b, manifestMagic...)
	w.b = append(w.b, m.commit+"\n"...)
	var walk func(n *dirNode, rel string)
	walk = func(n *dirNode, rel string) {
		w.dir(n, rel)
		n.saved()
		for name, child := range n.dirs {
			walk(child, joinRel(rel, name))
		}
	}
	walk(m.root, "")
	w.ignored(m)
	sum := sha1.Sum(w.b)
	w.b = append(w.b, sum[:]...)
	if err := writeFileAtomic(p, w.b); err != nil {
		return err
	}
	m.saved, m.base, m.logSize, m.ignoredUnsaved = len(w.b), sum, 0, false
	if err := os.Remove(logPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// saveChanges appends the folders changed since the files were last written to the log at logPath,
// or writes the base file again (save) when there is none or the log would outgrow it.
func (m *manifest) saveChanges(p, logPath string) error {
	if m.base == ([sha1.Size]byte{}) || m.logSize > int64(m.saved) {
		return m.save(p, logPath)
	}
	w := recordWriter{b: m.scratch[:0]}
	defer func() { m.scratch = w.b }()
	w.b = append(w.b, m.commit+"\n"...)
	// Parents go before their children: a folder's recSubdirs creates the nodes its new
	// subfolders' records fill.
	var walk func(n *dirNode, rel string)
	walk = func(n *dirNode, rel string) {
		switch {
		case n.relist:
			w.dir(n, rel)
			w.b = append(w.b, recSubdirs)
			w.b = binary.AppendUvarint(w.b, uint64(len(n.dirs)))
			for name := range n.dirs {
				w.str(name)
			}
		case n.unsaved || len(n.touched) > 0:
			// Only the files put or removed (a turn's few, or racy ones read again).
			w.header(recPatch, n, rel)
			for name := range n.touched {
				if f := n.files[name]; f != nil {
					w.file(name, f)
				} else {
					w.b = append(w.b, recRemoved)
					w.str(name)
				}
			}
		}
		for name, child := range n.dirs {
			walk(child, joinRel(rel, name))
		}
	}
	walk(m.root, "")
	if m.ignoredUnsaved {
		w.b = append(w.b, recClearIgnored)
		w.ignored(m)
	}
	if len(w.b) > m.saved/2 {
		return m.save(p, logPath)
	}
	sum := sha1.Sum(w.b)
	// The block goes out in one write: its length, its records, their checksum (after the log's
	// header when the log starts).
	body := len(w.b)
	var head []byte
	start := m.logSize
	if start == 0 {
		head = append(append(head, manifestLogMagic...), m.base[:]...)
	}
	head = binary.AppendUvarint(head, uint64(body))
	w.b = append(w.b, sum[:]...)
	w.b = append(w.b, head...)
	copy(w.b[len(head):], w.b[:body+sha1.Size])
	copy(w.b, head)
	block := w.b
	f, err := os.OpenFile(logPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	// Whatever follows the good part (a block cut short by a crash, or a stale log) goes.
	err = f.Truncate(start)
	if err == nil {
		_, err = f.WriteAt(block, start)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	m.logSize = start + int64(len(block))
	m.ignoredUnsaved = false
	var clear func(n *dirNode)
	clear = func(n *dirNode) {
		n.saved()
		for _, child := range n.dirs {
			clear(child)
		}
	}
	clear(m.root)
	return nil
}

// errBadManifest is a manifest file that cannot be read (the snapshot then reads every file).
var errBadManifest = errors.New("unreadable checkpoint manifest")

// loadManifest reads a base file written by save and the blocks of the log at logPath that follow
// it; a block cut short ends the log.
func loadManifest(p, logPath string) (*manifest, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	v2 := bytes.HasPrefix(data, []byte(manifestMagicV2))
	if len(data) < len(manifestMagic)+sha1.Size || !bytes.HasPrefix(data, []byte(manifestMagic)) && !v2 {
		return nil, errBadManifest
	}
	body, sum := data[:len(data)-sha1.Size], data[len(data)-sha1.Size:]
	if got := sha1.Sum(body); !bytes.Equal(got[:], sum) {
		return nil, errBadManifest
	}
	m := newManifest()
	m.root.saved()
	r := recordReader{b: body[len(manifestMagic):], m: m, v2: v2}
	if err := r.records(false); err != nil {
		return nil, err
	}
	if v2 {
		// Written by an earlier version: the next save writes a base of this version.
		return m, nil
	}
	m.saved = len(data)
	copy(m.base[:], sum)
	log, err := os.ReadFile(logPath)
	if err != nil || !bytes.HasPrefix(log, []byte(manifestLogMagic)) ||
		len(log) < len(manifestLogMagic)+sha1.Size || !bytes.Equal(log[len(manifestLogMagic):][:sha1.Size], sum) {
		return m, nil // no log, or the log of another base
	}
	pos := len(manifestLogMagic) + sha1.Size
	m.logSize = int64(pos)
	for pos < len(log) {
		n, k := binary.Uvarint(log[pos:])
		if k <= 0 || n > uint64(len(log)-pos-k) || uint64(len(log)-pos-k)-n < sha1.Size {
			break
		}
		block := log[pos+k : pos+k+int(n)]
		if got := sha1.Sum(block); !bytes.Equal(got[:], log[pos+k+int(n):][:sha1.Size]) {
			break
		}
		r := recordReader{b: block, m: m}
		if err := r.records(true); err != nil {
			return nil, err
		}
		pos += k + int(n) + sha1.Size
		m.logSize = int64(pos)
	}
	return m, nil
}

// recordReader reads the records of a base file (after its magic) or of one log block.
type recordReader struct {
	b   []byte
	m   *manifest
	v2  bool
	cur *dirNode // the folder the file records that follow belong to
}

func (r *recordReader) byte() (byte, bool) {
	if len(r.b) == 0 {
		return 0, false
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c, true
}

func (r *recordReader) uvarint() (uint64, bool) {
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		return 0, false
	}
	r.b = r.b[k:]
	return v, true
}

func (r *recordReader) varint() (int64, bool) {
	v, k := binary.Varint(r.b)
	if k <= 0 {
		return 0, false
	}
	r.b = r.b[k:]
	return v, true
}

func (r *recordReader) str() (string, bool) {
	n, ok := r.uvarint()
	if !ok || n > uint64(len(r.b)) {
		return "", false
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s, true
}

func (r *recordReader) id(id *objectID) bool {
	if len(r.b) < len(id) {
		return false
	}
	copy(id[:], r.b)
	r.b = r.b[len(id):]
	return true
}

func (r *recordReader) stat() (fileStat, bool) {
	size, ok1 := r.varint()
	mtime, ok2 := r.varint()
	ctime, ok3 := r.varint()
	ino, ok4 := r.uvarint()
	return fileStat{size: size, mtime: mtime, ctime: ctime, ino: ino}, ok1 && ok2 && ok3 && ok4
}

// node is the folder at rel; create makes it (its parent must exist) when it does not.
func (r *recordReader) node(rel string, create bool) *dirNode {
	n := r.m.root
	if rel == "" {
		return n
	}
	parent := n
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		parent = r.node(rel[:i], false)
	}
	if parent == nil {
		return nil
	}
	name := path.Base(rel)
	if c := parent.dirs[name]; c != nil || !create {
		return c
	}
	c := newDirNode()
	c.saved()
	parent.dirs[name] = c
	return c
}

// subdirs reads a recSubdirs record: the current folder keeps the subfolders it names, gets empty
// nodes for the new ones (their own records follow) and loses the others.
func (r *recordReader) subdirs() error {
	count, ok := r.uvarint()
	if !ok || r.cur == nil || count > uint64(len(r.b)) {
		return errBadManifest
	}
	keep := make(map[string]bool, count)
	for range count {
		name, ok := r.str()
		if !ok {
			return errBadManifest
		}
		keep[name] = true
		if r.cur.dirs[name] == nil {
			c := newDirNode()
			c.saved()
			r.cur.dirs[name] = c
		}
	}
	for name := range r.cur.dirs {
		if !keep[name] {
			delete(r.cur.dirs, name)
		}
	}
	return nil
}

// records reads every record; in a log block (log) the first line is the commit, and a folder's
// record replaces what was known of it.
func (r *recordReader) records(log bool) error {
	if i := bytes.IndexByte(r.b, '\n'); i >= 0 {
		r.m.commit = string(r.b[:i])
		r.b = r.b[i+1:]
	} else {
		return errBadManifest
	}
	for len(r.b) > 0 {
		kind, _ := r.byte()
		if kind == recClearIgnored {
			r.m.ignored = map[string]bool{}
			continue
		}
		if kind == recSubdirs {
			if err := r.subdirs(); err != nil {
				return err
			}
			continue
		}
		rel, ok := r.str()
		if !ok {
			return errBadManifest
		}
		switch kind {
		case recIgnored:
			r.m.ignored[rel] = true
		case recExcludes:
			st, ok := r.stat()
			if !ok {
				return errBadManifest
			}
			r.m.excludes, r.m.excludesStat = rel, st
		case recRemoved:
			if r.cur == nil {
				return errBadManifest
			}
			delete(r.cur.files, rel)
		case recDir, recPatch:
			n := r.node(rel, !log)
			if n == nil || kind == recPatch && !log {
				return errBadManifest
			}
			if kind == recDir && log {
				clear(n.files)
			}
			ok1 := r.id(&n.tree)
			flags, ok2 := r.byte()
			st, ok3 := r.stat()
			if !ok1 || !ok2 || !ok3 {
				return errBadManifest
			}
			n.nested, n.empty, n.treeOK = flags&flagNested != 0, flags&flagEmpty != 0, flags&flagTreeOK != 0
			n.statOK = flags&flagStatOK != 0
			n.stat = st
			if r.v2 && n.nested {
				// Version 2 left a nested repository's content out: list it again, as a folder
				// that has just become a nested repository.
				n.nested, n.statOK, n.treeOK = false, false, false
			}
			r.cur = n
		case recFile:
			parent, name := r.cur, rel
			if r.v2 {
				dir := path.Dir(rel)
				if dir == "." {
					dir = ""
				}
				parent, name = r.node(dir, false), path.Base(rel)
			}
			if parent == nil {
				return errBadManifest
			}
			f := &fileEntry{}
			mode, ok1 := r.uvarint()
			st, ok2 := r.stat()
			ok3 := r.id(&f.id)
			flags, ok4 := r.byte()
			if !ok1 || !ok2 || !ok3 || !ok4 {
				return errBadManifest
			}
			f.mode, f.stat = uint32(mode), st
			f.skipped, f.racy = flags&flagSkipped != 0, flags&flagRacy != 0
			parent.files[name] = f
		default:
			return fmt.Errorf("%w: record kind %q", errBadManifest, kind)
		}
	}
	return nil
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
