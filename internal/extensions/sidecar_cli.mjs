// pi-go's CLI for Node: `node pi-go-cli-….mjs ARGS` runs pi-go with ARGS, as `node cli.js ARGS` runs
// pi. The sidecar points process.argv[1] at this file, so an extension that starts "the running pi"
// with process.execPath and process.argv[1] (pi's subagent example) starts pi-go. Written next to the
// sidecar script by pi-go, after a first line that sets `executable` (the pi-go binary's path).
// stdio is inherited; SIGINT, SIGTERM and SIGHUP are passed on; pi-go's exit code, or the signal that
// ended it, is this process's.
import { spawn } from "node:child_process";
import os from "node:os";

const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
const child = spawn(executable, process.argv.slice(2), { stdio: "inherit" });
const forward = (signal) => {
	try {
		child.kill(signal);
	} catch {
		// pi-go has gone: its exit ends this process
	}
};
for (const signal of forwarded) process.on(signal, forward);

child.on("error", (err) => {
	console.error(`pi-go: cannot run ${executable}: ${err.message}`);
	process.exit(127);
});
child.on("exit", (code, signal) => {
	if (signal === null) process.exit(code ?? 1);
	// Ended by a signal: end the same way, so the parent sees the signal (as it would with pi).
	for (const s of forwarded) process.removeListener(s, forward);
	try {
		process.kill(process.pid, signal);
	} catch {
		// a signal this platform cannot send itself: the shell's convention below
	}
	// A signal Node ignores (SIGPIPE) or one that did not end this process yet.
	setTimeout(() => process.exit(128 + (os.constants.signals[signal] ?? 0)), 100);
});
