package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
)

// member is one key of a JSON object with its value's bytes, in file order. Migration edits objects
// at this level so every value it does not touch keeps its exact bytes.
type member struct {
	key string
	raw []byte
}

type object []member

// errNotObject: the line is JSON, but no object.
var errNotObject = errors.New("not a JSON object")

func parseObject(b []byte) (object, error) {
	var s jsonx.Scanner
	s.Reset(b)
	var o object
	isObject := s.Object(func(key []byte) {
		s.Peek()
		start := s.Pos()
		s.Skip()
		o = append(o, member{string(key), b[start:s.Pos()]})
	})
	s.End()
	if err := s.Err(); err != nil {
		return nil, err
	}
	if !isObject {
		return nil, errNotObject
	}
	return o, nil
}

func (o object) get(key string) ([]byte, bool) {
	for i := len(o) - 1; i >= 0; i-- { // JSON.parse keeps the last of duplicate keys
		if o[i].key == key {
			return o[i].raw, true
		}
	}
	return nil, false
}

func (o object) str(key string) (string, bool) {
	raw, ok := o.get(key)
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s jsonx.Scanner
	s.Reset(raw)
	v := s.Str()
	return string(v), s.Err() == nil
}

// set replaces a key in place, or adds it at the end as assigning a new property in JavaScript does.
func (o *object) set(key string, raw []byte) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].raw = raw
			return
		}
	}
	*o = append(*o, member{key, raw})
}

func (o *object) del(key string) {
	out := (*o)[:0]
	for _, m := range *o {
		if m.key != key {
			out = append(out, m)
		}
	}
	*o = out
}

func (o object) encode() []byte {
	b := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonx.AppendString(b, m.key)
		b = append(b, ':')
		b = append(b, m.raw...)
	}
	return append(b, '}')
}

func jsonStr(s string) []byte { return jsonx.AppendString(nil, s) }

// migrateLines brings the lines of a v1/v2 file to v3 as pi does (v1: ids and a parent chain, compaction
// firstKeptEntryIndex to firstKeptEntryId; v2: role hookMessage to custom). Lines that are not JSON
// objects are kept as they are.
func migrateLines(lines [][]byte) ([][]byte, error) {
	type parsed struct {
		at  int // index in lines
		obj object
	}
	var objs []parsed
	for i, line := range lines {
		if o, err := parseObject(line); err == nil {
			objs = append(objs, parsed{i, o})
		}
	}
	if len(objs) == 0 {
		return nil, errors.New("no entries")
	}
	version := 1
	if raw, ok := objs[0].obj.get("version"); ok {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			version = headerVersion(v)
		}
	}
	if version >= CurrentVersion {
		return lines, nil
	}
	isHeader := func(o object) bool { t, _ := o.str("type"); return t == TypeSession }
	if version < 2 {
		// an entry that already has an id (a file that only lacks its version) keeps it and its
		// parent: pi would renumber it and cut the tree's links
		ids := map[string]bool{}
		for _, p := range objs {
			if id, ok := p.obj.str("id"); ok && !isHeader(p.obj) {
				ids[id] = true
			}
		}
		prev := []byte("null")
		for i := range objs {
			o := &objs[i].obj
			if isHeader(*o) {
				continue
			}
			if id, ok := o.str("id"); ok {
				if _, has := o.get("parentId"); !has {
					o.set("parentId", prev)
				}
				prev = jsonStr(id)
				continue
			}
			id := newEntryID(func(id string) bool { return ids[id] })
			ids[id] = true
			o.set("id", jsonStr(id))
			o.set("parentId", prev)
			prev = jsonStr(id)
		}
		for i := range objs {
			o := &objs[i].obj
			if t, _ := o.str("type"); t != TypeCompaction {
				continue
			}
			raw, ok := o.get("firstKeptEntryIndex")
			if !ok {
				continue
			}
			if idx, err := strconv.Atoi(string(raw)); err == nil && idx >= 0 && idx < len(objs) && !isHeader(objs[idx].obj) {
				id, _ := objs[idx].obj.get("id")
				o.set("firstKeptEntryId", id)
			}
			o.del("firstKeptEntryIndex")
		}
	}
	for i := range objs {
		o := &objs[i].obj
		if isHeader(*o) {
			o.set("version", []byte(strconv.Itoa(CurrentVersion)))
			continue
		}
		if t, _ := o.str("type"); t != TypeMessage {
			continue
		}
		raw, ok := o.get("message")
		if !ok {
			continue
		}
		msg, err := parseObject(raw)
		if err != nil {
			continue
		}
		if role, _ := msg.str("role"); role == "hookMessage" {
			msg.set("role", jsonStr(provider.RoleCustom))
			o.set("message", msg.encode())
		}
	}
	out := make([][]byte, len(lines))
	copy(out, lines)
	for _, p := range objs {
		out[p.at] = p.obj.encode()
	}
	return out, nil
}

// migrateFile rewrites an old-version file as v3: the new content goes to a locked temporary file in
// the same directory, the original stays as a backup (a hard link, or a copy), and a rename puts the
// new file in place, so at every moment the path holds a complete file. It returns the source of the
// new file (locked) and the backup's path; old is closed. A torn last line (no newline, not JSON) is
// left out of the new file, so it is valid JSONL; the backup keeps it (dropped says so).
func migrateFile(old *source) (ns *source, backup string, dropped bool, err error) {
	path := old.path
	data := make([]byte, old.size)
	if err := old.readAt(data, 0); err != nil {
		return nil, "", false, err
	}
	lines := bytes.Split(data, []byte{'\n'})
	if last := lines[len(lines)-1]; len(last) == 0 {
		lines = lines[:len(lines)-1]
	} else if len(lines) > 1 && len(bytes.TrimSpace(last)) > 0 && !jsonx.Valid(last) {
		lines, dropped = lines[:len(lines)-1], true
	}
	migrated, err := migrateLines(lines)
	if err != nil {
		return nil, "", false, fmt.Errorf("migrate %s: %w", path, err)
	}
	var content bytes.Buffer
	for _, l := range migrated {
		content.Write(l)
		content.WriteByte('\n')
	}
	tmp := path + ".migrating"
	// we hold the original's lock, so a leftover temporary file is from a migration that crashed
	_ = os.Remove(tmp)
	ns, err = openSource(tmp, true)
	if err != nil {
		return nil, "", false, fmt.Errorf("migrate %s: %w", path, err)
	}
	fail := func(err error) (*source, string, bool, error) {
		ns.close()
		os.Remove(tmp)
		return nil, "", false, fmt.Errorf("migrate %s: %w", path, err)
	}
	if _, err := ns.appendLines(content.Bytes()); err != nil {
		return fail(err)
	}
	if err := ns.f.Sync(); err != nil {
		return fail(err)
	}
	ns.dirty = false
	backup, err = backupFile(path)
	if err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail(err)
	}
	syncDir(filepath.Dir(path))
	ns.path = path
	old.close()
	return ns, backup, dropped, nil
}

// backupFile keeps the current content of path under path.bak (or .bak.N when that exists).
func backupFile(path string) (string, error) {
	for n := 0; n < 1000; n++ {
		backup := path + ".bak"
		if n > 0 {
			backup = fmt.Sprintf("%s.bak.%d", path, n)
		}
		if _, err := os.Lstat(backup); err == nil {
			continue
		}
		if err := os.Link(path, backup); err == nil {
			return backup, nil
		}
		if err := copyFile(path, backup); err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return backup, nil
	}
	return "", fmt.Errorf("back up %s: too many backups", path)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// syncDir makes a rename or a new file in dir durable (best effort: not every filesystem allows it).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
