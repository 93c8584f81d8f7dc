package theme

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/muesli/termenv"
)

// Sources say where a Catalog looks for theme files, as pi 1.6's resource loader does.
type Sources struct {
	AgentDir string // ~/.pi/agent: its themes/ directory, and the base of GlobalThemes entries
	Cwd      string // the project: .pi/themes and the base (.pi) of ProjectThemes entries
	Home     string // expands "~" in entries
	// ProjectTrusted admits the project's .pi/themes, ProjectThemes and ProjectPackageThemes.
	ProjectTrusted bool
	// GlobalThemes, ProjectThemes: the "themes" entries of the user's and the project's
	// settings.json (theme files or directories of them).
	GlobalThemes, ProjectThemes []string
	// GlobalPackageThemes, ProjectPackageThemes: the theme files the packages of the same settings
	// files carry (internal/packages finds them where pi installs packages, filters applied).
	GlobalPackageThemes, ProjectPackageThemes []string
	// ExtensionThemes are the theme files or directories extensions contributed (resources_discover),
	// after everything else, as pi merges them last.
	ExtensionThemes []string
}

// Catalog is every theme found: the built-in ones and the files, by name. Problems (an invalid
// file, two themes of one name, a missing path) are Diagnostics naming the file; they never stop
// the others from loading.
type Catalog struct {
	specs       map[string]*Spec
	names       []string
	Diagnostics []error
}

// Discover loads the built-in themes, then the theme files of src in pi's order of precedence:
// the project settings' entries and packages, the project's .pi/themes, the user settings' entries
// and packages, the user's themes directory. The first theme of a name wins; a later one is a
// collision diagnostic. "system" is reserved and never a file's.
func Discover(src Sources) *Catalog {
	c := &Catalog{specs: map[string]*Spec{}}
	for _, name := range []string{"dark", "light"} {
		s, _ := Builtin(name)
		c.add(s)
	}
	var files []string
	// An unset directory is no directory (not the process's working directory).
	if projectBase := filepath.Join(src.Cwd, ".pi"); src.ProjectTrusted && src.Cwd != "" {
		files = append(files, c.entryFiles(src.ProjectThemes, projectBase, src.Home)...)
		files = append(files, src.ProjectPackageThemes...)
		files = append(files, jsonFiles(filepath.Join(projectBase, "themes"))...)
	}
	if src.AgentDir != "" {
		files = append(files, c.entryFiles(src.GlobalThemes, src.AgentDir, src.Home)...)
		files = append(files, src.GlobalPackageThemes...)
		files = append(files, jsonFiles(filepath.Join(src.AgentDir, "themes"))...)
	}
	for _, p := range src.ExtensionThemes {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			files = append(files, jsonFiles(p)...)
		} else {
			files = append(files, p) // a missing file is Load's diagnostic
		}
	}
	seen := map[string]bool{}
	for _, f := range files {
		if abs, err := filepath.Abs(f); err == nil {
			f = abs
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		spec, err := Load(f)
		if err != nil {
			c.Diagnostics = append(c.Diagnostics, err)
			continue
		}
		if prev, dup := c.specs[spec.Name]; dup {
			winner := prev.Path
			if winner == "" {
				winner = "the built-in theme"
			}
			c.Diagnostics = append(c.Diagnostics, fmt.Errorf("theme %s: name %q collides with %s, which wins", f, spec.Name, winner))
			continue
		}
		c.add(spec)
	}
	return c
}

func (c *Catalog) add(s *Spec) {
	c.specs[s.Name] = s
	c.names = append(c.names, s.Name)
}

// Names lists the themes by name, "system" first and then alphabetically, as pi's selector does.
func (c *Catalog) Names() []string {
	names := slices.Clone(c.names)
	slices.Sort(names)
	return append([]string{SystemTheme}, names...)
}

// Lookup is the theme called name. A theme loaded from a file is read again, so an edited file
// shows its current content (and its current problems).
func (c *Catalog) Lookup(name string) (*Spec, error) {
	s, ok := c.specs[name]
	if !ok {
		return nil, fmt.Errorf("theme %q not found (known: %s)", name, strings.Join(c.Names(), ", "))
	}
	if s.Path == "" {
		return s, nil
	}
	return Load(s.Path)
}

// entryFiles expands settings "themes" entries: a .json file is itself, a directory its .json files.
func (c *Catalog) entryFiles(entries []string, base, home string) []string {
	var out []string
	for _, e := range entries {
		p := resolvePath(e, base, home)
		info, err := os.Stat(p)
		switch {
		case err != nil:
			c.Diagnostics = append(c.Diagnostics, fmt.Errorf("theme path %s does not exist", p))
		case info.IsDir():
			out = append(out, jsonFiles(p)...)
		case strings.HasSuffix(p, ".json"):
			out = append(out, p)
		default:
			c.Diagnostics = append(c.Diagnostics, fmt.Errorf("theme path %s is not a .json file", p))
		}
	}
	return out
}

// jsonFiles lists the .json files of dir (symbolic links to files count), sorted by name.
func jsonFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

func resolvePath(p, base, home string) string {
	p = strings.TrimSpace(p)
	switch {
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(home, p[2:])
	case !filepath.IsAbs(p):
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// Select builds the theme the setting names on a terminal of the given appearance. "system" is
// pi-go's built-in theme of that appearance. A theme that cannot be loaded (unknown, invalid,
// unreadable) gives the system theme and the error, so the caller shows one notice and goes on.
func (c *Catalog) Select(setting, appearance string, profile termenv.Profile) (*Theme, error) {
	system := func() *Theme {
		name := "dark"
		if appearance == "light" {
			name = "light"
		}
		s, _ := Builtin(name)
		return New(s, profile, appearance)
	}
	name := Pick(setting, appearance)
	if name == SystemTheme {
		return system(), nil
	}
	spec, err := c.Lookup(name)
	if err != nil {
		return system(), err
	}
	return New(spec, profile, appearance), nil
}
