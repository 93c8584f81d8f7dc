package picker

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/render"
)

// sessionSort is the session picker's order (Ctrl+S cycles them, as pi's toggleSort).
type sessionSort int

const (
	sortThreaded  sessionSort = iota // forks nested under the session they came from
	sortRecent                       // most recently modified first
	sortRelevance                    // best search match first ("Fuzzy")
)

func (s sessionSort) label() string {
	switch s {
	case sortRecent:
		return "Recent"
	case sortRelevance:
		return "Fuzzy"
	}
	return "Threaded"
}

// sessionRow is one line of the picker: a session and its place in the thread tree.
type sessionRow struct {
	info      session.Info
	depth     int
	last      bool
	continues []bool // for each ancestor below the root: whether its branch line continues
}

// Sessions is /resume and pi -r: the sessions of this folder or of all (Tab), searchable (fuzzy
// tokens, "exact phrase", re:regex), threaded, recent or by relevance (Ctrl+S), named only (Ctrl+N),
// with paths (Ctrl+P); Ctrl+R renames the selected session (a session_info entry in its file),
// Ctrl+D (or Ctrl+Backspace on an empty search) deletes it after a confirmation, never the active one.
// It reads and changes no file itself: it asks its owner (LoadSessions, RenameSession,
// DeleteSession) and is given the answer (SessionsLoaded, SessionRenamed, SessionDeleted).
type Sessions struct {
	r       *render.Renderer
	initial bool   // opened by pi -r: Escape is NoSessionChosen
	current string // the session in use

	all       bool
	lists     [2][]session.Info // [current folder, all]
	hasLoaded [2]bool
	loading   [2]bool
	loadSeq   int
	loadErr   string

	sort      sessionSort
	namedOnly bool
	showPath  bool

	query  filterField
	rows   []sessionRow
	cursor int

	confirmDelete string // path waiting for Enter
	status        string // one-line message replacing the hints until the next key
	statusErr     bool

	renaming   string         // path being renamed ("" when not renaming)
	renameEdit *editor.Editor // the new name
}

// Messages of the session picker: its results, its requests and their answers.
type (
	// SessionChosen: Enter on a session other than the one in use (Enter on that one is Cancelled).
	SessionChosen struct {
		Path    string
		Initial bool // the picker pi -r opened
	}
	// NoSessionChosen: Escape in the picker pi -r opened.
	NoSessionChosen struct{}

	// LoadSessions asks for the sessions of this folder, or of all folders; the answer is
	// SessionsLoaded with the request in it.
	LoadSessions struct {
		All     bool
		Seq     int
		Refresh bool // a reload after a rename: the cursor stays where it is
	}
	// SessionsLoaded answers LoadSessions.
	SessionsLoaded struct {
		Request LoadSessions
		Infos   []session.Info
		Err     error
	}
	// DeleteSession asks for a session file to be deleted (the user confirmed); the answer is
	// SessionDeleted.
	DeleteSession struct{ Path string }
	// SessionDeleted answers DeleteSession; Status says how ("Session deleted", "...moved to trash").
	SessionDeleted struct {
		Path, Status string
		Err          error
	}
	// RenameSession asks for a session to be named; Active says it is the session in use. The
	// answer is SessionRenamed.
	RenameSession struct {
		Path, Name string
		Active     bool
	}
	// SessionRenamed answers RenameSession.
	SessionRenamed struct{ Err error }
)

// NewSessions returns the picker; current is the session in use, initial says pi -r opens it. Init
// asks for the first list.
func NewSessions(r *render.Renderer, current string, initial bool) *Sessions {
	return &Sessions{r: r, initial: initial, current: current, query: newFilterField()}
}

// Init asks for the sessions of the current folder.
func (sp *Sessions) Init() tea.Cmd { return sp.load(false) }

func (sp *Sessions) scope() int {
	if sp.all {
		return 1
	}
	return 0
}

// load asks for the sessions of the current scope (again when refresh is set).
func (sp *Sessions) load(refresh bool) tea.Cmd {
	sc := sp.scope()
	if sp.hasLoaded[sc] && !refresh {
		sp.refilter()
		return nil
	}
	if sp.loading[sc] && !refresh {
		return nil
	}
	sp.loading[sc] = true
	sp.loadSeq++
	return emit(LoadSessions{All: sp.all, Seq: sp.loadSeq, Refresh: refresh})
}

// loaded takes a list of sessions.
func (sp *Sessions) loaded(msg SessionsLoaded) {
	req := msg.Request
	if req.Seq != sp.loadSeq {
		return // a later load replaces this one
	}
	sc := 0
	if req.All {
		sc = 1
	}
	sp.loading[sc] = false
	if msg.Err != nil {
		sp.loadErr = "Failed to load sessions: " + msg.Err.Error()
		return
	}
	sp.loadErr = ""
	sp.lists[sc], sp.hasLoaded[sc] = msg.Infos, true
	if sp.scope() == sc {
		sp.refilter()
		if !req.Refresh {
			sp.cursorToFirstOther()
		}
	}
}

// cursorToFirstOther puts the cursor on the first session that is not the active one: resuming the
// session one is in is rarely what the picker was opened for.
func (sp *Sessions) cursorToFirstOther() {
	for i, r := range sp.rows {
		if r.info.Path != sp.current {
			sp.cursor = i
			return
		}
	}
}

// refilter rebuilds the rows from the loaded sessions, the name filter, the query and the order,
// keeping the cursor on the same session when it is still shown.
func (sp *Sessions) refilter() {
	keep := ""
	if sp.cursor < len(sp.rows) {
		keep = sp.rows[sp.cursor].info.Path
	}
	var infos []session.Info
	for _, in := range sp.lists[sp.scope()] {
		if !sp.namedOnly || strings.TrimSpace(in.Name) != "" {
			infos = append(infos, in)
		}
	}
	query := strings.TrimSpace(sp.query.Value())
	sp.rows = sp.rows[:0]
	switch {
	case query == "" && sp.sort == sortThreaded:
		sp.rows = threadSessions(infos)
	default:
		for _, in := range filterSessions(infos, query, sp.sort) {
			sp.rows = append(sp.rows, sessionRow{info: in, last: true})
		}
	}
	sp.cursor = min(sp.cursor, max(len(sp.rows)-1, 0))
	for i, r := range sp.rows {
		if r.info.Path == keep {
			sp.cursor = i
		}
	}
}

func (sp *Sessions) setStatus(msg string, isErr bool) { sp.status, sp.statusErr = msg, isErr }

// Update applies a key or the answer to a request.
func (sp *Sessions) Update(msg tea.Msg) (Picker, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return sp, sp.key(msg)
	case SessionsLoaded:
		sp.loaded(msg)
	case SessionDeleted:
		sp.deleted(msg)
	case SessionRenamed:
		if msg.Err != nil {
			sp.setStatus("Failed to rename: "+msg.Err.Error(), true)
			return sp, nil
		}
		return sp, sp.load(true)
	}
	return sp, nil
}

func (sp *Sessions) key(k tea.KeyMsg) tea.Cmd {
	name := editor.KeyName(k)
	if sp.renaming != "" {
		return sp.renameKey(k, name)
	}
	sp.status = ""
	if sp.confirmDelete != "" {
		switch name {
		case "enter":
			path := sp.confirmDelete
			sp.confirmDelete = ""
			return emit(DeleteSession{Path: path})
		case "esc", "ctrl+c":
			sp.confirmDelete = ""
		}
		return nil // every other key waits for the answer
	}
	switch name {
	case "esc", "ctrl+c":
		if sp.initial {
			return emit(NoSessionChosen{})
		}
		return emit(Cancelled{})
	case "enter":
		if sp.cursor >= len(sp.rows) {
			return nil
		}
		path := sp.rows[sp.cursor].info.Path
		if path == sp.current {
			return emit(Cancelled{}) // already the session in use
		}
		return emit(SessionChosen{Path: path, Initial: sp.initial})
	case "tab":
		sp.all = !sp.all
		sp.cursor = 0
		sp.refilter()
		return sp.load(false)
	case "ctrl+s":
		sp.sort = (sp.sort + 1) % 3
		sp.refilter()
	case "ctrl+n":
		sp.namedOnly = !sp.namedOnly
		sp.refilter()
	case "ctrl+p":
		sp.showPath = !sp.showPath
	case "ctrl+r":
		if sp.cursor < len(sp.rows) && !sp.loading[sp.scope()] {
			in := sp.rows[sp.cursor].info
			sp.renaming = in.Path
			sp.renameEdit = editor.New()
			sp.renameEdit.SetText(in.Name)
		}
	case "ctrl+d":
		sp.startDelete()
	case "ctrl+h": // Ctrl+Backspace in most terminals: delete when the search is empty
		if sp.query.Value() == "" {
			sp.startDelete()
			return nil
		}
		if sp.query.Key(k) {
			sp.refilter()
		}
	case "up":
		sp.cursor = max(sp.cursor-1, 0)
	case "down":
		sp.cursor = max(min(sp.cursor+1, len(sp.rows)-1), 0)
	case "pgup":
		sp.cursor = max(sp.cursor-10, 0)
	case "pgdown":
		sp.cursor = max(min(sp.cursor+10, len(sp.rows)-1), 0)
	default:
		if sp.query.Key(k) {
			sp.refilter()
		}
	}
	return nil
}

func (sp *Sessions) startDelete() {
	if sp.cursor >= len(sp.rows) {
		return
	}
	path := sp.rows[sp.cursor].info.Path
	if path == sp.current {
		sp.setStatus("Cannot delete the currently active session", true)
		return
	}
	sp.confirmDelete = path
}

// deleted takes the outcome of a deletion: the session leaves the lists.
func (sp *Sessions) deleted(msg SessionDeleted) {
	if msg.Err != nil {
		sp.setStatus("Failed to delete: "+msg.Err.Error(), true)
		return
	}
	for sc := range sp.lists {
		kept := sp.lists[sc][:0:0]
		for _, in := range sp.lists[sc] {
			if in.Path != msg.Path {
				kept = append(kept, in)
			}
		}
		sp.lists[sc] = kept
	}
	sp.refilter()
	sp.setStatus(msg.Status, false)
}

// renameKey edits the new name: Enter saves a non-empty one, Escape goes back to the list.
func (sp *Sessions) renameKey(k tea.KeyMsg, name string) tea.Cmd {
	switch name {
	case "esc", "ctrl+c":
		sp.renaming, sp.renameEdit = "", nil
		return nil
	case "enter":
		next := strings.TrimSpace(oneLine(sp.renameEdit.Text()))
		if next == "" {
			return nil
		}
		path := sp.renaming
		sp.renaming, sp.renameEdit = "", nil
		return emit(RenameSession{Path: path, Name: next, Active: path == sp.current})
	}
	if k.Paste {
		sp.renameEdit.InsertText(oneLine(string(k.Runes)))
		return nil
	}
	sp.renameEdit.Update(k)
	return nil
}
