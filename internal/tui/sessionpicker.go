package tui

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/session"
	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
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

// sessionPicker is /resume and pi -r: the sessions of this folder or of all (Tab), searchable (fuzzy
// tokens, "exact phrase", re:regex), threaded, recent or by relevance (Ctrl+S), named only (Ctrl+N),
// with paths (Ctrl+P); Ctrl+R renames the selected session (a session_info entry in its file),
// Ctrl+D (or Ctrl+Backspace on an empty search) deletes it after a confirmation, never the active one.
type sessionPicker struct {
	initial bool // opened by pi -r: cancelling quits
	current string

	all       bool
	loaded    [2][]session.Info // [current folder, all]
	hasLoaded [2]bool
	loading   [2]bool
	loadSeq   int
	loadErr   string

	sort      sessionSort
	namedOnly bool
	showPath  bool

	query  []rune
	rows   []sessionRow
	cursor int

	confirmDelete string // path waiting for Enter
	status        string // one-line message replacing the hints until the next key
	statusErr     bool

	renaming   string         // path being renamed ("" when not renaming)
	renameEdit *editor.Editor // the new name
}

func (m *model) openSessionPicker(initial bool) tea.Cmd {
	sp := &sessionPicker{initial: initial, current: m.sess.Store().SessionFile()}
	m.sel = sp
	return sp.load(m, false)
}

func (sp *sessionPicker) scope() int {
	if sp.all {
		return 1
	}
	return 0
}

// load lists the sessions of the current scope off the UI goroutine (again when refresh is set).
func (sp *sessionPicker) load(m *model, refresh bool) tea.Cmd {
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
	seq, all := sp.loadSeq, sp.all
	dir, root := m.sessionsDir(), m.opts.SessionsRoot
	if root == "" {
		root = filepath.Dir(dir)
	}
	return m.op(func() tea.Msg {
		var infos []session.Info
		var err error
		if all {
			infos, err = session.ListAll(root)
		} else {
			infos, err = session.List(dir)
		}
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			if seq != sp.loadSeq {
				return nil // a later load replaces this one
			}
			sp.loading[sc] = false
			if err != nil {
				sp.loadErr = "Failed to load sessions: " + err.Error()
				return nil
			}
			sp.loadErr = ""
			sp.loaded[sc], sp.hasLoaded[sc] = infos, true
			if m.sel == sp && sp.scope() == sc {
				sp.refilter()
				if !refresh {
					sp.cursorToFirstOther()
				}
			}
			return nil
		}}
	})
}

// cursorToFirstOther puts the cursor on the first session that is not the active one: resuming the
// session one is in is rarely what the picker was opened for.
func (sp *sessionPicker) cursorToFirstOther() {
	for i, r := range sp.rows {
		if r.info.Path != sp.current {
			sp.cursor = i
			return
		}
	}
}

// refilter rebuilds the rows from the loaded sessions, the name filter, the query and the order,
// keeping the cursor on the same session when it is still shown.
func (sp *sessionPicker) refilter() {
	keep := ""
	if sp.cursor < len(sp.rows) {
		keep = sp.rows[sp.cursor].info.Path
	}
	var infos []session.Info
	for _, in := range sp.loaded[sp.scope()] {
		if !sp.namedOnly || strings.TrimSpace(in.Name) != "" {
			infos = append(infos, in)
		}
	}
	query := strings.TrimSpace(string(sp.query))
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

func (sp *sessionPicker) resize(int, int) {}

func (sp *sessionPicker) setStatus(msg string, isErr bool) { sp.status, sp.statusErr = msg, isErr }

func (sp *sessionPicker) key(m *model, k tea.KeyMsg) tea.Cmd {
	name := editor.KeyName(k)
	if sp.renaming != "" {
		return sp.renameKey(m, k, name)
	}
	sp.status = ""
	if sp.confirmDelete != "" {
		switch name {
		case "enter":
			path := sp.confirmDelete
			sp.confirmDelete = ""
			return sp.delete(m, path)
		case "esc", "ctrl+c":
			sp.confirmDelete = ""
		}
		return nil // every other key waits for the answer
	}
	switch name {
	case "esc", "ctrl+c":
		m.sel = nil
		if sp.initial {
			m.noSessionSelected = true
			m.quit()
		}
		return nil
	case "enter":
		if sp.cursor >= len(sp.rows) {
			return nil
		}
		path := sp.rows[sp.cursor].info.Path
		m.sel = nil
		if path == sp.current {
			return nil // already the session in use
		}
		return m.resumeSession(path, sp.initial)
	case "tab":
		sp.all = !sp.all
		sp.cursor = 0
		sp.refilter()
		return sp.load(m, false)
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
		if len(sp.query) == 0 {
			sp.startDelete()
			return nil
		}
		sp.query = sp.query[:len(sp.query)-1]
		sp.refilter()
	case "backspace":
		if len(sp.query) > 0 {
			sp.query = sp.query[:len(sp.query)-1]
			sp.refilter()
		}
	case "ctrl+u":
		sp.query = nil
		sp.refilter()
	case "up":
		sp.cursor = max(sp.cursor-1, 0)
	case "down":
		sp.cursor = max(min(sp.cursor+1, len(sp.rows)-1), 0)
	case "pgup":
		sp.cursor = max(sp.cursor-10, 0)
	case "pgdown":
		sp.cursor = max(min(sp.cursor+10, len(sp.rows)-1), 0)
	default:
		switch {
		case k.Paste:
			sp.query = append(sp.query, []rune(oneLine(string(k.Runes)))...)
		case k.Type == tea.KeySpace:
			sp.query = append(sp.query, ' ')
		case k.Type == tea.KeyRunes && !k.Alt:
			sp.query = append(sp.query, k.Runes...)
		default:
			return nil
		}
		sp.refilter()
	}
	return nil
}

func (sp *sessionPicker) startDelete() {
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

// delete removes a session file off the UI goroutine: into the trash with the trash command when
// there is one (as pi does), else for good.
func (sp *sessionPicker) delete(m *model, path string) tea.Cmd {
	return m.op(func() tea.Msg {
		msg, err := deleteSessionFile(path)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			if err != nil {
				sp.setStatus("Failed to delete: "+err.Error(), true)
				return nil
			}
			for sc := range sp.loaded {
				kept := sp.loaded[sc][:0:0]
				for _, in := range sp.loaded[sc] {
					if in.Path != path {
						kept = append(kept, in)
					}
				}
				sp.loaded[sc] = kept
			}
			sp.refilter()
			sp.setStatus(msg, false)
			return nil
		}}
	})
}

func deleteSessionFile(path string) (string, error) {
	if trash, err := exec.LookPath("trash"); err == nil {
		args := []string{path}
		if strings.HasPrefix(path, "-") {
			args = []string{"--", path}
		}
		err := exec.Command(trash, args...).Run()
		if _, statErr := os.Stat(path); err == nil || errors.Is(statErr, os.ErrNotExist) {
			return "Session moved to trash", nil
		}
	}
	if err := os.Remove(path); err != nil {
		return "", err
	}
	return "Session deleted", nil
}

// renameKey edits the new name: Enter saves a non-empty one, Escape goes back to the list.
func (sp *sessionPicker) renameKey(m *model, k tea.KeyMsg, name string) tea.Cmd {
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
		return sp.rename(m, path, next)
	}
	if k.Paste {
		sp.renameEdit.InsertText(oneLine(string(k.Runes)))
		return nil
	}
	sp.renameEdit.Update(k)
	return nil
}

// rename writes a session_info entry with the new name: through the session for the active one (the
// footer and title follow), into the file otherwise.
func (sp *sessionPicker) rename(m *model, path, name string) tea.Cmd {
	if path == sp.current {
		if err := m.sess.SetSessionName(name); err != nil {
			sp.setStatus("Failed to rename: "+err.Error(), true)
			return nil
		}
		m.footerDirty = true
		cmd := m.setTitle()
		return tea.Batch(cmd, sp.load(m, true))
	}
	return m.op(func() tea.Msg {
		err := renameSessionFile(path, name)
		return opDoneMsg{err: err, then: func(m *model, err error) tea.Cmd {
			if err != nil {
				sp.setStatus("Failed to rename: "+err.Error(), true)
				return nil
			}
			return sp.load(m, true)
		}}
	})
}

func renameSessionFile(path, name string) error {
	mgr, err := session.Open(path, session.OpenOptions{})
	if err != nil {
		return err
	}
	_, err = mgr.AppendSessionInfo(name)
	if cerr := mgr.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	// A file without an assistant message is not written to until it has one: say so.
	if in, ok := session.Describe(path); !ok || in.Name != strings.TrimSpace(name) {
		return errors.New("the session file was not changed")
	}
	return nil
}

// view draws the picker: the title with scope, name filter and order; the key hints (or the delete
// question, or a status); the search line; the sessions; the position.
func (sp *sessionPicker) view(m *model, width, rows int) []string {
	th := m.r.Theme()
	rule := th.Fg(theme.Accent, strings.Repeat("─", max(width, 1)))
	if sp.renaming != "" {
		out := []string{rule, truncate(" "+th.Bold("Rename Session"), width)}
		for _, l := range sp.renameEdit.View(max(width-1, 2), 3, true) {
			out = append(out, " "+l)
		}
		out = append(out, truncate(" "+th.Fg(theme.Muted, "enter to save · esc to cancel"), width))
		return append(out, rule)
	}
	out := []string{rule, sp.titleLine(m, width)}
	sep := th.Fg(theme.Muted, " · ")
	switch {
	case sp.confirmDelete != "":
		out = append(out, truncate(" "+th.Fg(theme.Error, "Delete session? enter confirm · esc cancel"), width))
	case sp.status != "":
		color := theme.Accent
		if sp.statusErr {
			color = theme.Error
		}
		out = append(out, truncate(" "+th.Fg(color, sp.status), width))
	case sp.loadErr != "":
		out = append(out, truncate(" "+th.Fg(theme.Error, sp.loadErr), width))
	default:
		path := "off"
		if sp.showPath {
			path = "on"
		}
		hints := []string{m.r.KeyHint("tab", "scope"), m.r.KeyHint("ctrl+s", "sort"), m.r.KeyHint("ctrl+n", "named"),
			m.r.KeyHint("ctrl+r", "rename"), m.r.KeyHint("ctrl+d", "delete"), m.r.KeyHint("ctrl+p", "path ("+path+")"),
			th.Fg(theme.Muted, `re:<pattern> regex · "phrase" exact`)}
		out = append(out, truncate(" "+strings.Join(hints, sep), width))
	}
	out = append(out, truncate(" "+th.Fg(theme.Muted, "Search: ")+string(sp.query)+"\x1b[7m \x1b[27m", width))
	visible := max(rows-6, 2)
	if len(sp.rows) == 0 {
		out = append(out, truncate(" "+th.Fg(theme.Muted, sp.emptyText()), width))
		return append(out, rule)
	}
	start := max(0, min(sp.cursor-visible/2, len(sp.rows)-visible))
	end := min(start+visible, len(sp.rows))
	now := time.Now()
	for i := start; i < end; i++ {
		out = append(out, sp.rowLine(m, sp.rows[i], i == sp.cursor, width, now))
	}
	if start > 0 || end < len(sp.rows) {
		out = append(out, truncate(th.Fg(theme.Muted, "  ("+itoa(sp.cursor+1)+"/"+itoa(len(sp.rows))+")"), width))
	}
	return append(out, rule)
}

func (sp *sessionPicker) titleLine(m *model, width int) string {
	th := m.r.Theme()
	title := "Resume Session (Current Folder)"
	if sp.all {
		title = "Resume Session (All)"
	}
	var scope string
	switch {
	case sp.loading[sp.scope()]:
		scope = th.Fg(theme.Muted, "○ Current Folder | ") + th.Fg(theme.Accent, "Loading...")
	case sp.all:
		scope = th.Fg(theme.Muted, "○ Current Folder | ") + th.Fg(theme.Accent, "◉ All")
	default:
		scope = th.Fg(theme.Accent, "◉ Current Folder") + th.Fg(theme.Muted, " | ○ All")
	}
	named := "All"
	if sp.namedOnly {
		named = "Named"
	}
	right := scope + "  " + th.Fg(theme.Muted, "Name: ") + th.Fg(theme.Accent, named) + "  " +
		th.Fg(theme.Muted, "Sort: ") + th.Fg(theme.Accent, sp.sort.label())
	right = truncate(right, max(width-1, 0))
	left := truncate(" "+th.Bold(title), max(width-renderWidth(right)-1, 0))
	gap := max(width-renderWidth(left)-renderWidth(right), 0)
	return left + strings.Repeat(" ", gap) + right
}

func (sp *sessionPicker) emptyText() string {
	switch {
	case sp.loading[sp.scope()]:
		return "Loading sessions..."
	case sp.namedOnly && sp.all:
		return "No named sessions found. Press ctrl+n to show all."
	case sp.namedOnly:
		return "No named sessions in current folder. Press ctrl+n to show all, or Tab to view all."
	case len(sp.query) > 0:
		return "No matching sessions"
	case sp.all:
		return "No sessions found"
	}
	return "No sessions in current folder. Press Tab to view all."
}

// rowLine is one session: the thread's branch lines, the name (or first message), and on the right
// the path (Ctrl+P), the folder (All), the message count and the age.
func (sp *sessionPicker) rowLine(m *model, r sessionRow, selected bool, width int, now time.Time) string {
	th := m.r.Theme()
	in := r.info
	var prefix strings.Builder
	if r.depth > 0 {
		for _, c := range r.continues {
			if c {
				prefix.WriteString("│  ")
			} else {
				prefix.WriteString("   ")
			}
		}
		if r.last {
			prefix.WriteString("└─ ")
		} else {
			prefix.WriteString("├─ ")
		}
	}
	text := in.Name
	if strings.TrimSpace(text) == "" {
		text = in.FirstMessage
	}
	text = strings.Join(strings.FieldsFunc(text, func(r rune) bool { return r < 0x20 || r == 0x7f || r == ' ' }), " ")
	right := itoa(in.MessageCount) + " " + formatAge(now.Sub(in.Modified))
	if sp.all && in.Cwd != "" {
		right = shortenHome(in.Cwd) + " " + right
	}
	if sp.showPath {
		right = shortenHome(in.Path) + " " + right
	}
	deleting := in.Path == sp.confirmDelete
	cursor := "  "
	if selected {
		cursor = th.Fg(theme.Accent, "› ")
	}
	avail := max(width-2-renderWidth(prefix.String())-renderWidth(right)-2, 10)
	text = truncateEllipsis(text, avail)
	switch {
	case deleting:
		text = th.Fg(theme.Error, text)
	case in.Path == sp.current:
		text = th.Fg(theme.Accent, text)
	case strings.TrimSpace(in.Name) != "":
		text = th.Fg(theme.Warning, text)
	}
	if selected {
		text = th.Bold(text)
	}
	left := cursor + th.Fg(theme.Dim, prefix.String()) + text
	rightColor := theme.Dim
	if deleting {
		rightColor = theme.Error
	}
	gap := max(width-renderWidth(left)-renderWidth(right), 1)
	line := truncate(left+strings.Repeat(" ", gap)+th.Fg(rightColor, right), width)
	if selected {
		line = render.FillBg(line, width, th.BgSeq(theme.SelectedBg))
	}
	return line
}

// truncateEllipsis cuts plain text to width cells, ending it with "…" when cut.
func truncateEllipsis(s string, width int) string {
	if renderWidth(s) <= width {
		return s
	}
	return render.Truncate(s, width, "…")
}
