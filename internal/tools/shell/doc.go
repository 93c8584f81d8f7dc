// Package shell runs shell commands for the agent and for the user: the bash tool's commands and the
// user's own `!` commands share this one implementation. It resolves the shell, builds the
// non-interactive environment, starts the shell in a process group of its own (with a parent-death
// signal, spawned from a thread kept locked until the shell is gone), streams the merged output,
// kills the whole group on abort or timeout, and captures output in bounded memory with full-output
// files in a per-process output directory.
//
// It knows the output limits (tools/output) and nothing of tools, the loop, the harness or the UI:
// callers format results themselves (the bash tool as pi's tool result; RunUser as pi's BashResult).
//
// # Commands run without a terminal
//
// Commands run with stdin from /dev/null, stdout and stderr merged into one pipe, in a new session
// (so they have no controlling terminal and /dev/tty cannot be opened) and, on Linux, with a
// parent-death signal so the shell dies with pi-go. Whatever would wait for a person fails at once
// with a message the model can act on:
//   - editors (GIT_EDITOR, GIT_SEQUENCE_EDITOR, EDITOR, VISUAL) print why there is none and fail, so
//     `git commit` without -m, `git rebase -i` or `git merge` without --no-edit end at once;
//   - pagers (PAGER, GIT_PAGER) are cat; git never prompts on a terminal (GIT_TERMINAL_PROMPT=0);
//   - vi, vim, view and vimdiff, which read keys from stderr when stdin is no terminal and so would
//     wait forever on the output pipe, are bash functions that explain and fail unless a terminal
//     is there or vim runs in Ex or batch mode (-e, -es, -c ...);
//   - ssh never asks through an askpass program (SSH_ASKPASS_REQUIRE=never) unless the user set
//     SSH_ASKPASS_REQUIRE; without a terminal ssh, ssh-keygen and sudo cannot ask for passwords.
//
// The values inherited from the user's environment are replaced, since they were chosen for an
// interactive terminal the commands do not have. To give the agent's commands other values, set them
// in settings.json shellCommandPrefix (`export GIT_EDITOR=...`), which runs before every command.
// GIT_SSH_COMMAND is left alone: it would override the user's core.sshCommand.
package shell
