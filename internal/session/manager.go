package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pi-go/pi-go/internal/provider"
)

// Manager is one session: its header, its entries as a tree with a leaf pointer, and the file they
// are appended to. Appending makes the new entry a child of the leaf and moves the leaf to it.
//
// Persistence follows pi 1.6: a new session stays in memory until its first user or assistant message
// (so that starting pi and leaving without a word leaves no file), then the header and every buffered
// entry are written at once, and from then on each entry is appended as it comes. The prompt is thus
// in the file before the model is asked (pi 0.73.1 waited for the first answer, and a process killed
// during it lost the prompt). Moving the leaf (Branch, ResetLeaf) is not persisted by itself. A Manager is safe for
// concurrent use; it holds the file's exclusive lock until Close.
type Manager struct {
	mu sync.Mutex

	cwd     string
	dir     string // where new sessions (NewSession, forks) go
	persist bool
	path    string // "" when not persisted
	header  Header

	entries []*Entry
	byID    map[string]*Entry
	labels  labelIndex
	leaf    *Entry

	src             *source // nil until the file is opened or created
	headerOnDisk    bool
	onDisk          int  // entries[:onDisk] are in the file
	hasConversation bool // a user or assistant message is among the entries: the file exists
	closed          bool

	warnings []Warning
	now      clock
	// writeFn replaces the file write of appends (tests inject failures); nil is the real write.
	writeFn func(f *os.File, p []byte) (int, error)
}

// OpenOptions tunes Open.
type OpenOptions struct {
	// SessionDir is where sessions started from this one go (/new, forks); default: the file's
	// directory.
	SessionDir string
	// Cwd is the working directory recorded for a session the file does not describe (a path that does
	// not exist yet, a blank file, a file without a readable header).
	Cwd string
	// CwdOverride replaces the working directory of the file's header (pi's cwdOverride).
	CwdOverride string
}

// NewSessionOptions tunes NewSession.
type NewSessionOptions struct {
	ID            string // session id; default a new UUIDv7
	ParentSession string // path of the session this one continues
}

func newManager(cwd, dir string, persist bool) *Manager {
	return &Manager{cwd: cwd, dir: dir, persist: persist, byID: map[string]*Entry{}, now: time.Now}
}

// Create starts a new session for cwd whose file will be created in dir (usually DefaultSessionDir)
// when the first user or assistant message arrives. Nothing is written before that.
func Create(cwd, dir string) *Manager {
	m := newManager(cwd, dir, true)
	m.resetLocked(NewSessionOptions{})
	return m
}

// InMemory starts a session that is never written (--no-session).
func InMemory(cwd string) *Manager {
	m := newManager(cwd, "", false)
	m.resetLocked(NewSessionOptions{})
	return m
}

// Open opens a session file, migrating a v1/v2 file first (the original kept as <path>.bak), and takes
// its lock (a *LockError if another process holds it). A path that does not exist, or a blank file,
// becomes a new session written to exactly that path. A file without a readable header is never
// touched: a new session is started beside it and a Warning says so. Lines that cannot be read are
// skipped with a Warning and stay in the file. A torn last line (an interrupted write) is moved to a
// sidecar file, <path>.torn-<time>, and cut off, so the file stays valid JSONL; a file without a
// readable header is never modified.
func Open(path string, opts OpenOptions) (*Manager, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("session path %s: %w", path, err)
	}
	dir := opts.SessionDir
	if dir == "" {
		dir = filepath.Dir(abs)
	}
	cwd := opts.Cwd
	if opts.CwdOverride != "" {
		cwd = opts.CwdOverride
	}
	m := newManager(cwd, dir, true)
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		m.resetLocked(NewSessionOptions{})
		m.path = abs
		return m, nil
	}
	src, err := openSource(abs, false)
	if err != nil {
		return nil, err
	}
	l, err := load(src.f, src.size, abs, src)
	if errors.Is(err, errOldVersion) {
		var backup string
		var droppedTorn bool
		oldVersion := l.header.Version
		src, backup, droppedTorn, err = migrateFile(src)
		if err != nil {
			return nil, err
		}
		l, err = load(src.f, src.size, abs, src)
		if err == nil {
			msg := fmt.Sprintf("migrated from session format v%d to v%d; the original is kept as %s", oldVersion, CurrentVersion, backup)
			if droppedTorn {
				msg += "; its incomplete last line (an interrupted write) is kept only there"
			}
			l.warnings = append([]Warning{{Path: abs, Message: msg}}, l.warnings...)
		}
	}
	if err != nil {
		src.close()
		if errors.Is(err, errOldVersion) {
			err = fmt.Errorf("session file %s: migration did not produce version %d", abs, CurrentVersion)
		}
		return nil, err
	}
	switch {
	case l.blank:
		m.resetLocked(NewSessionOptions{})
		m.path = abs
		m.src = src
		src.needsNewline = l.unfinished && l.size > 0
		m.warnings = l.warnings
		return m, nil
	case !l.hasHeader:
		src.close()
		m.resetLocked(NewSessionOptions{})
		m.warnings = append(l.warnings, Warning{Path: abs, Message: "no readable session header: the file is left " +
			"untouched and a new session is started in " + m.path})
		return m, nil
	}
	m.header = l.header
	if opts.CwdOverride != "" {
		m.cwd = opts.CwdOverride
	} else if l.header.Cwd != "" {
		m.cwd = l.header.Cwd
	}
	m.path = abs
	m.src = src
	src.needsNewline = l.unfinished
	m.headerOnDisk = true
	m.entries = l.entries
	m.onDisk = len(l.entries)
	m.warnings = l.warnings
	if l.torn != nil {
		m.repairTornTailLocked(l.torn)
	}
	m.buildIndexLocked()
	return m, nil
}

// repairTornTailLocked moves an incomplete last line to a sidecar file (see moveTornTail) and says
// so in the line's warning; when that fails the line stays and the next append starts on a new line.
func (m *Manager) repairTornTailLocked(t *tornTail) {
	size := m.src.size - t.off
	msg := ""
	if sidecar, err := moveTornTail(m.src, t.off, m.now()); err != nil {
		msg = fmt.Sprintf("incomplete last line (an interrupted write), skipped; moving it aside failed (%v), "+
			"so it stays in the file as a malformed line and the next append starts on a new line", err)
	} else {
		msg = fmt.Sprintf("incomplete last line (an interrupted write): its %d bytes were moved to %s "+
			"and the session file ends at the last complete line", size, sidecar)
	}
	for i := range m.warnings {
		if m.warnings[i].Line == t.line {
			m.warnings[i].Message = msg
			return
		}
	}
	m.warnings = append(m.warnings, Warning{Path: m.path, Line: t.line, Message: msg})
}

// resetLocked makes m an empty new session (pi's newSession), without touching any file.
func (m *Manager) resetLocked(opts NewSessionOptions) {
	id := opts.ID
	if id == "" {
		id = newSessionID()
	}
	ts := isoTime(m.now())
	m.header = Header{Version: CurrentVersion, ID: id, Timestamp: ts, Cwd: m.cwd, ParentSession: opts.ParentSession}
	m.entries = nil
	m.byID = map[string]*Entry{}
	m.labels = labelIndex{}
	m.leaf = nil
	m.headerOnDisk = false
	m.onDisk = 0
	m.hasConversation = false
	m.src = nil
	m.path = ""
	if m.persist {
		m.path = filepath.Join(m.dir, sessionFileName(ts, id))
	}
}

// buildIndexLocked rebuilds the id index, labels and leaf from m.entries (leaf = last entry).
func (m *Manager) buildIndexLocked() {
	m.byID = make(map[string]*Entry, len(m.entries))
	m.labels = labelIndex{}
	m.leaf = nil
	m.hasConversation = false
	for _, e := range m.entries {
		m.byID[e.ID] = e
		m.leaf = e
		switch {
		case e.Type == TypeLabel:
			m.labels.set(e.TargetID, e.Label, e.Timestamp)
		case isConversation(e):
			m.hasConversation = true
		}
	}
}

// NewSession replaces this session by a new empty one in the same session directory (/new): the old
// file is flushed and released, untouched otherwise. It returns the new file's path ("" in memory).
func (m *Manager) NewSession(opts NewSessionOptions) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	err := m.releaseLocked()
	m.resetLocked(opts)
	return m.path, err
}

// releaseLocked writes what is still pending (after a failed write) and closes the file.
func (m *Manager) releaseLocked() error {
	var err error
	if m.persist && m.hasConversation && m.src != nil {
		err = m.flushLocked()
	}
	if m.src != nil {
		if cerr := m.src.close(); cerr != nil && err == nil {
			err = fmt.Errorf("close session file %s: %w", m.src.path, cerr)
		}
	}
	m.src = nil
	return err
}

// Close writes anything still pending (entries a failed write left in memory), releases the lock and
// closes the file. Entries read from the file can no longer decode their messages afterwards.
func (m *Manager) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	return m.releaseLocked()
}

// Sync writes entries still pending after a failed write and fsyncs the file. The harness calls it
// at turn_end and agent_end.
func (m *Manager) Sync() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.persist || !m.hasConversation {
		return nil
	}
	if err := m.flushLocked(); err != nil {
		return err
	}
	if m.src == nil {
		return nil
	}
	return m.src.sync()
}

// ---- appending ----

func (m *Manager) newID() string {
	return newEntryID(func(id string) bool { _, ok := m.byID[id]; return ok })
}

func (m *Manager) leafID() string {
	if m.leaf == nil {
		return ""
	}
	return m.leaf.ID
}

// appendLocked links e into the tree as the new leaf and persists it. On a write error e stays in the
// session (memory) and is written by the next successful append or Sync.
func (m *Manager) appendLocked(e *Entry) (string, error) {
	if m.closed {
		return "", errors.New("session is closed")
	}
	m.entries = append(m.entries, e)
	m.byID[e.ID] = e
	m.leaf = e
	if isConversation(e) {
		m.hasConversation = true
	}
	if !m.persist || !m.hasConversation {
		return e.ID, nil
	}
	return e.ID, m.flushLocked()
}

// isConversation reports whether e is a user or assistant message: the entries that make a session
// worth a file.
func isConversation(e *Entry) bool {
	return e.Type == TypeMessage && (e.Role == provider.RoleUser || e.Role == provider.RoleAssistant)
}

// flushLocked writes the header (if the file is new) and every entry not yet in the file, with one
// write call.
func (m *Manager) flushLocked() error {
	if m.headerOnDisk && m.onDisk == len(m.entries) {
		return nil
	}
	if m.src == nil {
		if err := os.MkdirAll(filepath.Dir(m.path), 0o755); err != nil {
			return fmt.Errorf("create session directory: %w", err)
		}
		src, err := openSource(m.path, true)
		if err != nil {
			return err
		}
		syncDir(filepath.Dir(m.path))
		m.src = src
	}
	m.src.write = fileWrite
	if m.writeFn != nil {
		m.src.write = m.writeFn
	}
	var buf []byte
	if !m.headerOnDisk {
		buf = append(headerLine(m.header), '\n')
	}
	pending := m.entries[m.onDisk:]
	starts := make([]int, len(pending))
	for i, e := range pending {
		starts[i] = len(buf)
		buf = append(buf, e.where().line...)
		buf = append(buf, '\n')
	}
	off, err := m.src.appendLines(buf)
	if err != nil {
		return err
	}
	for i, e := range pending {
		line := e.where().line
		loc := &location{src: m.src, off: off + int64(starts[i]), size: len(line), sum: crcOf(line)}
		if e.Type != TypeMessage {
			loc.line = line // small; a message's bytes are in the file now and decode from there
		}
		e.loc.p.Store(loc)
	}
	m.headerOnDisk = true
	m.onDisk = len(m.entries)
	return nil
}

func (m *Manager) base(typ string) *Entry {
	return &Entry{Type: typ, ID: m.newID(), ParentID: m.leafID(), Timestamp: isoTime(m.now()), entryFields: fieldsFor(typ)}
}

func (m *Manager) appendEncoded(e *Entry) (string, error) {
	line, err := e.encode()
	if err != nil {
		return "", err
	}
	e.loc = newLoc(location{line: line})
	return m.appendLocked(e)
}

// AppendMessage appends a message entry (user, assistant, toolResult, bashExecution). Compaction and
// branch summaries have their own entry types (AppendCompaction, BranchWithSummary); an extension's
// custom message goes through AppendCustomMessageEntry. The entry keeps msg itself: do not modify it
// afterwards. The id is returned even with a write error (the entry is then pending in memory).
func (m *Manager) AppendMessage(msg provider.Message) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.base(TypeMessage)
	line, ms, me, err := messageLine(e.ID, e.ParentID, e.Timestamp, msg)
	if err != nil {
		return "", err
	}
	e.loc, e.msgStart, e.msgEnd = newLoc(location{line: line}), ms, me
	e.Role = msg.Role()
	switch x := msg.(type) {
	case *provider.AssistantMessage:
		e.asstProvider, e.asstModel = x.Provider, x.Model
		u := x.Usage
		e.usage = &u
	case *provider.ToolResultMessage:
		if x.Usage != nil {
			u := *x.Usage
			e.usage = &u
		}
	}
	e.msg = &msgCache{}
	e.store(msg)
	return m.appendLocked(e)
}

// AppendThinkingLevelChange records a thinking level change.
func (m *Manager) AppendThinkingLevelChange(level provider.ThinkingLevel) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.base(TypeThinkingLevelChange)
	e.ThinkingLevel = string(level)
	return m.appendEncoded(e)
}

// AppendModelChange records a model switch.
func (m *Manager) AppendModelChange(providerName, modelID string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.base(TypeModelChange)
	e.Provider, e.ModelID = providerName, modelID
	return m.appendEncoded(e)
}

// AppendCompaction records a compaction: the context before firstKeptEntryID is replaced by summary.
// details (e.g. {readFiles, modifiedFiles}) is any JSON value; nil omits it.
//
// The entry also records the prompt and tool declarations the branch replays to at this point (pi
// 1.6's systemMessage checkpoint): system messages before the compaction leave the context with the
// rest, so the checkpoint carries what they declared.
//
// usage is what the summary requests cost (nil: none recorded); firstKeptEntryID "" keeps nothing
// before the compaction (pi 1.6's retain-none: the entry's own id is written).
func (m *Manager) AppendCompaction(summary, firstKeptEntryID string, tokensBefore int, details any, fromHook bool, usage *provider.Usage) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.base(TypeCompaction)
	e.Summary, e.FirstKeptEntryID, e.TokensBefore, e.FromHook = summary, firstKeptEntryID, tokensBefore, fromHook
	if firstKeptEntryID == "" {
		e.FirstKeptEntryID = e.ID
	}
	if usage != nil {
		u := *usage
		e.usage = &u
	}
	var err error
	if e.Details, err = marshalValue(details); err != nil {
		return "", fmt.Errorf("compaction details: %w", err)
	}
	if m.leaf != nil {
		ctx, warns, err := buildContext(pathTo(m.leaf, m.byID))
		m.warnings = append(m.warnings, warns...)
		if err != nil {
			return "", fmt.Errorf("compaction checkpoint: %w", err)
		}
		if cp := provider.CurrentSystemMessage(ctx.Messages); cp != nil {
			cp.Timestamp = e.Time()
			if e.SystemMessage, err = cp.MarshalJSON(); err != nil {
				return "", fmt.Errorf("compaction checkpoint: %w", err)
			}
		}
	}
	return m.appendEncoded(e)
}

// AppendCustomEntry records extension state; it never reaches the model. data nil omits it.
func (m *Manager) AppendCustomEntry(customType string, data any) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.base(TypeCustom)
	e.CustomType = customType
	var err error
	if e.Data, err = marshalValue(data); err != nil {
		return "", fmt.Errorf("custom entry data: %w", err)
	}
	return m.appendEncoded(e)
}

// AppendCustomMessageEntry records an extension message that reaches the model as user content. The
// entry takes CustomType, Content (as a string when ContentIsString), Display and Details of msg; its
// Timestamp is the entry's.
func (m *Manager) AppendCustomMessageEntry(msg *provider.CustomMessage) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.base(TypeCustomMessage)
	e.CustomType, e.Content, e.ContentIsString, e.Display = msg.CustomType, msg.Content, msg.ContentIsString, msg.Display
	var err error
	if e.Details, err = marshalValue(msg.Details); err != nil {
		return "", fmt.Errorf("custom message details: %w", err)
	}
	return m.appendEncoded(e)
}

// AppendSessionInfo sets the session's display name (trimmed; "" clears it).
func (m *Manager) AppendSessionInfo(name string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.base(TypeSessionInfo)
	e.Name = strings.TrimSpace(name)
	return m.appendEncoded(e)
}

// AppendLabelChange sets (or with "" clears) the label of an entry.
func (m *Manager) AppendLabelChange(targetID, label string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byID[targetID]; !ok {
		return "", notFound(targetID)
	}
	e := m.base(TypeLabel)
	e.TargetID, e.Label = targetID, label
	id, err := m.appendEncoded(e)
	if id != "" {
		m.labels.set(targetID, label, e.Timestamp)
	}
	return id, err
}

// AppendContextEdit records a branch-local edit of an earlier entry's model context (pi 1.6): with
// replacement nil the target leaves the context, otherwise its content is replaced. The target must
// be on the active branch and give the model editable content: a user, assistant or tool result
// message, or a custom message. A string replacement of an assistant message or tool result is
// written as one text block, as pi does (those messages have no string form). Errors are pi's.
func (m *Manager) AppendContextEdit(targetID string, replacement *Replacement) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	target, ok := m.byID[targetID]
	if !ok {
		return "", notFound(targetID)
	}
	onBranch := false
	for e := range ancestors(m.leaf, m.byID) {
		if onBranch = e == target; onBranch {
			break
		}
	}
	if !onBranch {
		return "", fmt.Errorf("Entry %s is not on the active branch", targetID) //nolint:staticcheck // pi's text
	}
	role := provider.RoleCustom
	if target.Type == TypeMessage {
		role = target.Role
	}
	switch {
	case target.Type == TypeCustomMessage:
	case target.Type == TypeMessage && (role == provider.RoleUser || role == provider.RoleAssistant || role == provider.RoleToolResult):
	default:
		return "", fmt.Errorf("Entry %s does not contribute editable model content", targetID) //nolint:staticcheck // pi's text
	}
	e := m.base(TypeContextEdit)
	e.TargetID, e.validEdit = targetID, true
	if replacement != nil {
		r := Replacement{Content: provider.CloneContent(replacement.Content), IsString: replacement.IsString}
		if r.IsString && (len(r.Content) != 1 || r.Content[0].Type != provider.ContentText) {
			return "", errors.New("Context edit replacement must be null or contain string/array content") //nolint:staticcheck // pi's text
		}
		if role == provider.RoleAssistant || role == provider.RoleToolResult {
			r.IsString = false
		}
		if r.Content == nil {
			r.Content = []provider.Content{}
		}
		e.Replacement = &r
	}
	return m.appendEncoded(e)
}

// notFound is pi's error text, which the RPC layer shows verbatim.
func notFound(id string) error { return fmt.Errorf("Entry %s not found", id) } //nolint:staticcheck // pi's text

// ---- accessors ----

// SessionID is the header's id.
func (m *Manager) SessionID() string { m.mu.Lock(); defer m.mu.Unlock(); return m.header.ID }

// SessionFile is the file's path ("" for an in-memory session). The file may not exist yet.
func (m *Manager) SessionFile() string { m.mu.Lock(); defer m.mu.Unlock(); return m.path }

// SessionDir is where sessions started from this one go.
func (m *Manager) SessionDir() string { m.mu.Lock(); defer m.mu.Unlock(); return m.dir }

// Cwd is the session's working directory.
func (m *Manager) Cwd() string { m.mu.Lock(); defer m.mu.Unlock(); return m.cwd }

// Header returns the session header.
func (m *Manager) Header() Header { m.mu.Lock(); defer m.mu.Unlock(); return m.header }

// IsPersisted is false for in-memory sessions.
func (m *Manager) IsPersisted() bool { return m.persist }

// Warnings are the problems met while loading (skipped lines, migration, an unreadable file) and
// while rebuilding the context (messages that could not be decoded).
func (m *Manager) Warnings() []Warning {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Warning(nil), m.warnings...)
}

// Entries returns every entry in file order (a copy of the list; entries are shared and immutable).
func (m *Manager) Entries() []*Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*Entry(nil), m.entries...)
}

// EntriesFrom returns the entries after the first i, in file order (nil when there are none): what
// was appended since a reader saw i entries.
func (m *Manager) EntriesFrom(i int) []*Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i >= len(m.entries) {
		return nil
	}
	return append([]*Entry(nil), m.entries[i:]...)
}

// Entry returns the entry with id, or nil.
func (m *Manager) Entry(id string) *Entry { m.mu.Lock(); defer m.mu.Unlock(); return m.byID[id] }

// LeafID is the current leaf's id ("" before the first entry or after ResetLeaf).
func (m *Manager) LeafID() string { m.mu.Lock(); defer m.mu.Unlock(); return m.leafID() }

// LeafEntry is the current leaf, or nil.
func (m *Manager) LeafEntry() *Entry { m.mu.Lock(); defer m.mu.Unlock(); return m.leaf }

// TotalUsage sums what the session was billed, all branches and compacted history included (pi
// 1.6's footer and get_session_stats totals): assistant messages, tool results that report usage,
// usage entries, compaction and branch summaries (see Entry.Usage). It decodes no message.
func (m *Manager) TotalUsage() provider.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	var total provider.Usage
	for _, e := range m.entries {
		if u, ok := e.Usage(); ok {
			total.Add(u)
		}
	}
	return total
}

// SessionName is the name of the latest session_info entry ("" when none or cleared).
func (m *Manager) SessionName() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.entries) - 1; i >= 0; i-- {
		if e := m.entries[i]; e.Type == TypeSessionInfo {
			return strings.TrimSpace(e.Name)
		}
	}
	return ""
}

// MessageEntryID returns the id of the message entry on the active branch that holds msg itself (the
// value given to AppendMessage, or the one BuildContext handed out), newest first; "" when none does.
func (m *Manager) MessageEntryID(msg provider.Message) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	for e := range ancestors(m.leaf, m.byID) {
		if e.Type == TypeMessage && e.cached() == msg {
			return e.ID
		}
	}
	return ""
}
