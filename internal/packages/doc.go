// Package packages is pi's package manager: it parses package sources (npm:, git: and git URLs,
// local paths), knows where each is installed (~/.pi/agent/npm and ~/.pi/agent/git for the user,
// the project's .pi/npm and .pi/git for -l), installs, updates and removes them with npm and git,
// and lists the extensions, skills, prompts and themes a package carries (its package.json "pi"
// manifest, or its conventional directories), narrowed by a settings entry's filters.
//
// The resource loaders (extensions, skills and prompts, themes) import it for the package
// locations; it knows none of them, and nothing of sessions, the TUI or the loop.
package packages
