package tui

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-go/pi-go/internal/tui/editor"
	"github.com/pi-go/pi-go/internal/tui/picker"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

const (
	completionRows = 5
	// filesMaxAge is how long the project's file list serves @ completion before it is read again.
	filesMaxAge = 30 * time.Second
	// completionAskTimeout bounds waiting for an extension command's argument suggestions.
	completionAskTimeout = 5 * time.Second
)

// completion is the suggestion list under the editor: slash commands (typed "/name"), files of the
// project ("@query", fuzzy) and paths (Tab).
type completion struct {
	cwd    string
	items  []compItem
	prefix string // the text before the cursor that a suggestion replaces
	sel    int
	scroll int

	files        []string
	filesAt      time.Time
	filesLoading bool
}

type compItem struct {
	value string // what replaces prefix
	label string
	desc  string
	dir   bool
}

func newCompletion(cwd string) *completion { return &completion{cwd: cwd} }

func (c *completion) active() bool { return len(c.items) > 0 }

func (c *completion) close() { c.items, c.prefix, c.sel, c.scroll = nil, "", 0, 0 }

// refresh updates the suggestions after an edit: command names after a leading "/", files after
// "@" (reading the project's files first if needed); anything else closes the list (paths are
// completed on Tab only).
func (c *completion) refreshBuiltin(m *model) tea.Cmd {
	e := m.ed
	before := e.TextBeforeCursor()
	switch {
	case e.OnFirstLine() && strings.HasPrefix(before, "/") && !strings.Contains(before, " "):
		c.show(before, commandItems(append(m.availableCommands(), m.resourceCommands()...), before[1:]))
	case atPrefix(before) != "":
		c.showFiles(atPrefix(before))
		return c.needFiles(m)
	case e.OnFirstLine() && strings.HasPrefix(before, "/"):
		if name, prefix, ok := m.argCommand(before); ok {
			c.close()
			return c.askArguments(m, before, name, prefix)
		}
		c.close()
	default:
		c.close()
	}
	return nil
}

func (c *completion) show(prefix string, items []compItem) {
	if len(items) == 0 {
		c.close()
		return
	}
	if prefix != c.prefix || len(items) != len(c.items) {
		c.sel, c.scroll = 0, 0
	}
	c.prefix, c.items = prefix, items
}

// commandItems are the built-in commands matching query, for the list.
func commandItems(all []slashCommand, query string) []compItem {
	cmds := picker.FuzzyFilter(all, query, func(s slashCommand) string { return s.name })
	items := make([]compItem, 0, len(cmds))
	for _, s := range cmds {
		desc := s.desc
		if s.hint != "" {
			desc = s.hint + " — " + desc
		}
		items = append(items, compItem{value: "/" + s.name + " ", label: s.name, desc: desc})
	}
	return items
}

// key handles the list's keys while it is shown.
func (c *completion) key(m *model, name string) (tea.Cmd, bool) {
	if !c.active() {
		return nil, false
	}
	switch name {
	case "up", "ctrl+p":
		c.sel = (c.sel - 1 + len(c.items)) % len(c.items)
	case "down", "ctrl+n":
		c.sel = (c.sel + 1) % len(c.items)
	case "esc":
		c.close()
	case "tab":
		c.accept(m)
	case "enter":
		// A command typed in full is run, not completed again.
		it := c.items[c.sel]
		if strings.TrimSpace(it.value) == strings.TrimSpace(m.ed.TextBeforeCursor()) || it.value == c.prefix && c.prefix != "" {
			c.close()
			return nil, false
		}
		c.accept(m)
	default:
		return nil, false
	}
	return nil, true
}

// accept replaces the prefix with the selected suggestion. A directory keeps the list open on its
// contents.
func (c *completion) accept(m *model) {
	it := c.items[c.sel]
	m.ed.ReplaceBeforeCursor(len([]rune(c.prefix)), it.value)
	c.close()
	if it.dir {
		c.refresh(m)
		if !c.active() {
			c.tab(m)
		}
	}
}

// tab is Tab without a list: complete the path before the cursor (one match is inserted, several are
// listed); a leading "/name" completes commands.
func (c *completion) tab(m *model) tea.Cmd {
	before := m.ed.TextBeforeCursor()
	if strings.HasPrefix(strings.TrimSpace(before), "/") && !strings.Contains(strings.TrimSpace(before), " ") {
		c.refresh(m)
		if len(c.items) == 1 {
			c.accept(m)
		}
		return nil
	}
	prefix := pathPrefix(before)
	items := pathItems(c.cwd, prefix)
	switch len(items) {
	case 0:
		c.close()
	case 1:
		c.prefix, c.items, c.sel = prefix, items, 0
		c.accept(m)
	default:
		c.show(prefix, items)
	}
	return nil
}

// ---- @ files ----

// atPrefix is the "@..." token before the cursor ("" when the cursor is not in one).
func atPrefix(before string) string {
	start := strings.LastIndexAny(before, " \t\"'=") + 1
	if start < len(before) && before[start] == '@' {
		return before[start:]
	}
	if i := strings.LastIndex(before, `@"`); i >= 0 && !strings.Contains(before[i+2:], `"`) &&
		(i == 0 || strings.ContainsAny(before[i-1:i], " \t=")) {
		return before[i:]
	}
	return ""
}

func (c *completion) showFiles(prefix string) {
	query := strings.TrimPrefix(strings.TrimPrefix(prefix, "@"), `"`)
	quoted := strings.HasPrefix(prefix, `@"`)
	c.show(prefix, fileItems(c.files, query, quoted))
	if !c.active() && len(c.files) == 0 {
		// Keep the prefix so the list appears as soon as the files are read.
		c.prefix = prefix
	}
}

// needFiles starts reading the project's files when @ completion needs them.
func (c *completion) needFiles(m *model) tea.Cmd {
	if c.filesLoading || c.files != nil && time.Since(c.filesAt) < filesMaxAge {
		return nil
	}
	c.filesLoading = true
	ctx, cwd := m.ctx, c.cwd
	return m.op(func() tea.Msg { return filesMsg{files: listProjectFiles(ctx, cwd), at: time.Now()} })
}

// setFiles takes the file list and refreshes the suggestions if an @ token is still being typed.
func (c *completion) setFiles(msg filesMsg, e *editor.Editor) tea.Cmd {
	c.files, c.filesAt, c.filesLoading = msg.files, msg.at, false
	if p := atPrefix(e.TextBeforeCursor()); p != "" {
		c.showFiles(p)
	}
	return nil
}

// fileItems ranks the files matching query as pi does (file name equal, then starting with, then
// containing the query, then the path containing it; directories first among equals), best 20.
func fileItems(files []string, query string, quoted bool) []compItem {
	lq := strings.ToLower(query)
	type scored struct {
		path  string
		score int
	}
	var found []scored
	for _, f := range files {
		isDir := strings.HasSuffix(f, "/")
		p := strings.TrimSuffix(f, "/")
		name := strings.ToLower(path.Base(p))
		score := 1
		if lq != "" {
			switch {
			case name == lq:
				score = 100
			case strings.HasPrefix(name, lq):
				score = 80
			case strings.Contains(name, lq):
				score = 50
			case strings.Contains(strings.ToLower(p), lq):
				score = 30
			default:
				continue
			}
			if isDir {
				score += 10
			}
		}
		found = append(found, scored{f, score})
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].score > found[j].score })
	if len(found) > 20 {
		found = found[:20]
	}
	items := make([]compItem, 0, len(found))
	for _, s := range found {
		isDir := strings.HasSuffix(s.path, "/")
		p := strings.TrimSuffix(s.path, "/")
		items = append(items, compItem{value: completionValue(s.path, true, quoted, isDir), label: path.Base(p) + dirSlash(isDir),
			desc: p, dir: isDir})
	}
	return items
}

func dirSlash(dir bool) string {
	if dir {
		return "/"
	}
	return ""
}

// completionValue is how a path is inserted: "@" for attachments, quoted when it has a space, and
// followed by a space unless it is a directory (to go on completing inside it).
func completionValue(p string, at, quoted, dir bool) string {
	v := p
	if quoted || strings.Contains(p, " ") {
		v = `"` + p + `"`
	}
	if at {
		v = "@" + v
	}
	if !dir && at {
		v += " "
	}
	return v
}

// ---- Tab paths ----

// pathPrefix is the path-like token before the cursor.
func pathPrefix(before string) string {
	if i := strings.LastIndexByte(before, '"'); i >= 0 && strings.Count(before, `"`)%2 == 1 {
		return before[i:]
	}
	return before[strings.LastIndexAny(before, " \t\"'=")+1:]
}

// pathItems lists the entries of the directory a prefix points into whose names start with the rest.
func pathItems(cwd, prefix string) []compItem {
	raw := strings.TrimPrefix(prefix, `"`)
	at := strings.HasPrefix(raw, "@")
	raw = strings.TrimPrefix(strings.TrimPrefix(raw, "@"), `"`)
	quoted := strings.Contains(prefix, `"`)
	home, _ := os.UserHomeDir()
	expanded := raw
	if raw == "~" || strings.HasPrefix(raw, "~/") {
		expanded = home + strings.TrimPrefix(raw, "~")
	}
	dirPart, filePart := expanded, ""
	displayDir := raw
	if !strings.HasSuffix(raw, "/") && raw != "~" {
		dirPart, filePart = filepath.Dir(expanded), filepath.Base(expanded)
		displayDir = raw[:strings.LastIndexByte(raw, '/')+1]
		if raw == "" || raw == "." || raw == ".." {
			dirPart, filePart, displayDir = expanded, "", raw
			if raw == "" {
				dirPart = "."
			}
		}
	}
	if raw == "~" {
		displayDir = "~/"
	}
	searchDir := dirPart
	if !filepath.IsAbs(searchDir) {
		searchDir = filepath.Join(cwd, searchDir)
	}
	entries, err := os.ReadDir(searchDir)
	if err != nil {
		return nil
	}
	if (raw == "." || raw == "..") && displayDir != "" {
		displayDir += "/"
	}
	var items []compItem
	for _, e := range entries {
		if !strings.HasPrefix(strings.ToLower(e.Name()), strings.ToLower(filePart)) {
			continue
		}
		isDir := e.IsDir()
		if !isDir && e.Type()&os.ModeSymlink != 0 {
			if fi, err := os.Stat(filepath.Join(searchDir, e.Name())); err == nil {
				isDir = fi.IsDir()
			}
		}
		p := displayDir + e.Name() + dirSlash(isDir)
		v := p
		if quoted || strings.Contains(p, " ") {
			v = `"` + p + `"`
		}
		if at {
			v = "@" + v
		}
		items = append(items, compItem{value: v, label: e.Name() + dirSlash(isDir), dir: isDir})
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].dir != items[j].dir {
			return items[i].dir
		}
		return items[i].label < items[j].label
	})
	return items
}

// view renders the list under the editor: the selected row marked, descriptions dimmed.
func (c *completion) view(m *model, width int) []string {
	if !c.active() {
		return nil
	}
	th := m.r.Theme()
	if c.sel < c.scroll {
		c.scroll = c.sel
	}
	if c.sel >= c.scroll+completionRows {
		c.scroll = c.sel - completionRows + 1
	}
	end := min(len(c.items), c.scroll+completionRows)
	labelW := 0
	for _, it := range c.items[c.scroll:end] {
		labelW = max(labelW, len([]rune(it.label)))
	}
	var out []string
	for i := c.scroll; i < end; i++ {
		it := c.items[i]
		label := it.label + strings.Repeat(" ", labelW-len([]rune(it.label)))
		line := "  " + label
		if i == c.sel {
			line = th.Fg(theme.Accent, "→ "+label)
		}
		if it.desc != "" {
			line += "  " + th.Fg(theme.Muted, it.desc)
		}
		out = append(out, truncate(" "+line, width))
	}
	if len(c.items) > completionRows {
		out = append(out, truncate("  "+th.Fg(theme.Muted, "("+itoa(c.sel+1)+"/"+itoa(len(c.items))+")"), width))
	}
	return out
}
