package tui

import (
	"context"
	"os"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"
	xterm "golang.org/x/term"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/packages"
	"github.com/pi-go/pi-go/internal/tui/filewatch"
	"github.com/pi-go/pi-go/internal/tui/render"
	"github.com/pi-go/pi-go/internal/tui/theme"
)

// themeState is the active theme's origin: the catalog it was picked from, the terminal it was
// picked for, and the watch on its file (pi hot-reloads a user theme from the agent directory's
// themes/).
type themeState struct {
	catalog    *theme.Catalog
	appearance string
	profile    termenv.Profile
	// changes signals edits of the active theme's file; nil when nothing is watched.
	changes     <-chan struct{}
	stopWatch   context.CancelFunc
	lastProblem string // the last reload problem shown, so an edit in progress warns once
	// extension are the theme paths extensions contributed (ExtensionUI.SetThemePaths).
	extension []string
}

// themeFileChangedMsg: the active theme's file changed.
type themeFileChangedMsg struct{}

// terminalColors are the terminal's reported default colours (nil: it did not answer).
type terminalColors struct{ bg, fg *theme.RGB }

// pickTheme discovers the themes (built-in, the agent directory's, the trusted project's, the
// settings' entries and packages: local, npm and git) and builds the one the "theme" setting names
// for this terminal. Problems become warnings under the header; an unusable theme gives the default one.
func (m *model) pickTheme() (*theme.Theme, []string) {
	global, project := m.opts.resourceLists()
	globalPkg, projectPkg := m.opts.packageThemes(m.sess.Cwd(), os.Getenv("HOME"))
	m.themes.catalog = theme.Discover(theme.Sources{
		AgentDir: m.opts.AgentDir, Cwd: m.sess.Cwd(), Home: os.Getenv("HOME"),
		ProjectTrusted: m.opts.ProjectTrusted,
		GlobalThemes:   global.Themes, ProjectThemes: project.Themes,
		GlobalPackageThemes: globalPkg, ProjectPackageThemes: projectPkg,
		ExtensionThemes: m.themes.extension,
	})
	m.themes.profile = colorProfile()
	m.themes.appearance = theme.TerminalAppearance(m.opts.termColors.bg, m.opts.termColors.fg, os.Getenv("COLORFGBG"))
	var warnings []string
	for _, d := range m.themes.catalog.Diagnostics {
		warnings = append(warnings, d.Error())
	}
	th, err := m.themes.catalog.Select(m.settings().Theme, m.themes.appearance, m.themes.profile)
	if err != nil {
		warnings = append(warnings, err.Error()+"; using the default theme")
	}
	return th, warnings
}

// watchTheme starts watching the active theme's file when it is a user theme of the agent
// directory (as pi, which hot-reloads only those), and returns the command that waits for a change.
func (m *model) watchTheme() tea.Cmd {
	if m.themes.stopWatch != nil {
		m.themes.stopWatch()
		m.themes.stopWatch, m.themes.changes = nil, nil
	}
	path := m.r.Theme().Path()
	if path == "" || m.opts.AgentDir == "" || filepath.Dir(path) != filepath.Join(m.opts.AgentDir, "themes") {
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	ch, err := filewatch.Watch(ctx, path)
	if err != nil {
		cancel()
		return nil
	}
	m.themes.changes, m.themes.stopWatch = ch, cancel
	return m.waitThemeChange()
}

// waitThemeChange waits for the next change of the watched file (re-armed after each one).
func (m *model) waitThemeChange() tea.Cmd {
	ch := m.themes.changes
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		if _, ok := <-ch; !ok {
			return nil
		}
		return themeFileChangedMsg{}
	}
}

// reloadTheme applies the edited theme file. While the file is invalid (mid-edit, or a mistake)
// the current theme stays and one warning names the file and the key; the next valid save applies.
func (m *model) reloadTheme() tea.Cmd {
	cur := m.r.Theme()
	spec, err := theme.Load(cur.Path())
	if err != nil {
		if msg := err.Error(); msg != m.themes.lastProblem {
			m.themes.lastProblem = msg
			m.addWarning(msg)
		}
		return m.waitThemeChange()
	}
	m.themes.lastProblem = ""
	m.setTheme(theme.New(spec, m.themes.profile, m.themes.appearance))
	return m.waitThemeChange()
}

// setTheme renders everything from now on with th: the live area, the editor and the footer at
// once, new blocks as they come.
func (m *model) setTheme(th *theme.Theme) {
	home, _ := os.UserHomeDir()
	m.r = render.New(render.Options{Theme: th, Keys: m.renderKeys(), Home: home, Transformer: m.mdxTransformer()})
	m.footerDirty = true
}

// resourceLists are the settings files' resource entries (none without settings).
func (o Options) resourceLists() (global, project config.ResourceLists) {
	if o.Settings == nil {
		return global, project
	}
	return o.Settings.ResourceLists()
}

// packageThemes are the theme files of the settings' packages, the user's and the project's, where
// pi installs them. A package that is not installed has none (cmd/pi warns about it at start-up).
func (o Options) packageThemes(cwd, home string) (global, project []string) {
	if o.Settings == nil {
		return nil, nil
	}
	userEntries, projectEntries := o.Settings.PackageEntries()
	for _, p := range packages.Configured(packages.Dirs{AgentDir: o.AgentDir, Cwd: cwd, Home: home}, userEntries, projectEntries) {
		files := p.Resources(packages.Themes, home)
		if p.Scope == packages.Project {
			project = append(project, files...)
		} else {
			global = append(global, files...)
		}
	}
	return global, project
}

// builtinTheme is the built-in theme the setting selects, for screens shown before the project's
// resources may be read (the trust prompt): a custom theme there gives the default one.
func builtinTheme(setting string) *theme.Theme {
	appearance := theme.TerminalAppearance(nil, nil, os.Getenv("COLORFGBG"))
	th, _ := theme.Discover(theme.Sources{}).Select(setting, appearance, colorProfile())
	return th
}

// colorProfile is the colour profile of the terminal on stdout. termenv's own detection reports no
// colour whenever CI is set, even when stdout is a terminal (a tmux pane on a CI machine); here only
// whether stdout is a terminal, NO_COLOR/CLICOLOR, TERM and COLORTERM decide.
func colorProfile() termenv.Profile {
	tty := xterm.IsTerminal(int(os.Stdout.Fd()))
	return termenv.NewOutput(os.Stdout, termenv.WithTTY(tty)).EnvColorProfile()
}
