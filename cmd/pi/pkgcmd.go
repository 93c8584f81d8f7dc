package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pi-go/pi-go/internal/config"
	"github.com/pi-go/pi-go/internal/packages"
)

// `pi install|remove|uninstall|update|list` manage pi packages without a session, with pi 1.6's
// options, messages and exit codes (its package-manager-cli). pi-go cannot update itself, so
// `pi update` without a package target says so instead of updating pi.

// isPackageCommand reports whether args start a package command (checked before flag parsing, as
// pi does, so `pi list` is never a prompt).
func isPackageCommand(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "install", "remove", "uninstall", "update", "list":
		return true
	}
	return false
}

type packageCommand struct {
	command            string
	source             string
	local, help, force bool
	approve            *bool
	invalidOption      string
	invalidArgument    string
	missingValue       string
	conflict           string
	// update's target: "self", "extensions", "all" or "models"; extension is one package.
	target          string
	extension       string
	skippedExtsNote bool
}

func packageUsage(command string) string {
	switch command {
	case "install":
		return "pi install <source> [-l] [--approve|--no-approve]"
	case "remove":
		return "pi remove <source> [-l] [--approve|--no-approve]"
	case "update":
		return "pi update [source|self|pi] [--self|--extensions|--models|--all] [--extension <source>] [--approve|--no-approve] [--force]"
	}
	return "pi list [--approve|--no-approve]"
}

const packageHelpOptions = `  -a, --approve     Trust project-local files for this command
  -na, --no-approve Ignore project-local files for this command
`

func packageHelp(command string) string {
	switch command {
	case "install":
		return "Usage:\n  " + packageUsage(command) + `

Install a package and add it to settings.

Options:
  -l, --local       Install project-locally (.pi/settings.json)
` + packageHelpOptions + `
Examples:
  pi install npm:@foo/bar
  pi install git:github.com/user/repo
  pi install git:git@github.com:user/repo
  pi install https://github.com/user/repo
  pi install ssh://git@github.com/user/repo
  pi install ./local/path
`
	case "remove":
		return "Usage:\n  " + packageUsage(command) + `

Remove a package and its source from settings.
Alias: pi uninstall <source> [-l]

Options:
  -l, --local       Remove from project settings (.pi/settings.json)
` + packageHelpOptions + `
Examples:
  pi remove npm:@foo/bar
  pi uninstall npm:@foo/bar
`
	case "update":
		return "Usage:\n  " + packageUsage(command) + `

Update installed packages (pi-go does not update itself).

Options:
  --self                  Update pi only (not supported by pi-go)
  --extensions            Update installed packages only
  --models                Refresh model catalogs only (not supported by pi-go)
  --all                   Update pi and installed packages
  --extension <source>    Update one package only
  -a, --approve           Trust project-local files for this command
  -na, --no-approve       Ignore project-local files for this command
  --force                 Reinstall pi even if the current version is latest

Short forms:
  pi update                Update pi only
  pi update --all          Update pi and all extensions
  pi update <source>       Update one package
`
	}
	return "Usage:\n  " + packageUsage(command) + `

List installed packages from user and project settings.

Options:
  -a, --approve      Trust project-local files for this command
  -na, --no-approve  Ignore project-local files for this command
`
}

// parsePackageCommand is pi's parsePackageCommand: the first problem of each kind is kept and
// reported before anything runs.
func parsePackageCommand(args []string) packageCommand {
	c := packageCommand{command: args[0]}
	if c.command == "uninstall" {
		c.command = "remove"
	}
	var self, exts, models, all bool
	invalid := func(a string) {
		if c.invalidOption == "" {
			c.invalidOption = a
		}
	}
	onlyFor := func(flag *bool, commands ...string) func(string) {
		return func(a string) {
			for _, cmd := range commands {
				if c.command == cmd {
					*flag = true
					return
				}
			}
			invalid(a)
		}
	}
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch a {
		case "-h", "--help":
			c.help = true
		case "-l", "--local":
			onlyFor(&c.local, "install", "remove")(a)
		case "--self":
			onlyFor(&self, "update")(a)
		case "--extensions":
			onlyFor(&exts, "update")(a)
		case "--models":
			onlyFor(&models, "update")(a)
		case "--all":
			onlyFor(&all, "update")(a)
		case "--force":
			onlyFor(&c.force, "update")(a)
		case "--approve", "-a":
			t := true
			c.approve = &t
		case "--no-approve", "-na":
			f := false
			c.approve = &f
		case "--extension":
			if c.command != "update" {
				invalid(a)
				continue
			}
			switch {
			case i+1 >= len(rest) || strings.HasPrefix(rest[i+1], "-"):
				if c.missingValue == "" {
					c.missingValue = a
				}
			case c.extension != "":
				c.setConflict("--extension can only be provided once")
				i++
			default:
				c.extension = rest[i+1]
				i++
			}
		default:
			switch {
			case strings.HasPrefix(a, "-"):
				invalid(a)
			case c.source == "":
				c.source = a
			case c.invalidArgument == "":
				c.invalidArgument = a
			}
		}
	}
	if c.command != "update" {
		return c
	}
	if all && (self || exts || models || c.extension != "") {
		c.setConflict("--all cannot be combined with --self, --extensions, --models, or --extension")
	}
	if all && c.source != "" {
		c.setConflict("--all cannot be combined with a positional source")
	}
	switch {
	case models:
		if self || exts || all || c.extension != "" {
			c.setConflict("--models cannot be combined with --self, --extensions, --all, or --extension")
		}
		if c.source != "" {
			c.setConflict("--models cannot be combined with a positional source")
		}
		c.target = "models"
	case c.extension != "":
		if self || exts || all {
			c.setConflict("--extension cannot be combined with --self, --extensions, or --all")
		}
		if c.source != "" {
			c.setConflict("--extension cannot be combined with a positional source")
		}
		c.target = "extensions"
	case c.source == "self" || c.source == "pi":
		c.target = "self"
		if exts {
			c.target = "all"
		}
		c.source = ""
	case c.source != "":
		if exts || self || all {
			c.setConflict("positional update targets cannot be combined with --self, --extensions, or --all")
		}
		c.target, c.extension, c.source = "extensions", c.source, ""
	case all, self && exts:
		c.target = "all"
	case self:
		c.target = "self"
	case exts:
		c.target = "extensions"
	default:
		c.target = "self"
		c.skippedExtsNote = true
	}
	return c
}

func (c *packageCommand) setConflict(msg string) {
	if c.conflict == "" {
		c.conflict = msg
	}
}

// packageMain runs a package command and returns the exit code.
func packageMain(ctx context.Context, args []string, io Streams) int {
	c := parsePackageCommand(args)
	out := func(format string, a ...any) { fmt.Fprintf(io.Out, format+"\n", a...) }
	fail := func(format string, a ...any) int {
		fmt.Fprintf(io.Err, format+"\n", a...)
		return 1
	}
	usage := "Usage: " + packageUsage(c.command)
	switch {
	case c.help:
		fmt.Fprint(io.Out, packageHelp(c.command))
		return 0
	case c.invalidOption != "":
		return fail("Unknown option %s for %q.\nUse \"pi --help\" or %q.", c.invalidOption, c.command, packageUsage(c.command))
	case c.missingValue != "":
		return fail("Missing value for %s.\n%s", c.missingValue, usage)
	case c.invalidArgument != "":
		return fail("Unexpected argument %s.\n%s", c.invalidArgument, usage)
	case c.conflict != "":
		return fail("%s\n%s", c.conflict, usage)
	case (c.command == "install" || c.command == "remove") && c.source == "":
		return fail("Missing %s source.\n%s", c.command, usage)
	case c.target == "models":
		return fail("Error: pi-go has no model catalogs to refresh (models come from models.json and the built-in list)")
	}

	agentDir, err := config.AgentDir(nil)
	if err != nil {
		return fail("Error: %v", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail("Error: %v", err)
	}
	home, _ := config.HomeDir(nil)
	settings := config.LoadSettings(agentDir, cwd)
	trusted := packageProjectTrust(agentDir, cwd, home, settings, c)
	settings.SetProjectTrusted(trusted)
	if (c.command == "install" || c.command == "remove") && c.local && !trusted {
		return fail("Project is not trusted. Use --approve to modify local package config.")
	}
	for _, e := range settings.Errors() {
		fmt.Fprintf(io.Err, "Warning (package command): %v\n", e)
	}
	m := &packages.Manager{
		Dirs:           packages.Dirs{AgentDir: agentDir, Cwd: cwd, Home: home},
		Settings:       settings,
		ProjectTrusted: trusted,
		NpmCommand:     settings.Settings().NpmCommand,
		Stdout:         io.Out,
		Stderr:         io.Err,
		Progress:       func(msg string) { out("%s", msg) },
	}
	errorOut := func(err error) int { return fail("Error: %v", err) }
	switch c.command {
	case "install":
		if err := m.Install(ctx, c.source, c.local); err != nil {
			return errorOut(err)
		}
		out("Installed %s", c.source)
	case "remove":
		removed, err := m.Remove(ctx, c.source, c.local)
		if err != nil {
			return errorOut(err)
		}
		if !removed {
			return fail("No matching package found for %s", c.source)
		}
		out("Removed %s", c.source)
	case "list":
		listPackages(m.List(), out)
	case "update":
		if c.skippedExtsNote {
			out("Extensions are skipped. Run pi update --extensions to update extensions.")
		}
		if c.target == "extensions" || c.target == "all" {
			updated, err := m.Update(ctx, c.extension)
			if err != nil {
				return errorOut(err)
			}
			switch {
			case offlineMode():
				out("Skipped package updates (offline mode)")
			case len(updated) == 0 && c.extension != "":
				out("%s is already up to date", c.extension)
			case len(updated) == 0:
				out("Packages are already up to date")
			default:
				s := "s"
				if len(updated) == 1 {
					s = ""
				}
				out("Updated %d package%s:", len(updated), s)
				for _, u := range updated {
					out("  %s", u)
				}
			}
		}
		if c.target == "self" || c.target == "all" {
			msg := "pi-go does not update itself: install a newer pi-go build to update it."
			if c.target == "self" {
				return fail("%s", msg)
			}
			out("%s", msg)
		}
	}
	return 0
}

func listPackages(list []packages.Listed, out func(string, ...any)) {
	if len(list) == 0 {
		out("No packages installed.")
		return
	}
	var user, project []packages.Listed
	for _, p := range list {
		if p.Scope == packages.Project {
			project = append(project, p)
		} else {
			user = append(user, p)
		}
	}
	show := func(p packages.Listed) {
		if p.Filtered {
			out("  %s (filtered)", p.Source)
		} else {
			out("  %s", p.Source)
		}
		if p.Path != "" {
			out("    %s", p.Path)
		}
	}
	if len(user) > 0 {
		out("User packages:")
		for _, p := range user {
			show(p)
		}
	}
	if len(project) > 0 {
		if len(user) > 0 {
			out("")
		}
		out("Project packages:")
		for _, p := range project {
			show(p)
		}
	}
}

// packageProjectTrust decides trust as pi's package commands do: --approve/--no-approve, else for
// update only the saved decision, else the saved decision, defaultProjectTrust, and (without
// resources that need a decision) trusted. There is no prompt: asking would need a terminal the
// command does not start.
func packageProjectTrust(agentDir, cwd, home string, settings *config.SettingsManager, c packageCommand) bool {
	if c.approve != nil {
		return *c.approve
	}
	saved, err := config.NewTrustStore(agentDir).Get(cwd)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		saved = nil
	}
	if c.command == "update" {
		return saved != nil && saved.Trusted
	}
	q := config.TrustQuery{
		Saved:        saved,
		HasResources: config.HasTrustRequiringProjectResources(cwd, home),
		Default:      settings.Settings().DefaultProjectTrust(),
	}
	trusted, _ := q.Resolve()
	return trusted
}

func offlineMode() bool {
	v := strings.ToLower(os.Getenv("PI_OFFLINE"))
	return v == "1" || v == "true" || v == "yes"
}
