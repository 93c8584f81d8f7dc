package shell

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// noEditor is the editor the commands get (GIT_EDITOR, GIT_SEQUENCE_EDITOR, EDITOR, VISUAL): it
// says on stderr why there is none and fails, so `git commit` without -m, `git rebase -i` or
// `crontab -e` end at once with a message the model can act on instead of waiting for a person. git
// and most other programs run the editor through `sh -c '<editor> "$@"'`; `false` ignores the file
// name. A program that executes the value as a file name fails at once too ("not found").
const noEditor = `echo 'pi-go: no editor here (the command has no terminal): give the text on the command line,` +
	` e.g. git commit -m "...", git merge --no-edit' >&2; false`

// terminalEditors are the programs that wait for keys forever without a terminal. vim, when stdin
// is not a terminal, reads keys from stderr, and a pipe's write end never becomes readable. bash runs
// the exported function of the same name instead (the shell and every bash it starts), which runs
// the real program when a terminal is there, in Ex or batch mode, or when it is not installed (for
// bash's own "command not found"), and otherwise explains and fails.
var terminalEditors = []string{"vi", "vim", "view", "vimdiff"}

// editorFunction is the body of the exported bash function that stands in for name.
func editorFunction(name string) string {
	return fmt.Sprintf(`() { if ! type -P %[1]s >/dev/null || [ -t 0 ] || [ -t 2 ]; then command %[1]s "$@"; return; fi;`+
		` for a in "$@"; do case $a in -e*|-E*|-s*|-S*|-c|--cmd|+[!0-9/]*|-h|--help|--version) command %[1]s "$@"; return;; esac; done;`+
		` printf '%%s\n' "pi-go: %[1]s needs a terminal, and commands run by the agent have none (it would wait for keys forever).`+
		` Edit files with the edit or write tool, or run vim in Ex mode: vim -es -c '%%s/old/new/g' -c wq FILE" >&2; return 1; }`, name)
}

// environ is the child environment: the process environment with binDir prepended to PATH,
// PI_CODING_AGENT=true and AI_AGENT=pi (pi 1.6 sets both for its children), the variables that keep
// commands from waiting for a person, the caller's extra variables, which win, and with sessionEnv
// the session's variables in place of any inherited ones (see Options.SessionEnv).
//
// The commands have no terminal, so editors, pagers and password prompts cannot work there; the
// inherited values of these variables were chosen for the user's own interactive shell and are
// replaced: pagers become cat, editors become noEditor, git never prompts on a terminal
// (GIT_TERMINAL_PROMPT=0), and bash stands in for vim (terminalEditors). ssh never asks through
// an askpass program (SSH_ASKPASS_REQUIRE=never: a dialog would wait for a person who may not be
// there) unless the user set SSH_ASKPASS_REQUIRE, which is an explicit choice. To give the agent's
// commands other values (a non-interactive editor script, say), set them in settings.json
// shellCommandPrefix (`export GIT_EDITOR=...`): the prefix runs in the shell before every command.
//
// GIT_SSH_COMMAND is left alone: without a terminal and without askpass, ssh cannot prompt anyway,
// and setting it would override the user's core.sshCommand (a per-repository key, for example).
func environ(binDir string, extra []string, sessionEnv func() []string) []string {
	env := os.Environ()
	if sessionEnv != nil {
		env = slices.DeleteFunc(env, func(kv string) bool {
			key, _, _ := strings.Cut(kv, "=")
			return slices.Contains(sessionVars, key)
		})
	}
	set := func(kv string) {
		key := kv[:strings.IndexByte(kv, '=')+1]
		for i, e := range env {
			if strings.HasPrefix(e, key) {
				env[i] = kv
				return
			}
		}
		env = append(env, kv)
	}
	if binDir != "" {
		path := os.Getenv("PATH")
		if !pathHas(path, binDir) {
			if path == "" {
				path = binDir
			} else {
				path = binDir + string(os.PathListSeparator) + path
			}
			set("PATH=" + path)
		}
	}
	set("PI_CODING_AGENT=true")
	set("AI_AGENT=pi")
	set("PAGER=cat")
	set("GIT_PAGER=cat")
	set("GIT_TERMINAL_PROMPT=0")
	for _, key := range []string{"GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "EDITOR", "VISUAL"} {
		set(key + "=" + noEditor)
	}
	for _, name := range terminalEditors {
		set("BASH_FUNC_" + name + "%%=" + editorFunction(name))
	}
	if _, ok := os.LookupEnv("SSH_ASKPASS_REQUIRE"); !ok {
		set("SSH_ASKPASS_REQUIRE=never")
	}
	if sessionEnv != nil {
		extra = append(slices.Clone(extra), sessionEnv()...)
	}
	for _, kv := range extra {
		if strings.IndexByte(kv, '=') > 0 {
			set(kv)
		}
	}
	return env
}

// sessionVars are the variables pi 1.6 gives the bash tool's commands about the session.
var sessionVars = []string{"PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL"}

func pathHas(path, dir string) bool {
	for _, p := range strings.Split(path, string(os.PathListSeparator)) {
		if p == dir {
			return true
		}
	}
	return false
}
