// Package resources finds and reads pi's prompt templates and skills: the Markdown files with YAML
// frontmatter under ~/.pi/agent/{prompts,skills}, the project's .pi/{prompts,skills} and .agents/skills,
// the settings' prompts and skills entries, the installed packages' files (Options.PackageSkills,
// PackagePrompts) and the --prompt-template and --skill paths, in pi 1.6's
// order of precedence; and it expands them: a template's $1, $@, ${@:N:L}, ${1:-default} with pi's
// argument parsing, and a /skill:name command into the skill block pi sends.
//
// It knows nothing of the agent, the session or any mode: the harness asks it for a Set and runs the
// text a user typed through it. Problems (malformed frontmatter, invalid names, collisions) are
// Diagnostics naming the file, never silently dropped.
package resources
