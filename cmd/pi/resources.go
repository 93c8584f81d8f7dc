package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/pi-go/pi-go/internal/harness"
	"github.com/pi-go/pi-go/internal/packages"
	"github.com/pi-go/pi-go/internal/resources"
)

// loadResources finds the prompt templates and skills as pi 1.6 does, with the settings and trust
// decision as they stand now (so /reload sees edited settings).
func (a *app) loadResources(cwd string) *resources.Set {
	home, _ := os.UserHomeDir()
	if h := os.Getenv("HOME"); h != "" {
		home = h
	}
	global, project := a.settings.ResourceLists()
	pkgs := a.installedPackages(cwd, home)
	extSkills, extPrompts := a.ext.resourcePaths() // resources_discover's, after the command line's
	return resources.Load(resources.Options{
		AgentDir:       a.paths.Dir,
		Cwd:            cwd,
		Home:           home,
		ProjectTrusted: a.projectTrusted,
		GlobalSkills:   global.Skills,
		GlobalPrompts:  global.Prompts,
		ProjectSkills:  project.Skills,
		ProjectPrompts: project.Prompts,
		SkillPaths:     append(slices.Clip(a.opts.Skills), extSkills...),
		TemplatePaths:  append(slices.Clip(a.opts.PromptTemplates), extPrompts...),
		NoSkills:       a.opts.NoSkills,
		NoTemplates:    a.opts.NoPromptTemplates,
		PackageSkills:  packageResources(pkgs, packages.Skills, home),
		PackagePrompts: packageResources(pkgs, packages.Prompts, home),
	})
}

// reloadPrompt re-reads the system prompt's files and the context files for /reload; problems go
// where the session's warnings go.
func (a *app) reloadPrompt(cwd string) (harness.SystemPromptOptions, error) {
	return a.systemPromptOptions(cwd, func(format string, args ...any) {
		a.sessionWarning(fmt.Errorf(format, args...))
	})
}
