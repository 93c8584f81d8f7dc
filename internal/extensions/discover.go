package extensions

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-go/pi-go/internal/packages"
)

// Sources are where extensions come from, as pi lists them.
type Sources struct {
	AgentDir string
	Cwd      string
	Home     string
	// ProjectTrusted lets .pi/extensions count (pi 1.6 loads project extensions only when trusted).
	ProjectTrusted bool
	// Settings are the settings' "extensions" entries (global and, when trusted, project), relative
	// to the directory of the settings file that named them (already resolved by the caller).
	Settings []string
	// Packages are the extension entries of the installed packages (internal/packages resolves
	// them: files, or directories with an index or a manifest).
	Packages []string
	// CLI are the -e/--extension paths; they load even with NoDiscovery.
	CLI []string
	// NoDiscovery is --no-extensions: only CLI paths load.
	NoDiscovery bool
}

// Found is what discovery found: script entries for the Node sidecar and executables that speak the
// protocol themselves, each in load order without duplicates.
type Found struct {
	Scripts     []string
	Executables []string
}

// Empty reports whether nothing was found.
func (f Found) Empty() bool { return len(f.Scripts) == 0 && len(f.Executables) == 0 }

// Discover finds the extensions as pi does (project .pi/extensions, then <agentDir>/extensions, then
// settings, packages and -e paths; one level deep in a directory: *.ts and *.js files, and
// subdirectories with a package.json "pi.extensions" list or an index.ts/index.js), plus executable
// files, which pi passes over and pi-go runs as protocol extensions.
func Discover(s Sources) Found {
	var f Found
	seen := map[string]bool{}
	add := func(p string) {
		abs, err := filepath.Abs(p)
		if err != nil || seen[abs] {
			return
		}
		seen[abs] = true
		if isScript(abs) {
			f.Scripts = append(f.Scripts, abs)
		} else {
			f.Executables = append(f.Executables, abs)
		}
	}
	if !s.NoDiscovery {
		if s.ProjectTrusted {
			for _, p := range discoverInDir(filepath.Join(s.Cwd, ".pi", "extensions")) {
				add(p)
			}
		}
		for _, p := range discoverInDir(filepath.Join(s.AgentDir, "extensions")) {
			add(p)
		}
		for _, p := range s.Settings {
			for _, e := range resolveConfigured(s.resolve(p)) {
				add(e)
			}
		}
		for _, p := range s.Packages {
			for _, e := range resolveConfigured(p) {
				add(e)
			}
		}
	}
	for _, p := range s.CLI {
		for _, e := range resolveConfigured(s.resolve(p)) {
			add(e)
		}
	}
	return f
}

func (s Sources) resolve(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = filepath.Join(s.Home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.Cwd, p)
	}
	return p
}

// isScript reports whether path is for Node (a TypeScript or JavaScript file).
func isScript(path string) bool {
	switch filepath.Ext(path) {
	case ".ts", ".js", ".mjs", ".cjs", ".mts", ".cts":
		return true
	}
	return false
}

// isExecutable reports whether path is a regular file someone may execute.
func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

func discoverInDir(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		st, err := os.Stat(p) // follows symbolic links, as pi does
		if err != nil {
			continue
		}
		switch {
		case st.Mode().IsRegular() && (strings.HasSuffix(e.Name(), ".ts") || strings.HasSuffix(e.Name(), ".js")):
			out = append(out, p)
		case st.IsDir():
			out = append(out, packages.DirExtensionEntries(p)...)
		case isExecutable(p) && !strings.HasPrefix(e.Name(), "."):
			out = append(out, p)
		}
	}
	return out
}

// resolveConfigured is an explicitly named path: a directory's entries (or, without any, the
// extensions in it), else the path itself.
func resolveConfigured(p string) []string {
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		return []string{p} // a missing file is the loader's error to report, as in pi
	}
	if e := packages.DirExtensionEntries(p); e != nil {
		return e
	}
	return discoverInDir(p)
}
