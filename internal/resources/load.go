package resources

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Options say where to look. The project's directories (.pi/skills, .pi/prompts, .agents/skills
// between Cwd and the repository root) count only when ProjectTrusted; pass the project settings'
// entries only then too.
type Options struct {
	AgentDir string
	Cwd      string
	// Home holds the user's ~/.agents/skills and expands "~" in entries.
	Home           string
	ProjectTrusted bool
	// GlobalSkills, GlobalPrompts: the skills and prompts entries of the agent directory's
	// settings.json (paths relative to the agent directory, "~", globs and !, +, - patterns).
	GlobalSkills, GlobalPrompts []string
	// ProjectSkills, ProjectPrompts: the same of .pi/settings.json (relative to .pi).
	ProjectSkills, ProjectPrompts []string
	// SkillPaths and TemplatePaths come from --skill and --prompt-template (relative to Cwd).
	SkillPaths, TemplatePaths []string
	// PackageSkills and PackagePrompts are the files the installed packages carry (internal/packages
	// finds them), each with its package's source; they rank after every other settings entry and
	// directory.
	PackageSkills, PackagePrompts []PackageFile
	// NoSkills and NoTemplates (--no-skills, --no-prompt-templates) skip discovery and settings; the
	// paths given on the command line still load.
	NoSkills, NoTemplates bool
}

// Set is what Load found.
type Set struct {
	Templates   []Template
	Skills      []Skill
	Diagnostics []Diagnostic
}

// Template is the template called name.
func (s *Set) Template(name string) (Template, bool) {
	for _, t := range s.Templates {
		if t.Name == name {
			return t, true
		}
	}
	return Template{}, false
}

// Load finds the templates and skills as pi 1.6 does. Where two share a name the first found wins,
// in this order: the project settings' entries, the project's directories, the user settings' entries,
// the user's directories, then --skill and --prompt-template paths; the loser is a collision
// diagnostic. A file reached twice (through a symlink, or two entries) counts once.
func Load(o Options) *Set {
	set := &Set{}
	o.Cwd = absClean(o.Cwd)
	o.AgentDir = absClean(o.AgentDir)
	skillFiles, promptFiles, known := o.resolve()
	if o.NoSkills {
		skillFiles = nil
	}
	if o.NoTemplates {
		promptFiles = nil
	}
	set.loadSkills(o, mergePaths(o, skillFiles, o.SkillPaths, known[0]))
	set.loadTemplates(o, mergePaths(o, promptFiles, o.TemplatePaths, known[1]))
	return set
}

// entry is a discovered file with the source it is reported under.
type entry struct {
	path    string
	key     string // fileKey(path)
	source  SourceInfo
	enabled bool
	rank    int
}

// resolve lists the enabled skill and template files of settings entries and the conventional
// directories and the installed packages' files, each with its source, best first (pi's package
// manager's order; the packages themselves are found by internal/packages); known has
// the source of every file found, enabled or not (a command-line path to one is reported under it).
func (o Options) resolve() (skills, prompts []entry, known [2]map[string]SourceInfo) {
	projectBase := filepath.Join(o.Cwd, ".pi")
	var acc [2][]entry // 0: skills, 1: prompts
	seen := [2]map[string]bool{{}, {}}
	add := func(kind int, path string, src SourceInfo, enabled bool, rank int) {
		if seen[kind][path] {
			return
		}
		seen[kind][path] = true
		src.Path = path
		acc[kind] = append(acc[kind], entry{path: path, key: fileKey(path), source: src, enabled: enabled, rank: rank})
	}
	local := func(scope string) SourceInfo { return SourceInfo{Source: "local", Scope: scope, Origin: "top-level"} }
	auto := func(scope, base string) SourceInfo {
		return SourceInfo{Source: "auto", Scope: scope, Origin: "top-level", BaseDir: base}
	}
	settingsEntries := func(kind int, entries []string, base, scope string, rank int) {
		var plain, patterns []string
		for _, e := range entries {
			if isPattern(e) {
				patterns = append(patterns, e)
			} else {
				plain = append(plain, e)
			}
		}
		var files []string
		for _, p := range plain {
			files = append(files, collectFiles(resolvePath(p, base, o.Home), kind == 0)...)
		}
		enabled := applyPatterns(files, patterns, base, o.Home)
		for _, f := range files {
			add(kind, f, local(scope), enabled[f], rank)
		}
	}
	settingsEntries(0, o.ProjectSkills, projectBase, "project", 0)
	settingsEntries(1, o.ProjectPrompts, projectBase, "project", 0)
	settingsEntries(0, o.GlobalSkills, o.AgentDir, "user", 2)
	settingsEntries(1, o.GlobalPrompts, o.AgentDir, "user", 2)

	autoEntries := func(kind int, files []string, src SourceInfo, overrides []string, rank int) {
		for _, f := range files {
			add(kind, f, src, enabledByOverrides(f, overrides, src.BaseDir, o.Home), rank)
		}
	}
	userAgentsSkills := filepath.Join(o.Home, ".agents", "skills")
	if o.ProjectTrusted {
		autoEntries(0, skillEntries(filepath.Join(projectBase, "skills"), modePi), auto("project", projectBase), o.ProjectSkills, 1)
		for _, dir := range ancestorAgentsSkillDirs(o.Cwd) {
			if dir == userAgentsSkills {
				continue
			}
			autoEntries(0, skillEntries(dir, modeAgents), auto("project", filepath.Dir(dir)), o.ProjectSkills, 1)
		}
		autoEntries(1, promptEntries(filepath.Join(projectBase, "prompts")), auto("project", projectBase), o.ProjectPrompts, 1)
	}
	autoEntries(0, skillEntries(filepath.Join(o.AgentDir, "skills"), modePi), auto("user", o.AgentDir), o.GlobalSkills, 3)
	if o.Home != "" {
		autoEntries(0, skillEntries(userAgentsSkills, modeAgents), auto("user", filepath.Dir(userAgentsSkills)), o.GlobalSkills, 3)
	}
	autoEntries(1, promptEntries(filepath.Join(o.AgentDir, "prompts")), auto("user", o.AgentDir), o.GlobalPrompts, 3)
	for _, f := range o.PackageSkills {
		add(0, f.Path, f.Source, true, 4)
	}
	for _, f := range o.PackagePrompts {
		add(1, f.Path, f.Source, true, 4)
	}

	for kind := range acc {
		known[kind] = map[string]SourceInfo{}
		for _, e := range acc[kind] {
			known[kind][e.path] = e.source
		}
		slices.SortStableFunc(acc[kind], func(a, b entry) int { return a.rank - b.rank })
		keys := map[string]bool{}
		var out []entry
		for _, e := range acc[kind] {
			if keys[e.key] {
				continue
			}
			keys[e.key] = true
			if e.enabled {
				out = append(out, e)
			}
		}
		acc[kind] = out
	}
	return acc[0], acc[1], known
}

// collectFiles expands a settings entry: a file is itself, a directory its skill files or all its
// markdown files.
func collectFiles(path string, skills bool) []string {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return nil
	case info.Mode().IsRegular():
		return []string{path}
	case !info.IsDir():
		return nil
	case skills:
		return skillEntries(path, modePi)
	}
	return markdownFiles(path)
}

// ancestorAgentsSkillDirs are the .agents/skills directories from cwd up to the repository root (the
// directory with .git), or to the filesystem root outside a repository.
func ancestorAgentsSkillDirs(cwd string) []string {
	root := ""
	for dir := cwd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			root = dir
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	var out []string
	for dir := cwd; ; dir = filepath.Dir(dir) {
		out = append(out, filepath.Join(dir, ".agents", "skills"))
		if dir == root || filepath.Dir(dir) == dir {
			return out
		}
	}
}

// pathEntry is a path to load, with the source it was found under (nil for command-line paths, which
// may name a directory or nothing at all; a discovered one is a file).
type pathEntry struct {
	path   string
	key    string
	source *SourceInfo
}

// mergePaths resolves the discovered files and then the command-line paths, dropping repeats.
func mergePaths(o Options, found []entry, cli []string, known map[string]SourceInfo) []pathEntry {
	var out []pathEntry
	keys := map[string]bool{}
	addPath := func(p, key string, src *SourceInfo) {
		if keys[key] {
			return
		}
		keys[key] = true
		out = append(out, pathEntry{path: p, key: key, source: src})
	}
	for i := range found {
		addPath(found[i].path, found[i].key, &found[i].source)
	}
	for _, p := range cli {
		path := resolvePath(p, o.Cwd, o.Home)
		if src, ok := known[path]; ok {
			addPath(path, fileKey(path), &src)
			continue
		}
		addPath(path, fileKey(path), nil)
	}
	return out
}

// loadSkills reads the skill files and directories in order; the first skill of a name wins.
func (s *Set) loadSkills(o Options, paths []pathEntry) {
	var collisions []Diagnostic
	byName := map[string]string{}
	files := map[string]bool{}
	add := func(key string, sk *Skill, diags []Diagnostic) {
		s.Diagnostics = append(s.Diagnostics, diags...)
		if sk == nil {
			return
		}
		k := key
		if k == "" {
			k = fileKey(sk.FilePath)
		}
		if files[k] {
			return
		}
		if winner, ok := byName[sk.Name]; ok {
			collisions = append(collisions, Diagnostic{Type: DiagnosticCollision, Kind: KindSkill,
				Message: `name "` + sk.Name + `" collision`, Path: sk.FilePath, Winner: winner})
			return
		}
		byName[sk.Name] = sk.FilePath
		files[k] = true
		s.Skills = append(s.Skills, *sk)
	}
	warn := func(msg, path string) {
		s.Diagnostics = append(s.Diagnostics, Diagnostic{Type: DiagnosticWarning, Kind: KindSkill, Message: msg, Path: path})
	}
	for _, p := range paths {
		if p.source != nil { // a discovered file
			sk, diags := loadSkill(p.path, o.skillSource(p.path, p.source))
			add(p.key, sk, diags)
			continue
		}
		info, err := os.Stat(p.path)
		switch {
		case err != nil && os.IsNotExist(err):
			warn("skill path does not exist", p.path)
		case err != nil:
			warn(err.Error(), p.path)
		case info.IsDir():
			for _, f := range skillEntries(p.path, modePi) {
				sk, diags := loadSkill(f, o.skillSource(f, p.source))
				add("", sk, diags)
			}
		case info.Mode().IsRegular() && strings.HasSuffix(p.path, ".md"):
			sk, diags := loadSkill(p.path, o.skillSource(p.path, p.source))
			add(p.key, sk, diags)
		default:
			warn("skill path is not a markdown file", p.path)
		}
	}
	s.Diagnostics = append(s.Diagnostics, collisions...)
}

// skillSource is the source of a skill file: the one it was discovered under, else (a command-line
// path) a temporary one based at the skill's directory.
func (o Options) skillSource(file string, found *SourceInfo) SourceInfo {
	if found != nil {
		src := *found
		src.Path = file
		return src
	}
	return SourceInfo{Path: file, Source: "local", Scope: "temporary", Origin: "top-level", BaseDir: filepath.Dir(file)}
}

// loadTemplates reads the template files and directories in order; the first template of a name wins.
func (s *Set) loadTemplates(o Options, paths []pathEntry) {
	var loaded []Template
	warn := func(typ DiagnosticType, msg, path string) {
		s.Diagnostics = append(s.Diagnostics, Diagnostic{Type: typ, Kind: KindTemplate, Message: msg, Path: path})
	}
	load := func(f string, found *SourceInfo) {
		t, diags := loadTemplate(f, o.templateSource(f, found))
		s.Diagnostics = append(s.Diagnostics, diags...)
		if t != nil {
			loaded = append(loaded, *t)
		}
	}
	for _, p := range paths {
		if p.source != nil { // a discovered file
			load(p.path, p.source)
			continue
		}
		info, err := os.Stat(p.path)
		switch {
		case err != nil && os.IsNotExist(err):
			warn(DiagnosticError, "Prompt template path does not exist", p.path)
		case err != nil:
			warn(DiagnosticWarning, err.Error(), p.path)
		case info.IsDir():
			for _, f := range templatesIn(p.path) {
				load(f, p.source)
			}
		case info.Mode().IsRegular() && strings.HasSuffix(p.path, ".md"):
			load(p.path, p.source)
		}
	}
	byName := map[string]string{}
	for _, t := range loaded {
		if winner, ok := byName[t.Name]; ok {
			s.Diagnostics = append(s.Diagnostics, Diagnostic{Type: DiagnosticCollision, Kind: KindTemplate,
				Message: `name "/` + t.Name + `" collision`, Path: t.FilePath, Winner: winner})
			continue
		}
		byName[t.Name] = t.FilePath
		s.Templates = append(s.Templates, t)
	}
}

// templateSource is the source of a template file: the one it was discovered under, else (a
// command-line path) by where it lies.
func (o Options) templateSource(file string, found *SourceInfo) SourceInfo {
	if found != nil {
		src := *found
		src.Path = file
		return src
	}
	src := SourceInfo{Path: file, Source: "local", Scope: "temporary", Origin: "top-level", BaseDir: filepath.Dir(file)}
	for _, root := range []struct{ dir, scope string }{
		{filepath.Join(o.AgentDir, "prompts"), "user"},
		{filepath.Join(o.Cwd, ".pi", "prompts"), "project"},
	} {
		if within(root.dir, file) {
			src.Scope, src.BaseDir = root.scope, root.dir
		}
	}
	return src
}

// resolvePath is pi's: whitespace trimmed, "~" expanded, relative to base.
func resolvePath(p, base, home string) string {
	p = strings.TrimSpace(p)
	if home != "" {
		if p == "~" {
			p = home
		} else if strings.HasPrefix(p, "~/") {
			p = filepath.Join(home, p[2:])
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

func absClean(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// within reports whether p is dir or inside it.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
