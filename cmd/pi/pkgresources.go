package main

import (
	"context"

	"github.com/pi-go/pi-go/internal/packages"
	"github.com/pi-go/pi-go/internal/resources"
)

const pkgKindExtensions = packages.Extensions

// installedPackages are the settings' packages (the project's only when it is trusted, which the
// settings manager already applies), with where each is installed.
func (a *app) installedPackages(cwd, home string) []packages.Package {
	global, project := a.settings.PackageEntries()
	return packages.Configured(packages.Dirs{AgentDir: a.paths.Dir, Cwd: cwd, Home: home}, global, project)
}

// packageFiles are the enabled files of one kind the installed packages carry, in package order.
func packageFiles(pkgs []packages.Package, kind, home string) []string {
	var out []string
	for _, p := range pkgs {
		out = append(out, p.Resources(kind, home)...)
	}
	return out
}

// packageResources are the packages' skills or prompts with the source pi reports for them.
func packageResources(pkgs []packages.Package, kind, home string) []resources.PackageFile {
	var out []resources.PackageFile
	for _, p := range pkgs {
		for _, f := range p.Resources(kind, home) {
			out = append(out, resources.PackageFile{Path: f, Source: resources.SourceInfo{
				Source: p.Source, Scope: string(p.Scope), Origin: "package", BaseDir: p.Root,
			}})
		}
	}
	return out
}

// cliExtensions are the -e entries with npm and git sources replaced by the extensions of their
// package, installed into the -e cache first when needed (as pi does at start). A package that
// cannot be installed is one warning and loads nothing; local paths stay as they are. Resolved once
// (discovery runs twice when extensions are asked about project trust).
func (a *app) cliExtensions(cwd, home string) []string {
	if a.cliExt != nil {
		return *a.cliExt
	}
	out := []string{}
	defer func() { a.cliExt = &out }()
	var m *packages.Manager
	for _, e := range a.opts.Extensions {
		if packages.Parse(e).Kind == packages.Local {
			out = append(out, e)
			continue
		}
		if m == nil {
			m = &packages.Manager{Dirs: packages.Dirs{AgentDir: a.paths.Dir, Cwd: cwd, Home: home},
				Settings: a.settings, NpmCommand: a.settings.Settings().NpmCommand}
		}
		pkg, err := m.Temporary(context.Background(), e)
		if err != nil {
			a.warn("Could not install %s: %v", e, err)
			continue
		}
		out = append(out, pkg.Resources(packages.Extensions, home)...)
	}
	return out
}

// warnMissingPackages names the configured npm and git packages that are not installed: pi installs
// them at start, pi-go starts without the network and says how to install them.
func (a *app) warnMissingPackages(pkgs []packages.Package) {
	for _, p := range pkgs {
		if p.Root != "" || p.Parsed.Kind == packages.Local {
			continue
		}
		local := ""
		if p.Scope == packages.Project {
			local = " -l"
		}
		a.warn("Package %s is not installed; its resources are skipped (run: pi install%s %s)", p.Source, local, p.Source)
	}
}
