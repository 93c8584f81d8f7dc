package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pi-go/pi-go/internal/jsonx"
	"github.com/pi-go/pi-go/internal/provider"
)

// Info describes a session file for pickers and --session resolution.
type Info struct {
	Path              string
	ID                string
	Cwd               string // "" for old sessions without one
	Name              string // latest session_info name; "" when none
	ParentSessionPath string
	Created           time.Time // header timestamp
	// Modified is the latest user/assistant message time (the message's timestamp, else the entry's),
	// else the header time, else the file's mtime.
	Modified     time.Time
	MessageCount int    // message entries
	FirstMessage string // text of the first user message with text, or "(no messages)"
}

// listChunk is the read size when summarising a file; most session files fit in one read.
const listChunk = 256 << 10

// Describe summarises one session file; ok is false when it is not a session file (no header). It
// reads the file once, decoding only the envelope of each line, the message heads, session_info
// entries and the first user message.
func Describe(path string) (Info, bool) {
	info, ok, _ := describe(path, nil)
	return info, ok
}

// describe is Describe reading through buf, which it returns (grown) for the next file.
func describe(path string, buf []byte) (Info, bool, []byte) {
	f, err := os.Open(path)
	if err != nil {
		return Info{}, false, buf
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return Info{}, false, buf
	}
	if buf == nil {
		buf = make([]byte, min(int(st.Size())+1, listChunk))
	}
	info := Info{Path: path}
	var lastActivity int64
	sawHeader := false
	stop := errors.New("stop")
	buf, err = eachLineBuf(f, st.Size(), buf, func(line []byte, off int64, no int, terminated bool) error {
		if len(line) == 0 {
			return nil
		}
		if !sawHeader {
			var s jsonx.Scanner
			if s.Reset(line); s.Peek() == 0 {
				return nil
			}
			if !jsonx.Valid(line) {
				return nil // pi skips malformed lines before the first parsed one
			}
			o, err := parseObject(line)
			if err != nil {
				return stop
			}
			if t, _ := o.str("type"); t != TypeSession {
				return stop
			}
			sawHeader = true
			info.ID, _ = o.str("id")
			info.Cwd, _ = o.str("cwd")
			info.ParentSessionPath, _ = o.str("parentSession")
			ts, _ := o.str("timestamp")
			if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
				info.Created = t
			}
			return nil
		}
		var head msgHead
		p, err := scanLine(line, &head)
		if err != nil {
			return nil
		}
		switch p.typ {
		case TypeSessionInfo:
			e := Entry{Type: TypeSessionInfo, entryFields: &entryFields{}}
			e.fill(line, p.rest)
			info.Name = strings.TrimSpace(e.Name)
		case TypeMessage:
			info.MessageCount++
			if !head.hasContent || (head.role != provider.RoleUser && head.role != provider.RoleAssistant) {
				return nil
			}
			t := head.timestamp
			if !head.hasTimestamp {
				t = isoMillis(p.ts)
			}
			if t > lastActivity {
				lastActivity = t
			}
			if info.FirstMessage == "" && head.role == provider.RoleUser {
				if m, err := provider.UnmarshalMessage(line[p.msgStart:p.msgEnd]); err == nil {
					info.FirstMessage = messageText(m, " ")
				}
			}
		}
		return nil
	})
	if !sawHeader || (err != nil && err != stop) {
		return Info{}, false, buf
	}
	if info.FirstMessage == "" {
		info.FirstMessage = "(no messages)"
	}
	switch {
	case lastActivity > 0:
		info.Modified = time.UnixMilli(lastActivity)
	case !info.Created.IsZero():
		info.Modified = info.Created
	default:
		info.Modified = st.ModTime()
	}
	return info, true, buf
}

// List summarises every session of dir, most recently modified first. A missing dir is no error.
func List(dir string) ([]Info, error) {
	files, err := sessionFiles(dir)
	if err != nil {
		return nil, err
	}
	return describeAll(files), nil
}

// ListAll summarises the sessions of every project under root (SessionsRoot), most recently
// modified first.
func ListAll(root string) ([]Info, error) {
	dirs, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []string
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		found, err := sessionFiles(filepath.Join(root, d.Name()))
		if err != nil {
			continue // an unreadable project directory does not hide the others
		}
		files = append(files, found...)
	}
	return describeAll(files), nil
}

// sessionFiles lists the *.jsonl files of dir, sorted by name.
func sessionFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	return files, nil
}

// describeAll summarises files on all CPUs and sorts the sessions by Modified, newest first.
func describeAll(files []string) []Info {
	infos := make([]Info, len(files))
	ok := make([]bool, len(files))
	workers := runtime.GOMAXPROCS(0)
	if workers > len(files) {
		workers = len(files)
	}
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, listChunk)
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(files) {
					return
				}
				infos[i], ok[i], buf = describe(files[i], buf)
			}
		}()
	}
	wg.Wait()
	out := make([]Info, 0, len(files))
	for i := range infos {
		if ok[i] {
			out = append(out, infos[i])
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Modified.After(out[j].Modified) })
	return out
}

// ResolveKind says how a --session argument was resolved.
type ResolveKind int

const (
	// ResolvedNotFound: no session matches the id prefix.
	ResolvedNotFound ResolveKind = iota
	// ResolvedPath: the argument is a path (contains a separator or ends in .jsonl); it may not exist.
	ResolvedPath
	// ResolvedLocal: a session of this project's directory matched.
	ResolvedLocal
	// ResolvedGlobal: a session of another project matched; pi asks before forking it here.
	ResolvedGlobal
)

// Resolved is the outcome of ResolveSession.
type Resolved struct {
	Kind ResolveKind
	Path string
	Cwd  string // the matched session's cwd (ResolvedGlobal)
}

// ResolveSession resolves a --session/--fork argument as pi does: a path when it contains / or \ or
// ends in .jsonl; otherwise an id prefix, matched first among the sessions of sessionDir, then among
// all projects under sessionsRoot, the most recently modified match winning.
func ResolveSession(arg, sessionDir, sessionsRoot string) (Resolved, error) {
	if strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl") {
		return Resolved{Kind: ResolvedPath, Path: arg}, nil
	}
	local, err := sessionFiles(sessionDir)
	if err != nil {
		return Resolved{}, err
	}
	if info, ok := bestMatch(local, arg); ok {
		return Resolved{Kind: ResolvedLocal, Path: info.Path, Cwd: info.Cwd}, nil
	}
	dirs, err := os.ReadDir(sessionsRoot)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Resolved{}, err
	}
	var all []string
	for _, d := range dirs {
		if d.IsDir() {
			found, _ := sessionFiles(filepath.Join(sessionsRoot, d.Name()))
			all = append(all, found...)
		}
	}
	if info, ok := bestMatch(all, arg); ok {
		return Resolved{Kind: ResolvedGlobal, Path: info.Path, Cwd: info.Cwd}, nil
	}
	return Resolved{Kind: ResolvedNotFound}, nil
}

// bestMatch summarises only the files whose header id starts with prefix and returns the most
// recently modified.
func bestMatch(files []string, prefix string) (Info, bool) {
	var matches []string
	for _, f := range files {
		if h, err := readHeader(f); err == nil && strings.HasPrefix(h.ID, prefix) {
			matches = append(matches, f)
		}
	}
	infos := describeAll(matches)
	if len(infos) == 0 {
		return Info{}, false
	}
	return infos[0], true
}
